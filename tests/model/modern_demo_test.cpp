// The bundled `modern` demo (tools/modern_demo.py): a Hugging Face Qwen2 folder with rotary
// positions, grouped K/V heads, RMSNorm, SwiGLU and sliding-window layers between full ones,
// trained on the King James Bible with its own SentencePiece-style tokenizer. The C++ tokenizer
// gives the ids the training script's encoder gave, and every activation of the engine's
// forward pass matches the script's float64 PyTorch pass (tools/make_modern_model_references.py's
// definitions) within 1e-4.
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include "io/json.h"

#include <gtest/gtest.h>

#include <set>

namespace attnviz::test {
namespace {

std::vector<int> idsIn(const io::SafetensorsFile& reference, const std::string& key)
{
    std::vector<int> ids;
    const io::JsonValue list = io::parseJson(reference.metadata().find(key)->asString());
    for (const io::JsonValue& v : list.asArray())
        ids.push_back(static_cast<int>(v.asInteger()));
    return ids;
}

TEST(ModernDemo, IsTheModelItsReadmeDescribes)
{
    const auto loaded = openModel("modern");
    const engine::ModelConfig& c = loaded->model->config();
    EXPECT_EQ(c.architecture, engine::Architecture::DecoderOnly);
    EXPECT_EQ(c.decoderLayers, 4);
    EXPECT_EQ(c.numHeads, 6);
    EXPECT_EQ(c.keyValueHeads(), 2);
    EXPECT_EQ(c.headSize(), 16);
    EXPECT_EQ(c.normKind, engine::NormKind::RmsNorm);
    EXPECT_EQ(c.feedForwardKind, engine::FeedForwardKind::Gated);
    EXPECT_EQ(c.positional, engine::PositionalKind::Rotary);
    // Local layers 0 and 2, global layers 1 and 3.
    for (int L = 0; L < 4; ++L) {
        const engine::AttentionDescription d =
            engine::attentionDescription(c, L, engine::Block::MaskedSelf);
        EXPECT_EQ(d.mask.slidingWindow, L % 2 == 0 ? std::optional<std::int64_t>(16) : std::nullopt)
            << "layer " << L;
        EXPECT_TRUE(d.rotary);
    }
    EXPECT_EQ(loaded->tokenizer->size(), 1024);
    EXPECT_EQ(loaded->tokenizer->encode("In").front(), 1); // <s> first
}

TEST(ModernDemo, TokensAndEveryActivationMatchPyTorch)
{
    const auto loaded = openModel("modern");
    const auto reference = io::SafetensorsFile::read(referenceFile("modern"));
    const int cases = std::stoi(reference.metadata().find("cases")->asString());
    ASSERT_GE(cases, 2);
    for (int c = 0; c < cases; ++c) {
        const std::string prefix = "case" + std::to_string(c) + ".";
        const std::string text = reference.metadata().find(prefix + "text")->asString();
        const std::vector<int> ids = idsIn(reference, prefix + "ids");
        EXPECT_EQ(loaded->tokenizer->encode(text), ids) << text;
        const engine::ModelTrace trace = loaded->model->forward({}, ids);
        std::set<std::string> expected, traced;
        for (const io::TensorEntry& t : reference.tensors())
            if (t.name.starts_with(prefix))
                expected.insert(t.name.substr(prefix.size()));
        trace.forEachTensor([&](const std::string& name, const engine::Tensor& tensor) {
            traced.insert(name);
            if (reference.find(prefix + name)) {
                EXPECT_TRUE(tensorsNear(tensor, tensorFrom(reference, prefix + name), 1e-4, 1e-4))
                    << "case " << c << " " << name;
            }
        });
        EXPECT_EQ(traced, expected) << "case " << c;
    }
}

} // namespace
} // namespace attnviz::test
