// attnviz-cli mha end to end (#2): the dump matches PyTorch, and every kind of bad input exits
// with code 2, one sentence on stderr naming the problem, and no output file.
#include "engine/attention_trace.h"
#include "io/atomic_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kData = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";

class Cli : public TempFolderTest {
protected:
    std::string write(const std::string& name, const std::string& bytes) const
    {
        io::writeFileAtomically(path(name), bytes);
        return path(name);
    }

    /// Runs `mha CASE --dump OUT` on bad input and checks the refusal; returns stderr.
    std::string refusal(const std::string& casePath) const
    {
        const std::string out = path("out.safetensors");
        const ProcessResult r = runProcess(kCli, {"mha", casePath, "--dump", out});
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_FALSE(fs::exists(out)) << "an output file was left behind";
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
        for (const auto& entry : fs::directory_iterator(m_dir))
            EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos)
                << "a temporary file was left behind: " << entry.path();
        return r.err;
    }
};

std::string validCaseBytes()
{
    return io::readFile(kData + "self_attention.case.safetensors");
}

/// The valid case's header as text, and its data, so a test can edit the header.
std::pair<std::string, std::string> splitCase(const std::string& bytes)
{
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    return {bytes.substr(8, n), bytes.substr(8 + n)};
}

std::string joinCase(const std::string& header, const std::string& data)
{
    std::string out(8, '\0');
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + data;
}

std::string replaced(std::string s, const std::string& from, const std::string& to)
{
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
        s.replace(at, from.size(), to);
    return s;
}

TEST_F(Cli, DumpOfEveryReferenceCaseMatchesPyTorch)
{
    std::ifstream listing(kData + "cases.txt");
    int cases = 0;
    for (std::string line; std::getline(listing, line);) {
        const std::string name = line.substr(0, line.find('\t'));
        const std::string out = path(name + ".trace.safetensors");
        const ProcessResult r =
            runProcess(kCli, {"mha", kData + name + ".case.safetensors", "--dump", out, "--quiet"});
        ASSERT_EQ(r.exitCode, 0) << name << ": " << r.err;
        EXPECT_EQ(r.out, "");
        const io::SafetensorsFile dump = io::SafetensorsFile::read(out);
        const io::SafetensorsFile expected =
            io::SafetensorsFile::read(kData + name + ".expected.safetensors");
        // The dump holds exactly the steps the case's module computes: q_rotated and k_rotated
        // only with rope_theta.
        for (const auto step : engine::kAttentionSteps) {
            const std::string stepName(engine::stepName(step));
            ASSERT_EQ(dump.find(stepName) != nullptr, expected.find(stepName) != nullptr)
                << name << ", step " << stepName;
            if (!expected.find(stepName))
                continue;
            EXPECT_EQ(dump.find(stepName)->dtype, io::DType::F32);
            EXPECT_TRUE(tensorsNear(tensorFrom(dump, stepName), tensorFrom(expected, stepName)))
                << name << ", step " << stepName;
        }
        ++cases;
    }
    EXPECT_GE(cases, 29);
}

TEST_F(Cli, MaskedStepKeepsMinusInfinity)
{
    const std::string out = path("causal.safetensors");
    ASSERT_EQ(runProcess(kCli, {"mha", kData + "causal.case.safetensors", "--dump", out}).exitCode,
              0);
    const engine::Tensor masked = tensorFrom(io::SafetensorsFile::read(out), "masked");
    EXPECT_EQ(masked.at({0, 0, 0, 1}), -INFINITY);
    EXPECT_TRUE(std::isfinite(masked.at({0, 0, 1, 0})));
}

TEST_F(Cli, SummaryNamesStepsAndShapes)
{
    const ProcessResult r = runProcess(kCli, {"mha", kData + "d2l_example.case.safetensors"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_THAT(r.out, HasSubstr("weights  (batch=2, head=5, query=4, key=6)"));
    EXPECT_THAT(r.out, HasSubstr("output   (batch=2, query=4, feature=100)"));
}

TEST_F(Cli, MissingTensor)
{
    auto [header, data] = splitCase(validCaseBytes());
    header = replaced(header, "\"w_o\"", "\"w_x\"");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("tensor 'w_o' is missing"));
}

TEST_F(Cli, WrongNumberOfDimensions)
{
    auto [header, data] = splitCase(validCaseBytes());
    // query is [1, 5, 16]: the same bytes as [5, 16]
    header = replaced(header, "\"shape\":[1,5,16]", "\"shape\":[5,16]");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("tensor 'query' has 2 dimensions"));
}

TEST_F(Cli, ProjectionRowsNotDivisibleByHeads)
{
    auto [header, data] = splitCase(validCaseBytes());
    header = replaced(header, "\"num_heads\":\"4\"", "\"num_heads\":\"3\"");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("w_q has 16 rows, which 3 heads cannot share equally"));
}

TEST_F(Cli, MetadataNotAnInteger)
{
    auto [header, data] = splitCase(validCaseBytes());
    header = replaced(header, "\"num_heads\":\"4\"", "\"num_heads\":\"4.0\"");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("metadata field 'num_heads' is \"4.0\"; expected an integer"));
}

