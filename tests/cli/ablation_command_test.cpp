// Switching heads off (#12): `mha --ablate`, `trace --ablate` and `importance`, against PyTorch
// references (tools/make_ablation_references.py) that zero the output projection's weights for
// the head instead of touching the attention, so they do not share the engine's way of doing it.
#include "io/json.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace attnviz::test {
namespace {

using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kData = ATTNVIZ_TEST_DATA_DIR;

// Same values in the same order, whatever the shapes say ([1, T, D] against PyTorch's [T, D]).
::testing::AssertionResult valuesNear(const engine::Tensor& actual, const engine::Tensor& expected)
{
    if (actual.values().size() != expected.values().size())
        return ::testing::AssertionFailure()
            << actual.shapeString() << " vs " << expected.shapeString();
    engine::Tensor reshaped = actual; // same element count: reshape keeps every value
    reshaped.reshape(expected.axes());
    return tensorsNear(reshaped, expected);
}

// Every column of `concat` [B, N, H·dv] that belongs to `head` is exactly zero.
bool headColumnsZero(const engine::Tensor& concat, int heads, int head)
{
    const std::int64_t width = concat.dim(2), dv = width / heads;
    const std::int64_t rows = concat.dim(0) * concat.dim(1);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = head * dv; c < (head + 1) * dv; ++c)
            if (concat.values()[static_cast<std::size_t>(r * width + c)] != 0.0f)
                return false;
    return true;
}

std::string metadata(const io::SafetensorsFile& file, const std::string& key)
{
    const io::JsonValue* value = file.metadata().find(key);
    return value ? value->asString() : std::string();
}

class Ablation : public TempFolderTest {
protected:
    io::SafetensorsFile run(std::vector<std::string> args, const std::string& name)
    {
        args.insert(args.end(), {"--dump", path(name), "--quiet"});
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return io::SafetensorsFile::read(path(name));
    }
};

TEST_F(Ablation, MhaMatchesPyTorchWithTheHeadsOutputWeightsZeroed)
{
    const std::string caseFile = kData + "/mha/batched.case.safetensors";
    const auto off = run({"mha", caseFile, "--ablate", "0,2"}, "off.safetensors");
    const auto on = run({"mha", caseFile}, "on.safetensors");
    const auto reference =
        io::SafetensorsFile::read(kData + "/ablation/mha_batched_ablate_0_2.safetensors");
    EXPECT_TRUE(tensorsNear(tensorFrom(off, "output"), tensorFrom(reference, "output")));
    // The switched-off heads are still computed and kept; only their concat columns are zero.
    EXPECT_TRUE(tensorsNear(tensorFrom(off, "context"), tensorFrom(on, "context"), 0, 0));
    const engine::Tensor concat = tensorFrom(off, "concat");
    EXPECT_TRUE(headColumnsZero(concat, 4, 0));
    EXPECT_FALSE(headColumnsZero(concat, 4, 1));
    EXPECT_TRUE(headColumnsZero(concat, 4, 2));
    EXPECT_FALSE(headColumnsZero(tensorFrom(on, "concat"), 4, 0));
    EXPECT_FALSE(tensorsNear(tensorFrom(off, "output"), tensorFrom(on, "output")));
    EXPECT_EQ(metadata(off, "ablated_heads"), "[0,2]");
}

