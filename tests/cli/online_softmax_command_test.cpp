// attnviz-cli mha CASE --online-softmax TILE --dump OUT (#25), on every reference case:
//  * online_max and online_sum equal tools/make_online_softmax_references.py's (PyTorch, float64,
//    from the definition and checked against FlashAttention's recurrence) for tiles 1, 3 and 8,
//    and have the shape [B, H, Nq, ⌈Nk / TILE⌉] for tiles the references do not hold;
//  * weights, context and output equal the plain pass's dump within 1e-6 relative, and PyTorch's;
//  * an impossible TILE exits 2 with one sentence and writes nothing.
#include "engine/attention_trace.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kData = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";

using OnlineSoftmaxCommand = TempFolderTest;

std::vector<std::string> referenceCases()
{
    std::ifstream listing(kData + "cases.txt");
    std::vector<std::string> names;
    for (std::string line; std::getline(listing, line);)
        if (!line.empty())
            names.push_back(line.substr(0, line.find('\t')));
    return names;
}

TEST_F(OnlineSoftmaxCommand, EveryReferenceCaseMatchesPyTorchAndThePlainPass)
{
    int checked = 0;
    for (const std::string& name : referenceCases()) {
        const std::string casePath = kData + name + ".case.safetensors";
        const std::string plainOut = path(name + ".plain.safetensors");
        ASSERT_EQ(runProcess(kCli, {"mha", casePath, "--dump", plainOut, "--quiet"}).exitCode, 0);
        const io::SafetensorsFile plain = io::SafetensorsFile::read(plainOut);
        const io::SafetensorsFile reference =
            io::SafetensorsFile::read(kData + "online/" + name + ".safetensors");
        const io::SafetensorsFile pytorch =
            io::SafetensorsFile::read(kData + name + ".expected.safetensors");
        ASSERT_EQ(plain.find("online_max"), nullptr) << "the plain pass has no tiles";
        const std::int64_t keys = tensorFrom(plain, "masked").dim(3);
        for (const std::int64_t tile : {std::int64_t{1}, std::int64_t{3}, std::int64_t{8},
                                        std::int64_t{5}, keys, keys + 100}) {
            SCOPED_TRACE(name + " --online-softmax " + std::to_string(tile));
            const std::string out = path(name + ".tile" + std::to_string(tile) + ".safetensors");
            const ProcessResult r = runProcess(kCli,
                                               {"mha", casePath, "--online-softmax",
                                                std::to_string(tile), "--dump", out, "--quiet"});
            ASSERT_EQ(r.exitCode, 0) << r.err;
            const io::SafetensorsFile dump = io::SafetensorsFile::read(out);
            const engine::Tensor m = tensorFrom(dump, "online_max");
            const engine::Tensor l = tensorFrom(dump, "online_sum");
            const engine::Tensor masked = tensorFrom(dump, "masked");
            const std::vector<std::int64_t> shape{masked.dim(0), masked.dim(1), masked.dim(2),
                                                  (keys + tile - 1) / tile};
            EXPECT_EQ(m.shape(), shape);
            EXPECT_EQ(l.shape(), shape);
            if (reference.find("online_max." + std::to_string(tile))) {
                EXPECT_TRUE(
                    tensorsNear(m, tensorFrom(reference, "online_max." + std::to_string(tile))));
                EXPECT_TRUE(
                    tensorsNear(l, tensorFrom(reference, "online_sum." + std::to_string(tile))));
            }
            // The last tile has seen every key: m is the row's maximum, or its head's sink
            // (gpt-oss) when that is larger.
            const io::SafetensorsFile caseFile = io::SafetensorsFile::read(casePath);
            const std::optional<engine::Tensor> sinks = caseFile.find("sinks")
                ? std::optional(tensorFrom(caseFile, "sinks"))
                : std::nullopt;
            for (std::int64_t row = 0; row < masked.dim(0) * masked.dim(1) * masked.dim(2); ++row) {
                const auto s = masked.values().subspan(static_cast<std::size_t>(row * keys),
                                                       static_cast<std::size_t>(keys));
                float largest = *std::max_element(s.begin(), s.end());
                if (sinks)
                    largest = std::max(largest,
                                       sinks->values()[static_cast<std::size_t>(
                                           row / masked.dim(2) % masked.dim(1))]);
                EXPECT_EQ(m.values()[static_cast<std::size_t>((row + 1) * shape[3] - 1)], largest);
            }
            for (const char* step : {"weights", "context", "output"}) {
                EXPECT_TRUE(withinOnePpmOfScale(tensorFrom(dump, step), tensorFrom(plain, step)))
                    << step;
                EXPECT_TRUE(tensorsNear(tensorFrom(dump, step), tensorFrom(pytorch, step))) << step;
            }
            const std::string header = io::readFile(out).substr(0, 4096);
            EXPECT_THAT(header, HasSubstr("\\\"online_softmax_tile\\\":" + std::to_string(tile)));
            ++checked;
        }
    }
    EXPECT_GE(checked, 39 * 6);
}

TEST_F(OnlineSoftmaxCommand, SummaryNamesTheTiles)
{
    const ProcessResult r =
        runProcess(kCli, {"mha", kData + "causal.case.safetensors", "--online-softmax", "4"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("online softmax in 2 tiles of 4 keys")); // N = 6
    EXPECT_THAT(r.out, HasSubstr("online_max (batch=2, head=4, query=6, tile=2)"));
    EXPECT_THAT(r.out, HasSubstr("online_sum (batch=2, head=4, query=6, tile=2)"));
}

TEST_F(OnlineSoftmaxCommand, ImpossibleTilesAreRefusedInOneSentenceAndWriteNothing)
{
    for (const char* tile : {"0", "-2", "abc", "2.5", "", "1e3", "99999999999", " 3", "0x10"}) {
        SCOPED_TRACE(std::string("--online-softmax '") + tile + "'");
        const std::string out = path("refused.safetensors");
        const ProcessResult r = runProcess(
            kCli,
            {"mha", kData + "causal.case.safetensors", "--online-softmax", tile, "--dump", out});
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_THAT(r.err, HasSubstr("--online-softmax"));
        EXPECT_FALSE(fs::exists(out));
    }
    const ProcessResult missing =
        runProcess(kCli, {"mha", kData + "causal.case.safetensors", "--online-softmax"});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_THAT(missing.err, HasSubstr("--online-softmax needs a value"));
}

} // namespace
} // namespace attnviz::test