TEST_F(Cli, NaNInInput)
{
    std::string bytes = validCaseBytes();
    const auto [header, data] = splitCase(bytes);
    const std::int64_t begin =
        io::parseJson(header).find("value")->find("data_offsets")->asArray()[0].asInteger();
    const float nan = NAN;
    // value[0, 0, 2] is the third float of the tensor
    std::memcpy(bytes.data() + 8 + header.size() + begin + 2 * 4, &nan, 4);
    EXPECT_THAT(refusal(write("case.safetensors", bytes)),
                HasSubstr("tensor 'value' holds NaN at index [0, 0, 2]"));
}

TEST_F(Cli, TruncatedFile)
{
    const std::string bytes = validCaseBytes();
    EXPECT_THAT(refusal(write("case.safetensors", bytes.substr(0, bytes.size() - 100))),
                HasSubstr("outside the data"));
    EXPECT_THAT(refusal(write("short.safetensors", bytes.substr(0, 5))), HasSubstr("truncated"));
}

TEST_F(Cli, HeaderLengthBeyondFile)
{
    std::string bytes = validCaseBytes();
    const std::uint64_t huge = bytes.size();
    std::memcpy(bytes.data(), &huge, 8);
    EXPECT_THAT(refusal(write("case.safetensors", bytes)),
                HasSubstr("goes beyond the end of the file"));
}

TEST_F(Cli, OverlappingOffsets)
{
    auto [header, data] = splitCase(validCaseBytes());
    // Point w_o at bytes that already belong to another tensor (the first 1024 bytes).
    const auto at = header.find("\"w_o\"");
    const auto offsets = header.find("\"data_offsets\":[", at);
    const auto close = header.find(']', offsets);
    header.replace(offsets, close - offsets + 1, "\"data_offsets\":[0,1024]");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))), HasSubstr("overlap"));
}

TEST_F(Cli, HeaderNotAJsonObject)
{
    EXPECT_THAT(refusal(write("case.safetensors", joinCase("[\"query\"]", ""))),
                HasSubstr("not a JSON object"));
}

TEST_F(Cli, UnsupportedDType)
{
    auto [header, data] = splitCase(validCaseBytes());
    header = replaced(header, "\"b_q\":{\"dtype\":\"F32\"", "\"b_q\":{\"dtype\":\"I32\"");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("tensor 'b_q' has dtype I32; expected F32"));
}

TEST_F(Cli, ZeroSizedDimension)
{
    auto [header, data] = splitCase(validCaseBytes());
    header = replaced(header, "\"b_o\":{\"dtype\":\"F32\",\"shape\":[16],\"data_offsets\":[",
                      "\"b_o\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[");
    // shape [0] needs an empty byte range
    const auto at = header.find("\"b_o\"");
    const auto offsets = header.find("\"data_offsets\":[", at);
    const auto close = header.find(']', offsets);
    header.replace(offsets, close - offsets + 1, "\"data_offsets\":[0,0]");
    EXPECT_THAT(refusal(write("case.safetensors", joinCase(header, data))),
                HasSubstr("tensor 'b_o' has a zero-sized dimension"));
}

TEST_F(Cli, MissingCaseFile)
{
    EXPECT_THAT(refusal(path("absent.safetensors")), HasSubstr("cannot read"));
}

TEST_F(Cli, UsageErrors)
{
    EXPECT_EQ(runProcess(kCli, {}).exitCode, 2);
    EXPECT_EQ(runProcess(kCli, {"frobnicate"}).exitCode, 2);
    const ProcessResult noDumpValue = runProcess(kCli, {"mha", "x.safetensors", "--dump"});
    EXPECT_EQ(noDumpValue.exitCode, 2);
    EXPECT_THAT(noDumpValue.err, HasSubstr("--dump needs a value"));
    EXPECT_EQ(runProcess(kCli, {"mha"}).exitCode, 2);
    EXPECT_EQ(runProcess(kCli, {"mha", "a", "b"}).exitCode, 2);
    EXPECT_EQ(
        runProcess(kCli, {"mha", kData + "causal.case.safetensors", "--threads", "0"}).exitCode, 2);
}

TEST_F(Cli, UnwritableOutputExitsOneAndLeavesNothing)
{
    const std::string out = path("missing-dir/out.safetensors");
    const ProcessResult r =
        runProcess(kCli, {"mha", kData + "causal.case.safetensors", "--dump", out});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_THAT(r.err, HasSubstr("cannot write " + out));
    EXPECT_FALSE(fs::exists(path("missing-dir")));
}

TEST_F(Cli, HelpAndVersion)
{
    const ProcessResult help = runProcess(kCli, {"mha", "--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_THAT(help.out, HasSubstr("Usage: attnviz-cli mha CASE.safetensors"));
    EXPECT_THAT(help.out, HasSubstr("Exit status"));
    const ProcessResult top = runProcess(kCli, {"--help"});
    EXPECT_EQ(top.exitCode, 0);
    EXPECT_THAT(top.out, HasSubstr("mha CASE.safetensors"));
    const ProcessResult version = runProcess(kCli, {"--version"});
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_THAT(version.out, ::testing::MatchesRegex("attnviz-cli [0-9]+\\.[0-9]+\\.[0-9]+\n"));
}

} // namespace
} // namespace attnviz::test
