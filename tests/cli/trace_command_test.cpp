// attnviz-cli trace end to end (#4): names follow layer{L}.{block}.{step}, values match the
// engine and PyTorch, tokens are in the metadata, and bad arguments are refused with exit 2, one
// sentence and no file.
#include "io/atomic_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kModels = std::string(ATTNVIZ_TEST_DATA_DIR) + "/models/";

class TraceCommand : public TempFolderTest {
protected:
    std::string out() const { return path("trace.safetensors"); }

    std::string refusal(std::vector<std::string> args) const
    {
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_FALSE(fs::exists(out()));
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        return r.err;
    }
};

TEST_F(TraceCommand, EncoderDecoderDecodesAndNamesEveryTensor)
{
    const ProcessResult r =
        runProcess(kCli, {"trace", "--model", "reverse", "--text", "attention", "--dump", out()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("generated: noitnetta"));
    const auto file = io::SafetensorsFile::read(out());
    // 2 encoder layers × (15 + 5) + 2 decoder layers × (15 + 15 + 5) + 3 + 4 + 3 + 4 + logits
    EXPECT_EQ(file.tensors().size(), 2u * 20 + 2u * 35 + 3 + 1 + 3 + 1 + 1);
    const io::TensorEntry* cross = file.find("layer1.cross.weights");
    ASSERT_NE(cross, nullptr);
    EXPECT_EQ(cross->shape,
              (std::vector<std::int64_t>{1, 4, 10, 9})); // <s> + 9 letters × 9 letters
    EXPECT_EQ(file.metadata().find("axes.layer1.cross.weights")->asString(),
              "batch,head,query,key");
    EXPECT_EQ(file.metadata().find("source_tokens")->asString(),
              R"(["a","t","t","e","n","t","i","o","n"])");
    EXPECT_EQ(file.metadata().find("target_tokens")->asString(),
              R"(["<s>","n","o","i","t","n","e","t","t","a"])");
    for (const char* name :
         {"encoder.input", "encoder.final_norm", "layer0.self.scores", "layer0.enc_ffn.hidden",
          "layer1.masked_self.masked", "layer1.dec_ffn.residual", "decoder.logits"})
        EXPECT_NE(file.find(name), nullptr) << name;
    // Each weights row is a distribution.
    const engine::Tensor w = tensorFrom(file, "layer1.cross.weights");
    for (std::int64_t q = 0; q < 10; ++q) {
        float sum = 0;
        for (std::int64_t k = 0; k < 9; ++k)
            sum += w.at({0, 3, q, k});
        EXPECT_NEAR(sum, 1.0f, 1e-5f);
    }
}

TEST_F(TraceCommand, TeacherForcedTraceMatchesPyTorch)
{
    // tests/data/models/postnorm_tanh: reference case 0 is source "abcde", decoder input "edcba".
    // The CLI puts the start token first, so compare the encoder, which reads the same tokens.
    const ProcessResult r = runProcess(kCli,
                                       {"trace", "--model", kModels + "postnorm_tanh", "--text",
                                        "abcde", "--target", "dcba", "--dump", out(), "--quiet"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
    const auto file = io::SafetensorsFile::read(out());
    const auto reference =
        io::SafetensorsFile::read(kModels + "postnorm_tanh/reference.safetensors");
    int compared = 0;
    for (const io::TensorEntry& t : reference.tensors()) {
        if (!t.name.starts_with("case0.encoder.") && !t.name.starts_with("case0.layer0.self.") &&
            !t.name.starts_with("case0.layer1.enc_ffn."))
            continue;
        const std::string name = t.name.substr(6);
        EXPECT_TRUE(tensorsNear(tensorFrom(file, name), tensorFrom(reference, t.name), 1e-4, 1e-4))
            << name;
        ++compared;
    }
    EXPECT_GE(compared, 20);
    EXPECT_EQ(file.find("layer0.cross.weights")->shape, (std::vector<std::int64_t>{1, 3, 5, 5}));
}

TEST_F(TraceCommand, DecoderOnlyModelReadsTheText)
{
    const ProcessResult r = runProcess(kCli,
                                       {"trace", "--model", kModels + "decoder_postnorm", "--text",
                                        "abc", "--generate", "2", "--dump", out()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto file = io::SafetensorsFile::read(out());
    EXPECT_EQ(file.find("layer1.masked_self.weights")->shape,
              (std::vector<std::int64_t>{1, 5, 5, 5}));
    EXPECT_EQ(file.find("encoder.input"), nullptr);
    EXPECT_EQ(file.find("layer0.self.weights"), nullptr);
}

TEST_F(TraceCommand, BadArgumentsAreRefused)
{
    EXPECT_THAT(refusal({"trace", "--text", "abc", "--dump", out()}),
                HasSubstr("trace needs --model"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--dump", out()}),
                HasSubstr("trace needs --text"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--text", "abc"}),
                HasSubstr("trace needs --dump"));
    EXPECT_THAT(
        refusal({"trace", "--model", "reverse", "--text", "abc", "--dump", out(), "--bogus"}),
        HasSubstr("unknown option '--bogus'"));
    EXPECT_THAT(refusal({"trace", "--model", "no-such-model", "--text", "abc", "--dump", out()}),
                HasSubstr("'no-such-model' is not a folder"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--text", "ABC", "--dump", out()}),
                HasSubstr("The character \"A\" is not in the model's vocabulary"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--text", "abcdefghijklmnopqrstuvwxyz",
                         "--dump", out()}),
                HasSubstr("this model takes at most 14 (max_length)"));
    EXPECT_THAT(refusal({"trace", "--model", kModels + "decoder_postnorm", "--text", "abc",
                         "--target", "x", "--dump", out()}),
                HasSubstr("A decoder-only model reads only the text"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--text", "abc", "--generate", "3",
                         "--dump", out()}),
                HasSubstr("--generate continues a decoder-only model's text"));
    EXPECT_THAT(refusal({"trace", "--model", "reverse", "--text", "abc", "--generate", "0",
                         "--dump", out()}),
                HasSubstr("--generate is '0'; expected an integer from 1 to"));
}

TEST_F(TraceCommand, UnwritableOutputExitsOneAndLeavesNothing)
{
    const std::string target = (m_dir / "missing-dir" / "t.safetensors").string();
    const ProcessResult r =
        runProcess(kCli, {"trace", "--model", "reverse", "--text", "abc", "--dump", target});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_FALSE(fs::exists(target));
}

} // namespace
} // namespace attnviz::test
