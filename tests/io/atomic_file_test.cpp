#include "io/atomic_file.h"
#include "io/input_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <sys/resource.h>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() /
            ("attnviz-atomic-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(m_dir))
            names.push_back(e.path().filename().string());
        return names;
    }

    fs::path m_dir;
};

TEST_F(AtomicFile, WritesAndReplaces)
{
    const std::string path = (m_dir / "out.bin").string();
    writeFileAtomically(path, std::string("first"));
    writeFileAtomically(path, std::string("second"));
    EXPECT_EQ(readFile(path), "second");
    EXPECT_EQ(entries(), std::vector<std::string>{"out.bin"}); // no temporary left behind
}

TEST_F(AtomicFile, MissingDirectoryFailsWithoutLeavingFiles)
{
    const std::string path = (m_dir / "no-such-dir" / "out.bin").string();
    try {
        writeFileAtomically(path, std::string("x"));
        FAIL() << "expected FileError";
    } catch (const FileError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("cannot write " + path));
    }
    EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, DirectoryAsTargetIsRefusedAndKept)
{
    fs::create_directories(m_dir / "taken");
    EXPECT_THROW(writeFileAtomically((m_dir / "taken").string(), std::string("x")), FileError);
    EXPECT_TRUE(fs::is_directory(m_dir / "taken"));
    EXPECT_EQ(entries(), std::vector<std::string>{"taken"});
}

TEST_F(AtomicFile, FailedWriteLeavesOldFileIntactAndNoTemporary)
{
    // A file-size limit makes write() fail half-way, as a full disk would, even for root.
    const std::string path = (m_dir / "keep.bin").string();
    writeFileAtomically(path, std::string("original"));
    rlimit previous{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &previous), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = previous;
    limited.rlim_cur = 1000;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
    EXPECT_THROW(writeFileAtomically(path, std::string(5000, 'x')), FileError);
    setrlimit(RLIMIT_FSIZE, &previous);
    std::signal(SIGXFSZ, previousHandler);
    EXPECT_EQ(readFile(path), "original");
    EXPECT_EQ(entries(), std::vector<std::string>{"keep.bin"});
}

TEST_F(AtomicFile, ReadingMissingFileNamesIt)
{
    try {
        readFile((m_dir / "absent").string());
        FAIL() << "expected FileError";
    } catch (const FileError& e) {
        EXPECT_THAT(e.what(), ::testing::HasSubstr("absent"));
    }
}

} // namespace
} // namespace attnviz::io
