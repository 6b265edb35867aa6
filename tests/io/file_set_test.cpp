// A set of exported files lands all or nothing (#11): a failure part-way, or an existing file,
// leaves the folder as it was; a missing folder is created and removed again on failure. And
// another process writing the same folder at the same moment loses nothing to it (#22).
#include "io/atomic_file.h"
#include "io/file_set.h"
#include "io/input_file.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;

using FileSet = TempFolderTest;

TEST_F(FileSet, CommitMovesEveryFileIntoPlaceAndLeavesNoStaging)
{
    io::FileSetWriter set(dir(), false);
    set.add("a.txt", std::string_view("first"));
    set.add("b.txt", std::string_view("second"));
    EXPECT_EQ(entries(m_dir).size(), 1u) << "only the staging folder exists before the commit";
    set.commit();
    EXPECT_EQ(entries(m_dir), (std::vector<std::string>{"a.txt", "b.txt"}));
    EXPECT_EQ(io::readFile(path("b.txt")), "second");
}

TEST_F(FileSet, UncommittedSetLeavesNothing)
{
    {
        io::FileSetWriter set(dir(), false);
        set.add("a.txt", std::string_view("first"));
    }
    EXPECT_TRUE(entries(m_dir).empty());
}

TEST_F(FileSet, MissingFolderIsCreatedAndRemovedWhenNothingIsCommitted)
{
    const fs::path nested = m_dir / "new" / "deeper";
    {
        io::FileSetWriter set(nested.string(), false);
        EXPECT_TRUE(fs::is_directory(nested));
    }
    EXPECT_FALSE(fs::exists(m_dir / "new"));
    io::FileSetWriter set(nested.string(), false);
    set.add("x.csv", std::string_view("1"));
    set.commit();
    EXPECT_EQ(io::readFile((nested / "x.csv").string()), "1");
}

TEST_F(FileSet, ExistingFileIsRefusedBeforeAnythingIsWritten)
{
    io::writeFileAtomically(path("b.txt"), std::string_view("old"));
    io::FileSetWriter set(dir(), false);
    EXPECT_THROW(set.expect({"a.txt", "b.txt"}), io::ExistingFileError);
    try {
        set.expect({"b.txt"});
    } catch (const io::ExistingFileError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("b.txt already exists; nothing was written"));
    }
}

TEST_F(FileSet, FailurePartWayRestoresReplacedFilesAndRemovesNewOnes)
{
    io::writeFileAtomically(path("a.txt"), std::string_view("old a"));
    fs::create_directory(m_dir / "c.txt"); // a name the set cannot take
    {
        io::FileSetWriter set(dir(), true);
        set.add("a.txt", std::string_view("new a"));
        set.add("b.txt", std::string_view("new b"));
        set.add("c.txt", std::string_view("new c"));
        EXPECT_THROW(set.commit(), io::FileError);
    }
    EXPECT_EQ(entries(m_dir), (std::vector<std::string>{"a.txt", "c.txt"}));
    EXPECT_EQ(io::readFile(path("a.txt")), "old a");
    EXPECT_TRUE(fs::is_directory(m_dir / "c.txt"));
}

TEST_F(FileSet, AFileWhereTheFolderShouldBeIsRefused)
{
    io::writeFileAtomically(path("plain"), std::string_view("x"));
    try {
        io::FileSetWriter set(path("plain"), false);
        FAIL() << "expected FileError";
    } catch (const io::FileError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("it is a file, not a folder"));
    }
}

// #22: two exports into one new folder at the same moment. The one that loses must not remove
// the folder (the other made it, or holds its files there) nor anything in it.
TEST_F(FileSet, TheLoserOfTwoSetsIntoOneNewFolderRemovesNothingOfTheWinners)
{
    const fs::path shared = m_dir / "new";
    {
        io::FileSetWriter first(shared.string(), false); // makes the folder
        io::FileSetWriter second(shared.string(), false); // finds it made
        first.add("a.csv", std::string_view("first a"));
        second.add("a.csv", std::string_view("second a"));
        second.add("b.csv", std::string_view("second b"));
        second.commit();
        EXPECT_THROW(first.commit(), io::ExistingFileError);
    }
    EXPECT_EQ(entries(shared), (std::vector<std::string>{"a.csv", "b.csv"}));
    EXPECT_EQ(io::readFile((shared / "a.csv").string()), "second a");
}

// A name taken while the set was being written is never replaced, and nothing of the set stays.
TEST_F(FileSet, ANameTakenDuringTheRunIsNotReplaced)
{
    {
        io::FileSetWriter set(dir(), false);
        set.add("a.csv", std::string_view("mine"));
        set.add("b.csv", std::string_view("mine"));
        io::writeFileAtomically(path("b.csv"), std::string_view("theirs"));
        EXPECT_THROW(set.commit(), io::ExistingFileError);
    }
    EXPECT_EQ(entries(m_dir), (std::vector<std::string>{"b.csv"}));
    EXPECT_EQ(io::readFile(path("b.csv")), "theirs");
}

TEST_F(FileSet, AFolderItMadeIsRemovedOnlyWhileEmpty)
{
    const fs::path made = m_dir / "made";
    {
        io::FileSetWriter set(made.string(), false);
        io::writeFileAtomically((made / "theirs.txt").string(), std::string_view("keep"));
    }
    EXPECT_EQ(io::readFile((made / "theirs.txt").string()), "keep");
}

// #22: without overwrite, a symbolic link to nothing is an existing name like any other (a
// rename would replace the link).
TEST_F(FileSet, ASymbolicLinkToNothingIsAnExistingName)
{
    fs::create_symlink("nowhere", m_dir / "a.csv");
    io::FileSetWriter set(dir(), false);
    EXPECT_THROW(set.expect({"a.csv"}), io::ExistingFileError);
    set.add("a.csv", std::string_view("new"));
    EXPECT_THROW(set.commit(), io::ExistingFileError);
    EXPECT_TRUE(fs::is_symlink(m_dir / "a.csv"));
    EXPECT_EQ(fs::read_symlink(m_dir / "a.csv"), "nowhere");
}

TEST_F(FileSet, ASymbolicLinkToNothingIsNotAFolder)
{
    fs::create_symlink("nowhere", m_dir / "out");
    EXPECT_EQ(io::whyNotAFolder(path("out")), "a symbolic link to nothing");
    try {
        io::FileSetWriter set(path("out"), false);
        FAIL() << "expected FileError";
    } catch (const io::FileError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("it is a symbolic link to nothing"));
    }
    EXPECT_TRUE(fs::is_symlink(m_dir / "out"));
}

// #22: --steps weights,weights once wrote one name twice, and the second move failed with "No
// such file or directory".
TEST_F(FileSet, ANameGivenTwiceIsRefused)
{
    io::FileSetWriter set(dir(), false);
    set.add("a.csv", std::string_view("1"));
    try {
        set.add("a.csv", std::string_view("2"));
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("names the file a.csv twice"));
    }
}

TEST_F(FileSet, NameAtTheFileSystemLimitGetsALegalTemporaryName)
{
    const std::string longest(255, 'n'); // #11: the temporary suffix once made this fail
    io::writeFileAtomically(path(longest), std::string_view("fits"));
    EXPECT_EQ(io::readFile(path(longest)), "fits");
}

} // namespace
} // namespace attnviz::test
