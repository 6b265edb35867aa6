// Every input the fuzzers ever found a problem with (tests/fuzz/regressions/<target>/) goes
// through the same target function as in the libFuzzer binaries (tests/fuzz/*_fuzz.cpp, compiled
// here without ATTNVIZ_LIBFUZZER), in the normal build: each must be accepted or refused with a
// documented exception, and a fixed bug stays fixed under GCC as well as under clang.
#include "fuzz/fuzz_targets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnviz::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kRegressions = fs::path(ATTNVIZ_TEST_DATA_DIR) / ".." / "fuzz" / "regressions";

std::string contentOf(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

/// Runs `input` through a target; an escaping exception is a failure naming the file.
void expectHandled(const Target& target, std::string_view input, const std::string& label)
{
    try {
        target.run(input);
    } catch (const Finding& e) {
        ADD_FAILURE() << label << ": broken promise: " << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": undocumented exception: " << e.what();
    } catch (...) {
        ADD_FAILURE() << label << ": undocumented exception that is no std::exception";
    }
}

TEST(FuzzRegressions, EveryReproducerIsHandled)
{
    std::vector<fs::path> files;
    if (fs::is_directory(kRegressions))
        for (const fs::directory_entry& e : fs::recursive_directory_iterator(kRegressions))
            if (e.is_regular_file())
                files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
        const std::string targetName = fs::relative(file, kRegressions).begin()->string();
        const auto target = std::find_if(kTargets.begin(), kTargets.end(),
                                         [&](const Target& t) { return t.name == targetName; });
        if (target == kTargets.end()) {
            ADD_FAILURE() << file << " lies under no fuzz target's folder";
            continue;
        }
        expectHandled(*target, contentOf(file), fs::relative(file, kRegressions).string());
    }
}

// The targets themselves work in this build: trivial inputs are accepted or refused quietly.
TEST(FuzzRegressions, TargetsTakeTrivialInputs)
{
    for (const Target& target : kTargets)
        for (const std::string_view input : {std::string_view(), std::string_view("\0", 1),
                                             std::string_view("{}"), std::string_view("\x04 hi")})
            expectHandled(target, input, std::string(target.name) + " on a trivial input");
}

} // namespace
} // namespace attnviz::fuzz
