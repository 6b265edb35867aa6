// attnviz-cli rollout (#26): the N × N .npy equals tools/make_rollout_references.py's float64
// rollout of PyTorch's weights for the same text (a decoder's masked self-attention, and an
// encoder-decoder's encoder); every bad argument exits 2 with one sentence and writes nothing; an
// output that cannot be written exits 1.
#include "io/atomic_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;
using RolloutCommand = TempFolderTest;

const std::string kCli = ATTNVIZ_CLI_PATH;

// A float32, C-order, two-dimensional .npy (format 1.0): its shape and values.
struct Npy {
    std::int64_t rows = 0, cols = 0;
    std::vector<float> values;
};

Npy readNpy(const std::string& path)
{
    const std::string bytes = io::readFile(path);
    EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
    const std::size_t headerLength =
        static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    const std::string header = bytes.substr(10, headerLength);
    EXPECT_THAT(header, HasSubstr("'descr': '<f4'"));
    EXPECT_THAT(header, HasSubstr("'fortran_order': False"));
    Npy out;
    const auto shape = header.find("'shape': (");
    std::sscanf(header.c_str() + shape + 10, "%ld, %ld", &out.rows, &out.cols);
    out.values.resize(static_cast<std::size_t>(out.rows * out.cols));
    std::memcpy(out.values.data(), bytes.data() + 10 + headerLength, out.values.size() * 4);
    return out;
}

std::string textOf(const io::SafetensorsFile& reference, const std::string& key)
{
    std::string text;
    const io::JsonValue tokens = io::parseJson(reference.metadata().find(key)->asString());
    for (const io::JsonValue& t : tokens.asArray())
        text += t.asString();
    return text;
}

TEST_F(RolloutCommand, EqualsTheFloat64RolloutOfPyTorchsWeights)
{
    // genesis reads its text with its decoder; reverse reads it with its encoder.
    for (const auto& [model, key] : {std::pair<std::string, std::string>{"genesis", "case0.target"},
                                     {"reverse", "case0.source"}}) {
        const auto weights = io::SafetensorsFile::read(
            std::string(ATTNVIZ_TEST_DATA_DIR) + "/models/" + model + "/reference.safetensors");
        const auto reference = io::SafetensorsFile::read(std::string(ATTNVIZ_TEST_DATA_DIR) +
                                                         "/rollout/" + model + ".safetensors");
        for (const auto& [fusion, ratio] :
             {std::pair<std::string, std::string>{"mean", "0"}, {"max", "0.3"}, {"min", "1"}}) {
            SCOPED_TRACE(model + " " + fusion + " " + ratio);
            const std::string out = path(model + fusion + ".npy");
            const ProcessResult r =
                runProcess(kCli,
                           {"rollout", "--model", model, "--text", textOf(weights, key),
                            "--head-fusion", fusion, "--discard-ratio", ratio, "--out", out});
            ASSERT_EQ(r.exitCode, 0) << r.err;
            EXPECT_THAT(r.out, HasSubstr("rollout of " + model));
            const Npy npy = readNpy(out);
            const engine::Tensor expected = tensorFrom(reference, "case0." + fusion + "." + ratio);
            ASSERT_EQ(npy.rows, expected.dim(0));
            ASSERT_EQ(npy.cols, expected.dim(1));
            for (std::size_t k = 0; k < npy.values.size(); ++k)
                EXPECT_NEAR(npy.values[k], expected.values()[k], 1e-4) << "cell " << k;
        }
    }
}

TEST_F(RolloutCommand, BadArgumentsExitTwoWithOneSentenceAndWriteNothing)
{
    const std::string out = path("r.npy");
    io::writeFileAtomically(out, std::string("earlier"));
    const std::vector<std::vector<std::string>> cases = {
        {"--discard-ratio", "1.5"}, {"--discard-ratio", "-0.1"}, {"--discard-ratio", "nan"},
        {"--discard-ratio", "abc"}, {"--discard-ratio", ""},     {"--head-fusion", "median"},
        {"--head-fusion", "MEAN"},  {"--image", path("x.png")},  {"stray"},
        {"--threads", "0"},
    };
    for (const auto& extra : cases) {
        std::vector<std::string> args = {"rollout", "--model", "genesis", "--text",
                                         "and god", "--out",   out};
        args.insert(args.end(), extra.begin(), extra.end());
        const ProcessResult r = runProcess(kCli, args);
        SCOPED_TRACE(extra.front() + " " + (extra.size() > 1 ? extra[1] : ""));
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(io::readFile(out), "earlier");
    }
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"rollout", "--model", "genesis", "--out", out},
             {"rollout", "--model", "genesis", "--text", "and"},
             {"rollout", "--model", "no-such-model", "--text", "and", "--out", out},
             {"rollout", "--model", "genesis", "--image", path("x.png"), "--out", out},
             {"rollout", "--model", "genesis", "--text", "", "--out", out}}) {
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(io::readFile(out), "earlier");
    }
    EXPECT_EQ(entries(dir()), std::vector<std::string>{"r.npy"});
}

TEST_F(RolloutCommand, AnOutputThatCannotBeWrittenExitsOne)
{
    const ProcessResult r =
        runProcess(kCli, {"rollout", "--model", "genesis", "--text", "and god", "--out", dir()});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("directory"));
    const ProcessResult missing = runProcess(
        kCli, {"rollout", "--model", "genesis", "--text", "and", "--out", path("no/such/r.npy")});
    EXPECT_EQ(missing.exitCode, 1) << missing.err;
    EXPECT_TRUE(entries(dir()).empty());
}

} // namespace
} // namespace attnviz::test
