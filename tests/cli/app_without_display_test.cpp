// The desktop app's command line without a display (#13): --help and --version answer, and a
// start without one says why in one sentence instead of Qt's abort.
#include "support/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

// Unsets the variables that give Qt a display for the life of one test.
class WithoutDisplay : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (const char* name : kNames) {
            const char* value = std::getenv(name);
            m_saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
            ::unsetenv(name);
        }
    }
    void TearDown() override
    {
        for (const auto& [name, value] : m_saved)
            if (value)
                ::setenv(name, value->c_str(), 1);
    }

private:
    static constexpr const char* kNames[] = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};
    std::vector<std::pair<const char*, std::optional<std::string>>> m_saved;
};

TEST_F(WithoutDisplay, HelpAndVersionAnswer)
{
    const ProcessResult version = runProcess(ATTNVIZ_APP_PATH, {"--version"});
    EXPECT_EQ(version.exitCode, 0) << version.err;
    EXPECT_THAT(version.out, HasSubstr("AttnViz 0."));
    const ProcessResult help = runProcess(ATTNVIZ_APP_PATH, {"--help"});
    EXPECT_EQ(help.exitCode, 0) << help.err;
    EXPECT_THAT(help.out, HasSubstr("--model <folder>"));
    EXPECT_THAT(help.out, HasSubstr("--screenshots <dir>"));
}

TEST_F(WithoutDisplay, AStartSaysWhyInOneSentence)
{
    const ProcessResult start = runProcess(ATTNVIZ_APP_PATH, {"--model", "reverse"});
    EXPECT_EQ(start.exitCode, 2);
    EXPECT_THAT(start.err, HasSubstr("attnviz: no display to open a window on"));
    EXPECT_EQ(std::count(start.err.begin(), start.err.end(), '\n'), 1) << start.err;
    const ProcessResult typo = runProcess(ATTNVIZ_APP_PATH, {"--modle", "reverse"});
    EXPECT_NE(typo.exitCode, 0);
    EXPECT_THAT(typo.err, HasSubstr("Unknown option 'modle'"));
}

} // namespace
} // namespace attnviz::test