TEST_F(Ablation, ExportWritesTheFiguresOfThePassWithTheHeadsOff)
{
    // A case: the exported trace is mha --ablate's, checked against PyTorch.
    const std::string caseFile = kData + "/mha/batched.case.safetensors";
    const ProcessResult exported =
        runProcess(kCli,
                   {"export", "--case", caseFile, "--ablate", "0,2", "--steps", "all", "--format",
                    "safetensors", "--out", path("case"), "--quiet"});
    ASSERT_EQ(exported.exitCode, 0) << exported.err;
    const auto trace = io::SafetensorsFile::read(path("case/trace.safetensors"));
    const auto reference =
        io::SafetensorsFile::read(kData + "/ablation/mha_batched_ablate_0_2.safetensors");
    EXPECT_TRUE(tensorsNear(tensorFrom(trace, "output"), tensorFrom(reference, "output")));
    EXPECT_TRUE(headColumnsZero(tensorFrom(trace, "concat"), 4, 2));

    // A model: layer:head pairs as for trace, and the manifest names the heads.
    const ProcessResult model =
        runProcess(kCli,
                   {"export", "--model", "reverse", "--text", "attention", "--ablate", "0.cross:2",
                    "--blocks", "cross", "--layers", "0", "--steps", "concat", "--format", "csv",
                    "--out", path("model"), "--quiet"});
    ASSERT_EQ(model.exitCode, 0) << model.err;
    std::ifstream csv(path("model/layer0_cross_concat.csv"));
    ASSERT_TRUE(csv) << "one concat matrix for the block";
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    // Columns: the row label, then H·dv values; head 2's d_v columns are zero.
    std::vector<std::string> cells;
    std::stringstream cellsOf(row);
    for (std::string cell; std::getline(cellsOf, cell, ',');)
        cells.push_back(cell);
    const std::size_t width = cells.size() - 1, dv = width / 4;
    for (std::size_t c = 2 * dv; c < 3 * dv; ++c)
        EXPECT_EQ(std::stod(cells[1 + c]), 0.0) << c;
    EXPECT_NE(std::stod(cells[1]), 0.0);

    const ProcessResult wrongHead = runProcess(
        kCli,
        {"export", "--case", caseFile, "--ablate", "7", "--format", "csv", "--out", path("none")});
    EXPECT_EQ(wrongHead.exitCode, 2);
    EXPECT_THAT(wrongHead.err, HasSubstr("--ablate names head 7"));
    const ProcessResult imported =
        runProcess(kCli,
                   {"export", "--attentions", kData + "/attentions/cross.safetensors", "--ablate",
                    "0:1", "--format", "csv", "--out", path("none")});
    EXPECT_EQ(imported.exitCode, 2);
    EXPECT_THAT(imported.err, HasSubstr("--ablate applies to --model"));
    EXPECT_FALSE(std::filesystem::exists(path("none")));
}

TEST_F(Ablation, Gpt2TraceMatchesPyTorchAndEveryLaterTensorFollows)
{
    const auto off =
        run({"trace", "--model", kData + "/hf/gpt2", "--text",
             "The quick brown fox jumps over the lazy dog by the river", "--ablate", "1:0,1:3"},
            "gpt2.safetensors");
    const auto reference =
        io::SafetensorsFile::read(kData + "/ablation/gpt2_fox12_ablate_1-0_1-3.safetensors");
    EXPECT_TRUE(valuesNear(tensorFrom(off, "layer1.masked_self.output"),
                           tensorFrom(reference, "layer1.attn_output")));
    EXPECT_TRUE(
        valuesNear(tensorFrom(off, "decoder.final_norm"), tensorFrom(reference, "final_hidden")));
    // The logits at the columns the reference kept.
    const engine::Tensor logits = tensorFrom(off, "decoder.logits");
    const engine::Tensor expected = tensorFrom(reference, "logits");
    const std::int64_t vocab = logits.dim(2), kept = expected.dim(1);
    const std::vector<int> ids{0, 262, 464, 995, 7850, 15496, 50256}; // what the script stored
    ASSERT_EQ(static_cast<std::int64_t>(ids.size()), kept);
    for (std::int64_t t = 0; t < expected.dim(0); ++t)
        for (std::int64_t j = 0; j < kept; ++j)
            EXPECT_NEAR(logits.values()[static_cast<std::size_t>(t * vocab + ids[j])],
                        expected.values()[static_cast<std::size_t>(t * kept + j)], 2e-3)
                << "token " << t << ", vocabulary column " << ids[j];
    EXPECT_TRUE(headColumnsZero(tensorFrom(off, "layer1.masked_self.concat"), 4, 0));
    EXPECT_TRUE(headColumnsZero(tensorFrom(off, "layer1.masked_self.concat"), 4, 3));
    EXPECT_FALSE(headColumnsZero(tensorFrom(off, "layer0.masked_self.concat"), 4, 0));
    EXPECT_EQ(metadata(off, "ablated_heads"),
              R"([{"layer":1,"block":"masked_self","head":0},)"
              R"({"layer":1,"block":"masked_self","head":3}])");
}

