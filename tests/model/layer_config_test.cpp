// Per-layer configuration (#44): a model whose layers differ — a window on one layer and not the
// next, another rotary base, QK-norm and a cap on one layer only, Gemma's sandwich of norms with
// its (1 + w) RMSNorm — is data in ModelConfig's layer configurations, and the forward pass
// computes exactly what the layers say. The reference is written here from the definitions, one
// layer at a time: each attention module run alone (the module is tested against PyTorch
// elsewhere), the norms, residuals and the SwiGLU block as plain loops.
#include "engine/input_error.h"
#include "engine/layer_norm.h"
#include "engine/transformer_model.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::Block;
using engine::LayerConfig;
using engine::ModelConfig;
using engine::RowMatrix;
using engine::SublayerNorms;
using engine::Tensor;
using ::testing::HasSubstr;

constexpr int kWidth = 12, kVocabulary = 20, kFeedForward = 16;

// A decoder-only model of three layers that differ from one another.
ModelConfig differingLayers()
{
    ModelConfig c;
    c.name = "layers-differ";
    c.architecture = engine::Architecture::DecoderOnly;
    c.vocabSize = kVocabulary;
    c.modelWidth = kWidth;
    c.numHeads = 2;
    c.numKeyValueHeads = 1;
    c.headDim = 8; // not d_model / num_heads, as Gemma's and Qwen3's
    c.feedForwardWidth = kFeedForward;
    c.decoderLayers = 3;
    c.activation = engine::Activation::Silu;
    c.feedForwardKind = engine::FeedForwardKind::Gated;
    c.normKind = engine::NormKind::RmsNormUnitOffset;
    c.finalNorm = true;
    c.positional = engine::PositionalKind::Rotary;
    c.maxLength = 64;
    c.bias = false;
    c.layerNormEps = 1e-6f;
    for (int L = 0; L < 3; ++L) {
        LayerConfig l = engine::standardLayer(c, true, L);
        AttentionDescription& d = l.attention[0].description;
        // Gemma 3's sandwich everywhere; a window of 3 on layer 0, the whole text with another
        // rotary base on layer 1, QK-norm, a cap and a scale of its own on layer 2.
        l.attention[0].norms = SublayerNorms{true, true, false};
        l.feedForwardNorms = SublayerNorms{true, true, false};
        if (L == 0)
            d.mask.slidingWindow = 3;
        if (L == 1)
            d.rotary->theta = 1e6;
        if (L == 2) {
            d.queryKeyNorm = engine::QueryKeyNorm{engine::QueryKeyNorm::Scope::PerHead, 1e-6, true};
            d.logitSoftCap = 2.0;
            d.scoreScale = 0.2;
        }
        c.decoderLayerConfigs.push_back(l);
    }
    return c;
}

RowMatrix random(Eigen::Index rows, Eigen::Index cols, float scale, std::mt19937& r)
{
    std::normal_distribution<float> normal(0.0f, scale);
    RowMatrix m(rows, cols);
    for (float& x : m.reshaped())
        x = normal(r);
    return m;
}

engine::LayerNormWeights gain(std::mt19937& r)
{
    return {random(1, kWidth, 0.3f, r), {}};
}

engine::ModelWeights weightsFor(const ModelConfig& c, std::mt19937& r)
{
    engine::ModelWeights w;
    w.decoder.embedding = random(kVocabulary, kWidth, 1.0f, r);
    for (int L = 0; L < c.decoderLayers; ++L) {
        const LayerConfig l = engine::layerConfig(c, true, L);
        engine::LayerWeights lw;
        for (const engine::AttentionBlockConfig& a : l.attention) {
            const AttentionDescription& d = a.description;
            engine::AttentionSublayerWeights s;
            s.block = a.block;
            s.norm = gain(r);
            if (a.norms.afterSublayer)
                s.outputNorm = gain(r);
            const float in = 1.0f / std::sqrt(float(kWidth));
            s.attention.wQ = random(d.queryHeads * d.queryKeySize, kWidth, in, r);
            s.attention.wK = random(d.keyValueHeads * d.queryKeySize, kWidth, in, r);
            s.attention.wV = random(d.keyValueHeads * d.valueSize, kWidth, in, r);
            s.attention.wO = random(kWidth, d.queryHeads * d.valueSize, 0.3f, r);
            if (d.queryKeyNorm) {
                s.attention.qNorm = random(1, d.queryKeySize, 0.3f, r);
                s.attention.kNorm = random(1, d.queryKeySize, 0.3f, r);
            }
            lw.attention.push_back(std::move(s));
        }
        lw.feedForwardNorm = gain(r);
        if (l.feedForwardNorms.afterSublayer)
            lw.feedForwardOutputNorm = gain(r);
        lw.feedForward.w1 = random(kFeedForward, kWidth, 0.3f, r);
        lw.feedForward.gate = random(kFeedForward, kWidth, 0.3f, r);
        lw.feedForward.w2 = random(kWidth, kFeedForward, 0.3f, r);
        w.decoder.layers.push_back(std::move(lw));
    }
    w.decoder.finalNorm = gain(r);
    w.output = random(kVocabulary, kWidth, 0.3f, r);
    return w;
}

