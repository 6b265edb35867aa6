// Today's decoder-only models (Llama, Mistral, Qwen2, Gemma and the options they leave out)
// against PyTorch: tools/make_modern_model_references.py writes each configuration's weights and
// every intermediate of a float64 forward pass (tests/data/modern/README.md). No checkpoint
// layout reads these families yet, so the configuration and the weights are built here by hand.
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include "engine/input_error.h"
#include "engine/transformer_model.h"
#include "io/json.h"
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace attnviz::test {
namespace {

using engine::ModelConfig;
using engine::ModelWeights;
using engine::RowMatrix;

const std::vector<std::string> kCases = {"llama_like", "mistral_like", "qwen2_like", "gemma_like",
                                         "mixed_options"};

io::SafetensorsFile referenceFile(const std::string& name)
{
    return io::SafetensorsFile::read(
        (std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "modern" / (name + ".safetensors"))
            .string());
}

io::JsonValue metadataJson(const io::SafetensorsFile& file, const char* key)
{
    return io::parseJson(file.metadata().find(key)->asString());
}

// The script's configuration keys, read as the next issue's config readers will read Llama's.
ModelConfig configOf(const io::JsonValue& j)
{
    const auto integer = [&](const char* key) {
        return static_cast<int>(j.find(key)->asInteger());
    };
    const auto flag = [&](const char* key) { return j.find(key)->asBool(); };
    const auto text = [&](const char* key) { return j.find(key)->asString(); };
    ModelConfig c;
    c.name = "modern";
    c.architecture = engine::Architecture::DecoderOnly;
    c.vocabSize = integer("vocab_size");
    c.modelWidth = integer("hidden_size");
    c.numHeads = integer("num_heads");
    c.feedForwardWidth = integer("d_ff");
    c.decoderLayers = integer("layers");
    c.maxLength = integer("max_length");
    // Explicit only where the defaults would differ, so that the defaults are exercised too.
    c.numKeyValueHeads = integer("num_kv_heads") == c.numHeads ? 0 : integer("num_kv_heads");
    c.headDim = integer("head_dim") * c.numHeads == c.modelWidth ? 0 : integer("head_dim");
    c.normKind = text("norm") == "rms" ? engine::NormKind::RmsNorm
        : text("norm") == "layernorm"  ? engine::NormKind::LayerNorm
                                       : engine::NormKind::LayerNormWithoutBias;
    c.layerNormEps = static_cast<float>(j.find("norm_eps")->asNumber());
    c.norm =
        text("norm_position") == "pre" ? engine::NormPosition::Pre : engine::NormPosition::Post;
    c.finalNorm = flag("final_norm");
    c.embeddingNorm = flag("embedding_norm");
    c.scaleEmbedding = flag("scale_embedding");
    c.positional = engine::PositionalKind::Rotary;
    c.ropeTheta = j.find("rope_theta")->asNumber();
    c.rotatedSize = integer("rotary_dim");
    c.feedForwardKind =
        text("mlp") == "gated" ? engine::FeedForwardKind::Gated : engine::FeedForwardKind::Plain;
    c.activation = text("activation") == "silu" ? engine::Activation::Silu
        : text("activation") == "gelu_tanh"     ? engine::Activation::GeluTanh
                                                : engine::Activation::Gelu;
    c.attentionBias = flag("attention_bias");
    c.outputProjectionBias = flag("o_proj_bias");
    c.mlpBias = flag("mlp_bias");
    if (!j.find("sliding_window")->isNull())
        c.slidingWindow = integer("sliding_window");
    for (const io::JsonValue& windowed : j.find("window_layers")->asArray())
        c.slidingWindowLayers.push_back(windowed.asBool());
    c.tiedOutput = flag("tied");
    return c;
}

engine::RowMatrix matrix(const io::SafetensorsFile& f, const std::string& name)
{
    const engine::Tensor t = tensorFrom(f, name);
    return engine::ConstMatrixView(t.data(), t.dim(0), t.dim(1));
}

Eigen::RowVectorXf vector(const io::SafetensorsFile& f, const std::string& name)
{
    const engine::Tensor t = tensorFrom(f, name);
    return Eigen::Map<const Eigen::RowVectorXf>(t.data(), t.dim(0));
}

std::optional<Eigen::RowVectorXf> optionalVector(const io::SafetensorsFile& f,
                                                 const std::string& name)
{
    if (!f.find(name))
        return std::nullopt;
    return vector(f, name);
}

engine::LayerNormWeights norm(const io::SafetensorsFile& f, const std::string& base)
{
    engine::LayerNormWeights n;
    n.gain = vector(f, base + ".weight");
    if (f.find(base + ".bias"))
        n.bias = vector(f, base + ".bias");
    return n;
}

// A projection `base` (`.weight`, and `.bias` when the file has one).
void projection(const io::SafetensorsFile& f, const std::string& base, engine::RowMatrix& w,
                std::optional<Eigen::RowVectorXf>& b)
{
    w = matrix(f, base + ".weight");
    b = optionalVector(f, base + ".bias");
}

// Whatever the file holds, in the engine's fields: the model's own check decides whether it fits
// the configuration.
ModelWeights weightsOf(const io::SafetensorsFile& f, const ModelConfig& c)
{
    ModelWeights w;
    engine::StackWeights& s = w.decoder;
    s.embedding = matrix(f, "model.embed_tokens.weight");
    if (f.find("model.embed_norm.weight"))
        s.embeddingNorm = norm(f, "model.embed_norm");
    for (int L = 0; L < c.decoderLayers; ++L) {
        const std::string p = "model.layers." + std::to_string(L) + ".";
        engine::LayerWeights& layer = s.layers.emplace_back();
        engine::AttentionSublayerWeights& a = layer.attention.emplace_back();
        a.block = engine::Block::MaskedSelf;
        a.norm = norm(f, p + "input_layernorm");
        engine::AttentionWeights& aw = a.attention;
        projection(f, p + "self_attn.q_proj", aw.wQ, aw.bQ);
        projection(f, p + "self_attn.k_proj", aw.wK, aw.bK);
        projection(f, p + "self_attn.v_proj", aw.wV, aw.bV);
        projection(f, p + "self_attn.o_proj", aw.wO, aw.bO);
        engine::FeedForwardWeights& ff = layer.feedForward;
        projection(f, p + "mlp.up_proj", ff.w1, ff.b1);
        projection(f, p + "mlp.down_proj", ff.w2, ff.b2);
        if (f.find(p + "mlp.gate_proj.weight"))
            projection(f, p + "mlp.gate_proj", ff.gate, ff.bGate);
        layer.feedForwardNorm = norm(f, p + "post_attention_layernorm");
    }
    if (f.find("model.norm.weight"))
        s.finalNorm = norm(f, "model.norm");
    if (f.find("lm_head.weight"))
        w.output = matrix(f, "lm_head.weight");
    return w;
}

struct Reference {
    io::SafetensorsFile file;
    ModelConfig config;
    std::vector<int> ids;
};

Reference reference(const std::string& name)
{
    Reference r{referenceFile(name), {}, {}};
    r.config = configOf(metadataJson(r.file, "config"));
    const io::JsonValue ids = metadataJson(r.file, "ids");
    for (const io::JsonValue& id : ids.asArray())
        r.ids.push_back(static_cast<int>(id.asInteger()));
    return r;
}

std::unique_ptr<engine::TransformerModel> modelOf(const Reference& r)
{
    return std::make_unique<engine::TransformerModel>(r.config, weightsOf(r.file, r.config));
}

engine::ModelInput inputOf(const Reference& r)
{
    return engine::ModelInput{{}, {}, r.ids};
}

// The largest |engine − PyTorch| over the finite values (the −∞ of blocked scores must match
// exactly; tensorsNear checks that).
double maxAbsError(const engine::Tensor& actual, const engine::Tensor& expected)
{
    double worst = 0;
    for (std::size_t i = 0; i < actual.values().size(); ++i)
        if (std::isfinite(expected.values()[i]))
            worst = std::max(
                worst, std::abs(static_cast<double>(actual.values()[i]) - expected.values()[i]));
    return worst;
}

bool sameBits(const engine::Tensor& a, const engine::Tensor& b)
{
    return a.shape() == b.shape() &&
        std::equal(a.values().begin(), a.values().end(), b.values().begin(),
                   [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

std::map<std::string, engine::Tensor> layerTensors(const engine::LayerTrace& layer, int index)
{
    std::map<std::string, engine::Tensor> out;
    engine::forEachLayerTensor(layer, index, [&](const std::string& name, const engine::Tensor& t) {
        out.emplace(name, t);
    });
    return out;
}

class ModernModel : public ::testing::TestWithParam<std::string> { };

TEST_P(ModernModel, EveryIntermediateMatchesPyTorch)
{
    const Reference r = reference(GetParam());
    const auto model = modelOf(r);
    const engine::ModelTrace trace = model->forward(inputOf(r));
    std::set<std::string> expectedNames, tracedNames;
    for (const io::TensorEntry& t : r.file.tensors())
        if (t.name.starts_with("trace."))
            expectedNames.insert(t.name.substr(6));
    double worst = 0;
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& tensor) {
        tracedNames.insert(name);
        if (!expectedNames.contains(name))
            return;
        const engine::Tensor expected = tensorFrom(r.file, "trace." + name);
        EXPECT_TRUE(tensorsNear(tensor, expected)) << GetParam() << " " << name;
        if (tensor.shape() == expected.shape())
            worst = std::max(worst, maxAbsError(tensor, expected));
    });
    EXPECT_EQ(tracedNames, expectedNames) << GetParam();
    std::ostringstream error;
    error << std::scientific << std::setprecision(2) << worst;
    RecordProperty("max_abs_error", error.str());
}

TEST_P(ModernModel, RecomputedLayersEqualTheKeptOnesBitForBit)
{
    const Reference r = reference(GetParam());
    const auto model = modelOf(r);
    const engine::ModelTrace full = model->forward(inputOf(r));
    // Attention weights only, every layer seen by an observer as it is computed: the layers are
    // computed in reused scratch and trimmed (gate_pre included).
    std::map<std::string, engine::Tensor> observed;
    engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    policy.observer = [&](const std::string& name, const engine::Tensor& t) {
        observed.emplace(name, t);
    };
    const engine::ModelTrace trimmed = model->forward(inputOf(r), policy);
    for (int L = 0; L < r.config.decoderLayers; ++L) {
        const auto kept = layerTensors(full.decoder->layers[static_cast<std::size_t>(L)], L);
        EXPECT_FALSE(layerTensors(trimmed.decoder->layers[static_cast<std::size_t>(L)], L)
                         .contains("layer" + std::to_string(L) + ".dec_ffn.hidden"));
        for (const engine::ModelTrace* from : {&full, &trimmed}) {
            const auto again =
                layerTensors(model->recomputeLayer(*from, engine::Block::MaskedSelf, L), L);
            ASSERT_EQ(again.size(), kept.size()) << GetParam() << " layer " << L;
            for (const auto& [name, tensor] : kept) {
                EXPECT_TRUE(sameBits(again.at(name), tensor)) << GetParam() << " " << name;
                EXPECT_TRUE(sameBits(observed.at(name), tensor)) << GetParam() << " " << name;
            }
        }
    }
}

TEST_P(ModernModel, EveryModuleIsDescribedByTheConfiguration)
{
    const Reference r = reference(GetParam());
    const auto model = modelOf(r);
    const ModelConfig& c = r.config;
    for (int L = 0; L < c.decoderLayers; ++L) {
        const engine::AttentionDescription& d =
            model->attentionModule(L, engine::Block::MaskedSelf)->description();
        EXPECT_EQ(d, engine::attentionDescription(c, L, engine::Block::MaskedSelf));
        EXPECT_EQ(d.keyValueHeads, c.keyValueHeads());
        EXPECT_EQ(d.queryKeySize, c.headSize());
        ASSERT_TRUE(d.rotary);
        EXPECT_EQ(d.rotary->theta, c.ropeTheta);
        EXPECT_EQ(d.rotatedSize(), c.rotatedSize ? c.rotatedSize : c.headSize());
        EXPECT_TRUE(d.mask.causal);
        const bool windowed = c.slidingWindow.has_value() &&
            (c.slidingWindowLayers.empty() || c.slidingWindowLayers[static_cast<std::size_t>(L)]);
        EXPECT_EQ(d.mask.slidingWindow.has_value(), windowed) << GetParam() << " layer " << L;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, ModernModel, ::testing::ValuesIn(kCases),
                         [](const auto& param) { return param.param; });

TEST(ModernModel, GemmaHeadsAreWiderThanTheirShareOfTheWidth)
{
    const Reference r = reference("gemma_like");
    ASSERT_EQ(r.config.headDim, 16);
    const auto model = modelOf(r);
    const engine::MultiHeadAttention& module =
        *model->attentionModule(0, engine::Block::MaskedSelf);
    EXPECT_EQ(module.weights().wQ.rows(), 64);
    EXPECT_EQ(module.weights().wO.cols(), 64);
    EXPECT_EQ(module.outputSize(), 32);
}

// The sentence checkWeights throws for `r`'s weights edited by `edit`.
std::string weightsError(const Reference& r, const std::function<void(ModelWeights&)>& edit)
{
    ModelWeights w = weightsOf(r.file, r.config);
    edit(w);
    try {
        engine::TransformerModel model(r.config, std::move(w));
    } catch (const engine::InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

engine::AttentionWeights& attentionOf(ModelWeights& w, int layer)
{
    return w.decoder.layers[static_cast<std::size_t>(layer)].attention[0].attention;
}

TEST(ModernModel, WeightsAreCheckedAgainstExactlyWhatTheConfigurationSays)
{
    const Reference llama = reference("llama_like"), qwen = reference("qwen2_like");
    const Eigen::RowVectorXf zeros = Eigen::RowVectorXf::Zero(32);
    EXPECT_EQ(weightsError(llama, [](ModelWeights&) {}), "(accepted)");
    EXPECT_EQ(weightsError(llama, [&](ModelWeights& w) { attentionOf(w, 1).bQ = zeros; }),
              "decoder layer 1 masked_self q_proj has a bias; the configuration expects none.");
    EXPECT_EQ(weightsError(
                  llama, [&](ModelWeights& w) { attentionOf(w, 0).wK = RowMatrix::Zero(32, 32); }),
              "decoder layer 0 masked_self w_k has shape [32, 32]; the configuration expects "
              "[16, 32].");
    EXPECT_EQ(
        weightsError(llama,
                     [](ModelWeights& w) { w.decoder.layers[2].feedForward.gate.resize(0, 0); }),
        "decoder layer 2 feed-forward gate has shape [0, 0]; the configuration expects [48, "
        "32].");
    EXPECT_EQ(
        weightsError(llama,
                     [&](ModelWeights& w) { w.decoder.layers[0].feedForwardNorm.bias = zeros; }),
        "decoder layer 0 feed-forward RMSNorm bias has 32 values; the configuration "
        "expects 0.");
    EXPECT_EQ(weightsError(qwen, [](ModelWeights& w) { attentionOf(w, 0).bV.reset(); }),
              "decoder layer 0 masked_self v_proj has no bias; the configuration expects one of "
              "8 values.");
    EXPECT_EQ(weightsError(qwen, [&](ModelWeights& w) { attentionOf(w, 2).bO = zeros; }),
              "decoder layer 2 masked_self o_proj has a bias; the configuration expects none.");
    const Reference mixed = reference("mixed_options");
    EXPECT_EQ(weightsError(mixed,
                           [](ModelWeights& w) {
                               w.decoder.layers[1].feedForward.gate = RowMatrix::Zero(48, 32);
                           }),
              "decoder layer 1 feed-forward has a gate; the configuration's feed-forward block is "
              "plain.");
    EXPECT_EQ(
        weightsError(mixed, [](ModelWeights& w) { w.decoder.layers[0].feedForward.b2.reset(); }),
        "decoder layer 0 feed-forward W2 has no bias; the configuration expects one of 32 "
        "values.");
}

// A Llama-shaped configuration checkConfig accepts.
ModelConfig llamaConfig()
{
    return configOf(metadataJson(referenceFile("llama_like"), "config"));
}

TEST(ModernModel, CheckConfigRefusesEveryImpossibleSettingWithOneSentence)
{
    struct Bad {
        std::string what;
        std::function<void(ModelConfig&)> edit;
        std::string sentence;
    };
    const auto nan = std::nan("");
    const Bad bad[] = {
        {"K/V heads that do not divide the heads", [](ModelConfig& c) { c.numKeyValueHeads = 3; },
         "num_key_value_heads 3 does not divide num_heads 4 (every K/V head serves a group of "
         "query heads of the same size)."},
        {"more K/V heads than heads", [](ModelConfig& c) { c.numKeyValueHeads = 8; },
         "num_key_value_heads is 8; expected an integer from 0 to 4."},
        {"negative K/V heads", [](ModelConfig& c) { c.numKeyValueHeads = -1; },
         "num_key_value_heads is -1; expected an integer from 0 to 4."},
        {"a negative head size", [](ModelConfig& c) { c.headDim = -8; },
         "head_dim is -8; expected an integer from 0 to 65536."},
        {"an odd head size with rotary positions", [](ModelConfig& c) { c.headDim = 7; },
         "the head size 7 is odd; rotary positions turn features in pairs, so it must be even."},
        {"an odd share of the width with rotary positions",
         [](ModelConfig& c) { c.modelWidth = 28; },
         "the head size 7 is odd; rotary positions turn features in pairs, so it must be even."},
        {"an odd rotated size", [](ModelConfig& c) { c.rotatedSize = 5; },
         "rotary_dim 5 is odd; rotary positions turn features in pairs, so it must be even."},
        {"a rotated size beyond the head", [](ModelConfig& c) { c.rotatedSize = 10; },
         "rotary_dim is 10; expected an integer from 0 to 8."},
        {"a negative rotated size", [](ModelConfig& c) { c.rotatedSize = -2; },
         "rotary_dim is -2; expected an integer from 0 to 8."},
        {"θ 0", [](ModelConfig& c) { c.ropeTheta = 0; },
         "rope_theta is 0; expected a positive finite number such as 10000."},
        {"θ −1", [](ModelConfig& c) { c.ropeTheta = -1; },
         "rope_theta is -1; expected a positive finite number such as 10000."},
        {"θ +∞", [](ModelConfig& c) { c.ropeTheta = INFINITY; },
         "rope_theta is inf; expected a positive finite number such as 10000."},
        {"θ NaN", [nan](ModelConfig& c) { c.ropeTheta = nan; },
         "rope_theta is nan; expected a positive finite number such as 10000."},
        {"a window of 0", [](ModelConfig& c) { c.slidingWindow = 0; },
         "sliding_window is 0; expected an integer from 1 to 1048576."},
        {"a negative window", [](ModelConfig& c) { c.slidingWindow = -4; },
         "sliding_window is -4; expected an integer from 1 to 1048576."},
        {"a window list too short",
         [](ModelConfig& c) {
             c.slidingWindow = 4;
             c.slidingWindowLayers = {false, true};
         },
         "the sliding-window layer list has 2 entries; expected one per decoder layer, 3."},
        {"a window list without a window",
         [](ModelConfig& c) {
             c.slidingWindowLayers = {false, true, true};
         },
         "the layers that use a sliding window are listed, but sliding_window is not set."},
        {"a window in an encoder-only model",
         [](ModelConfig& c) {
             c.architecture = engine::Architecture::EncoderOnly;
             c.encoderLayers = c.decoderLayers;
             c.decoderLayers = 0;
             c.slidingWindow = 4;
         },
         "sliding_window limits a decoder's causal self-attention; an encoder-only model has "
         "none."},
        {"a width the heads cannot share without head_dim",
         [](ModelConfig& c) { c.modelWidth = 30; },
         "d_model 30 cannot be split into 4 heads of equal width (d_model must be a multiple of "
         "num_heads)."},
    };
    EXPECT_NO_THROW(engine::checkConfig(llamaConfig()));
    for (const Bad& b : bad) {
        ModelConfig c = llamaConfig();
        b.edit(c);
        try {
            engine::checkConfig(c);
            ADD_FAILURE() << b.what << " was accepted";
        } catch (const engine::InputError& e) {
            EXPECT_EQ(std::string(e.what()), "config.json: " + b.sentence) << b.what;
        }
    }
}

TEST(ModernModel, AnExplicitHeadSizeFreesTheHeadsFromSharingTheWidth)
{
    ModelConfig c = llamaConfig();
    c.modelWidth = 30;
    c.headDim = 16;
    EXPECT_NO_THROW(engine::checkConfig(c));
    EXPECT_EQ(c.headSize(), 16);
}

TEST(ModernModel, OnlyDecoderSelfAttentionTurnsAndOnlyWindowedLayersSlide)
{
    ModelConfig c;
    c.architecture = engine::Architecture::EncoderDecoder;
    c.vocabSize = 10;
    c.modelWidth = 16;
    c.numHeads = 4;
    c.numKeyValueHeads = 2;
    c.feedForwardWidth = 32;
    c.encoderLayers = 2;
    c.decoderLayers = 2;
    c.maxLength = 16;
    c.bosTokenId = 0;
    c.positional = engine::PositionalKind::Rotary;
    c.ropeTheta = 500000.0;
    c.slidingWindow = 3;
    c.slidingWindowLayers = {false, true};
    engine::checkConfig(c);
    using engine::Block;
    const auto at = [&](int layer, Block block) {
        return engine::attentionDescription(c, layer, block);
    };
    EXPECT_TRUE(at(0, Block::Self).rotary);
    EXPECT_FALSE(at(0, Block::Self).mask.causal);
    EXPECT_FALSE(at(1, Block::Self).mask.slidingWindow);
    EXPECT_FALSE(at(1, Block::Cross).rotary);
    EXPECT_FALSE(at(1, Block::Cross).mask.slidingWindow);
    EXPECT_EQ(at(1, Block::Cross).keyValueHeads, 2);
    EXPECT_EQ(at(0, Block::MaskedSelf).rotary, (engine::RotaryPositions{500000.0, 0}));
    EXPECT_FALSE(at(0, Block::MaskedSelf).mask.slidingWindow);
    EXPECT_EQ(at(1, Block::MaskedSelf).mask.slidingWindow, 3);
}

} // namespace
} // namespace attnviz::test