TEST_F(Ablation, BertTraceMatchesPyTorch)
{
    const auto off =
        run({"trace", "--model", kData + "/hf/bert", "--text",
             "the cat sat on the mat . [SEP] it was very happy .", "--ablate", "0:1,1:2"},
            "bert.safetensors");
    const auto reference =
        io::SafetensorsFile::read(kData + "/ablation/bert_pair15_ablate_0-1_1-2.safetensors");
    EXPECT_TRUE(
        valuesNear(tensorFrom(off, "layer1.enc_ffn.norm"), tensorFrom(reference, "final_hidden")));
}

TEST_F(Ablation, CrossAttentionHeadOffKeepsItsContextAndZeroesItsColumns)
{
    const std::vector<std::string> args{"trace",     "--model",  "reverse",  "--text",
                                        "attention", "--target", "noitnetta"};
    const auto on = run(args, "on.safetensors");
    std::vector<std::string> ablated = args;
    ablated.insert(ablated.end(), {"--ablate", "0.cross:2"});
    const auto off = run(ablated, "off.safetensors");
    EXPECT_TRUE(tensorsNear(tensorFrom(off, "layer0.cross.context"),
                            tensorFrom(on, "layer0.cross.context"), 0, 0));
    EXPECT_TRUE(headColumnsZero(tensorFrom(off, "layer0.cross.concat"), 4, 2));
    // Everything after follows: the next layer reads a different stream.
    EXPECT_FALSE(tensorsNear(tensorFrom(off, "layer1.masked_self.q_proj"),
                             tensorFrom(on, "layer1.masked_self.q_proj")));
    // The encoder does not depend on the decoder's heads.
    EXPECT_TRUE(tensorsNear(tensorFrom(off, "encoder.final_norm"),
                            tensorFrom(on, "encoder.final_norm"), 0, 0));
}

// The number printed after "every head on:" and in the row of one head.
struct ImportanceNumbers {
    double baseline = -1;
    double head = -1;
};

ImportanceNumbers importanceOf(const std::string& model, const std::string& layer,
                               const std::string& block, const std::string& head)
{
    const ProcessResult r =
        runProcess(kCli, {"importance", "--model", model, "--examples", "40", "--quiet"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    ImportanceNumbers n;
    std::smatch m;
    if (std::regex_search(r.out, m, std::regex(R"(every head on: ([0-9.]+))")))
        n.baseline = std::stod(m[1]);
    const std::regex row("\\n +[0-9]+ +" + layer + " +" + block + " +" + head + " +([0-9.]+) ");
    if (std::regex_search(r.out, m, row))
        n.head = std::stod(m[1]);
    EXPECT_GE(n.baseline, 0) << r.out;
    EXPECT_GE(n.head, 0) << r.out;
    return n;
}

double referenceNumber(const std::string& key)
{
    const auto file = io::SafetensorsFile::read(kData + "/ablation/importance.safetensors");
    return std::stod(file.metadata().find(key)->asString());
}

TEST(Importance, GenesisLossMatchesPyTorch)
{
    const ImportanceNumbers n = importanceOf("genesis", "0", "masked_self", "1");
    EXPECT_NEAR(n.baseline, referenceNumber("genesis.baseline"), 1e-4);
    EXPECT_NEAR(n.head, referenceNumber("genesis.ablated"), 1e-4);
}

TEST(Importance, ReverseExactMatchMatchesPyTorchAndRanksTheAlignmentHeadFirst)
{
    const ImportanceNumbers n = importanceOf("reverse", "0", "cross", "2");
    EXPECT_DOUBLE_EQ(n.baseline, referenceNumber("reverse.baseline"));
    EXPECT_NEAR(n.head, referenceNumber("reverse.ablated"), 1e-9);
    const ProcessResult r =
        runProcess(kCli, {"importance", "--model", "reverse", "--examples", "40", "--top", "1"});
    EXPECT_THAT(r.out, HasSubstr("   1      0  cross           2"));
    EXPECT_THAT(r.out, HasSubstr("harm by layer × head, cross:"));
}

TEST(Importance, AModelWithoutHeldOutDataNeedsAText)
{
    const ProcessResult refused = runProcess(kCli, {"importance", "--model", kData + "/hf/bert"});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_THAT(refused.err, HasSubstr("has no heldout.txt"));
    const ProcessResult r = runProcess(
        kCli, {"importance", "--model", kData + "/hf/bert", "--text", "hello world", "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("relative change of the encoder output on the text given"));
    EXPECT_THAT(r.out, HasSubstr("harm by layer × head, self:"));
}

} // namespace
} // namespace attnviz::test