// Gemma's RMSNorm of every row: x / √(mean(x²) + ε) · (1 + w), in double.
RowMatrix gemmaNorm(const RowMatrix& x, const engine::LayerNormWeights& w, double eps)
{
    RowMatrix out(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double meanSquare = x.row(i).cast<double>().squaredNorm() / double(x.cols());
        for (Eigen::Index j = 0; j < x.cols(); ++j)
            out(i, j) = static_cast<float>(x(i, j) / std::sqrt(meanSquare + eps) *
                                           (1.0 + double(w.gain(j))));
    }
    return out;
}

RowMatrix swiglu(const RowMatrix& x, const engine::FeedForwardWeights& f)
{
    RowMatrix hidden(x.rows(), kFeedForward);
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index k = 0; k < kFeedForward; ++k) {
            const double g = x.row(i).cast<double>().dot(f.gate.row(k).cast<double>());
            const double u = x.row(i).cast<double>().dot(f.w1.row(k).cast<double>());
            hidden(i, k) = static_cast<float>(g / (1 + std::exp(-g)) * u);
        }
    return hidden * f.w2.transpose();
}

Tensor asTensor(const RowMatrix& m)
{
    Tensor t({{"batch", 1}, {"token", m.rows()}, {"feature", m.cols()}});
    t.matrix({0}) = m;
    return t;
}

TEST(LayerConfig, EachLayerComputesWhatItsConfigurationSays)
{
    const ModelConfig c = differingLayers();
    std::mt19937 r(44);
    engine::ModelWeights weights = weightsFor(c, r);
    const engine::ModelWeights kept = weights;
    const engine::TransformerModel model(c, std::move(weights));
    const std::vector<int> ids{3, 1, 4, 1, 5, 9, 2, 6};
    const engine::ModelTrace trace = model.forward({}, ids);

    RowMatrix x(static_cast<Eigen::Index>(ids.size()), kWidth);
    for (std::size_t t = 0; t < ids.size(); ++t)
        x.row(static_cast<Eigen::Index>(t)) = kept.decoder.embedding.row(ids[t]);
    for (int L = 0; L < 3; ++L) {
        const engine::LayerWeights& lw = kept.decoder.layers[static_cast<std::size_t>(L)];
        const LayerConfig l = engine::layerConfig(c, true, L);
        const engine::MultiHeadAttention module(lw.attention[0].attention,
                                                l.attention[0].description);
        const Tensor normed = asTensor(gemmaNorm(x, lw.attention[0].norm, 1e-6));
        const engine::AttentionTrace attention = module.forward(normed, normed, normed);
        const auto& blockTrace = trace.decoder->layers[static_cast<std::size_t>(L)].attention[0];
        EXPECT_TRUE(tensorsNear(blockTrace.attention.weights, attention.weights)) << "layer " << L;
        x += gemmaNorm(attention.output.matrix({0}), *lw.attention[0].outputNorm, 1e-6);
        EXPECT_TRUE(tensorsNear(blockTrace.residual, asTensor(x))) << "layer " << L;
        EXPECT_EQ(blockTrace.outputNorm.dim(1), static_cast<std::int64_t>(ids.size()));
        x += gemmaNorm(swiglu(gemmaNorm(x, lw.feedForwardNorm, 1e-6), lw.feedForward),
                       *lw.feedForwardOutputNorm, 1e-6);
        EXPECT_TRUE(
            tensorsNear(trace.decoder->layers[static_cast<std::size_t>(L)].feedForward.residual,
                        asTensor(x), 1e-4, 1e-4))
            << "layer " << L;
    }
    // What differs from layer to layer reached the modules: the window of layer 0 blocks query
    // 5's key 2, layer 1 does not; layer 2 has the cap and the norm.
    const auto weightsOf = [&](int L) {
        return &trace.decoder->layers[static_cast<std::size_t>(L)].attention[0].attention;
    };
    EXPECT_EQ(weightsOf(0)->weights.at({0, 0, 5, 2}), 0.0f);
    EXPECT_GT(weightsOf(1)->weights.at({0, 0, 5, 2}), 0.0f);
    EXPECT_TRUE(weightsOf(2)->has(engine::AttentionStep::Capped));
    EXPECT_TRUE(weightsOf(2)->has(engine::AttentionStep::QNormed));
    EXPECT_FALSE(weightsOf(1)->has(engine::AttentionStep::Capped));
    // The dump names the sandwich's second norm.
    std::vector<std::string> names;
    trace.forEachTensor([&](const std::string& name, const Tensor&) { names.push_back(name); });
    EXPECT_THAT(names, ::testing::Contains("layer1.masked_self.output_norm"));
    EXPECT_THAT(names, ::testing::Contains("layer2.dec_ffn.output_norm"));
}

