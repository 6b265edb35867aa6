// Every input is read as a regular file only, bounded, and without blocking (#11).
#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/safetensors.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

std::string readError(const std::string& path, std::uint64_t limit = io::kMaxReadBytes)
{
    try {
        io::readFile(path, limit);
    } catch (const io::FileError& e) {
        return e.what();
    }
    return "(read)";
}

class InputFile : public TempFolderTest { };

TEST_F(InputFile, DirectoryIsRefused)
{
    EXPECT_THAT(readError(dir()), HasSubstr("it is a directory"));
}

TEST_F(InputFile, DeviceIsRefusedWithoutReadingIt)
{
    EXPECT_THAT(readError("/dev/zero"), HasSubstr("not a regular file"));
    EXPECT_THROW(io::SafetensorsFile::read("/dev/zero"), io::FileError);
}

TEST_F(InputFile, FifoIsRefusedWithoutBlocking)
{
    ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
    EXPECT_THAT(readError(path("pipe")), HasSubstr("not a regular file"));
}

TEST_F(InputFile, FileAboveTheLimitIsRefused)
{
    io::writeFileAtomically(path("big"), std::string(100, 'x'));
    EXPECT_THAT(readError(path("big"), 10),
                HasSubstr("it has 100 bytes, more than the 10 this file may have"));
    EXPECT_EQ(io::readFile(path("big"), 100), std::string(100, 'x'));
}

TEST_F(InputFile, MissingFileCannotBeMapped)
{
    EXPECT_THROW(io::MappedFile(path("absent")), io::FileError);
    io::writeFileAtomically(path("present"), std::string_view("abc"));
    const io::MappedFile mapped(path("present"));
    EXPECT_EQ(std::string(mapped.bytes().data(), mapped.bytes().size()), "abc");
}

TEST_F(InputFile, ControlCharactersInTheNameAreEscaped)
{
    const std::string message = readError(dir() + "/a\nb\x1b[31m");
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_THAT(message, HasSubstr("a\\nb\\x1b[31m"));
}

} // namespace
} // namespace attnviz::test
