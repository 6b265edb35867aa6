// A set of exported files lands all or nothing (#11): a failure part-way, or an existing file,
// leaves the folder as it was; a missing folder is created and removed again on failure.
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

class FileSet : public TempFolderTest {
protected:
    std::vector<std::string> entries(const fs::path& folder) const
    {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(folder))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

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

TEST_F(FileSet, NameAtTheFileSystemLimitGetsALegalTemporaryName)
{
    const std::string longest(255, 'n'); // #11: the temporary suffix once made this fail
    io::writeFileAtomically(path(longest), std::string_view("fits"));
    EXPECT_EQ(io::readFile(path(longest)), "fits");
}

} // namespace
} // namespace attnviz::test