TEST(LayerConfig, TheStandardLayersAreWhatTheModelWideFieldsSay)
{
    ModelConfig c = differingLayers();
    c.decoderLayerConfigs.clear();
    c.slidingWindow = 4;
    c.slidingWindowLayers = {true, false, true};
    for (int L = 0; L < 3; ++L) {
        const LayerConfig l = engine::layerConfig(c, true, L);
        ASSERT_EQ(l.attention.size(), 1u);
        EXPECT_EQ(l.attention[0].block, Block::MaskedSelf);
        EXPECT_EQ(l.attention[0].norms, (SublayerNorms{true, false, false}));
        EXPECT_EQ(l.attention[0].description.mask.slidingWindow.has_value(), L != 1);
        EXPECT_EQ(l.attention[0].description,
                  engine::attentionDescription(c, L, Block::MaskedSelf));
        EXPECT_EQ(l.feedForward, engine::FeedForwardKind::Gated);
        EXPECT_EQ(l.normKind, engine::NormKind::RmsNormUnitOffset);
    }
    c.norm = engine::NormPosition::Post;
    EXPECT_EQ(engine::layerConfig(c, true, 0).feedForwardNorms,
              (SublayerNorms{false, false, true}));
}

TEST(LayerConfig, ImpossibleLayerConfigurationsAreRefusedInOneSentence)
{
    const std::pair<void (*)(ModelConfig&), const char*> bad[] = {
        {[](ModelConfig& c) { c.decoderLayerConfigs.pop_back(); },
         "the decoder has 3 layers but 2 layer configurations"},
        {[](ModelConfig& c) { c.decoderLayerConfigs[1].attention[0].block = Block::Self; },
         "decoder layer 1's attention block 0 is self; expected masked_self"},
        {[](ModelConfig& c) {
             c.decoderLayerConfigs[2].attention[0].description.logitSoftCap = -1;
         },
         "decoder layer 2 masked_self: attn_logit_softcapping is -1"},
        {[](ModelConfig& c) { c.decoderLayerConfigs[0].attention.clear(); },
         "decoder layer 0 has 0 attention blocks; expected 1"},
        {[](ModelConfig& c) {
             c.decoderLayerConfigs[0].feedForwardNorms = SublayerNorms{true, false, true};
         },
         "both before a sublayer and after its residual add"},
        {[](ModelConfig& c) { c.decoderLayerConfigs[1].feedForwardWidth = 0; }, "d_ff is 0"},
    };
    for (const auto& [edit, words] : bad) {
        ModelConfig c = differingLayers();
        edit(c);
        try {
            engine::checkConfig(c);
            ADD_FAILURE() << "accepted: " << words;
        } catch (const engine::InputError& e) {
            EXPECT_THAT(e.what(), HasSubstr(words));
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
    }
}

TEST(LayerConfig, WeightsThatDoNotFollowTheLayersAreRefused)
{
    const ModelConfig c = differingLayers();
    std::mt19937 r(7);
    engine::ModelWeights missing = weightsFor(c, r);
    missing.decoder.layers[1].attention[0].outputNorm.reset();
    EXPECT_THAT(
        [&] { engine::TransformerModel m(c, std::move(missing)); },
        ::testing::ThrowsMessage<engine::InputError>(HasSubstr(
            "decoder layer 1 masked_self has no norm after the sublayer; the configuration's "
            "sandwich norms expect one")));
    engine::ModelWeights noGains = weightsFor(c, r);
    noGains.decoder.layers[2].attention[0].attention.qNorm.reset();
    EXPECT_THROW(engine::TransformerModel(c, std::move(noGains)), engine::InputError);
}

} // namespace
} // namespace attnviz::test
