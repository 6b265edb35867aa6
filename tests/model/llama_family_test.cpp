// Hugging Face Llama, Mistral, Qwen2 and SmolLM folders (tests/data/hf/<family>, made by
// tools/make_llama_family_folders.py) opened as a user opens them, against a float64 PyTorch
// forward pass: the tokenizer's ids, every intermediate of every layer (the rotated q and k and
// every attention map among them) and the logits. Then the same comparison is shown to fail when
// rotary positions turn interleaved pairs or the K/V heads are read in another order, and the
// config.json readers are held to the keys each family writes.
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include "engine/transformer_model.h"
#include "io/checkpoint/model_folder.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "lesson/model_run.h"
#include "lesson/trace_export.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kHf = fs::path(ATTNVIZ_TEST_DATA_DIR) / "hf";
const std::vector<std::string> kFolders = {"llama3", "tinyllama", "mistral", "qwen2", "smollm"};

/// The bound: every map, rotated q and k and logit within 1e-4 of PyTorch.
constexpr double kTolerance = 1e-4;

struct Reference {
    io::SafetensorsFile file;
    std::string text;
    std::vector<int> ids;
    std::vector<int> logitColumns;
};

std::vector<int> integers(const io::JsonValue& list)
{
    std::vector<int> out;
    for (const io::JsonValue& v : list.asArray())
        out.push_back(static_cast<int>(v.asInteger()));
    return out;
}

Reference referenceOf(const std::string& folder)
{
    Reference r{
        io::SafetensorsFile::read((kHf / folder / "reference.safetensors").string()), {}, {}, {}};
    const io::JsonValue& meta = r.file.metadata();
    r.text = meta.find("text")->asString();
    r.ids = integers(io::parseJson(meta.find("ids")->asString()));
    r.logitColumns = integers(io::parseJson(meta.find("logit_columns")->asString()));
    return r;
}

// The logits at the reference's columns, [1, N, columns].
engine::Tensor logitColumns(const engine::Tensor& logits, const std::vector<int>& columns)
{
    const std::int64_t N = logits.dim(1);
    engine::Tensor out({{"d0", 1}, {"d1", N}, {"d2", std::ssize(columns)}});
    for (std::int64_t t = 0; t < N; ++t)
        for (std::size_t c = 0; c < columns.size(); ++c)
            out.values()[static_cast<std::size_t>(t) * columns.size() + c] =
                logits.values()[static_cast<std::size_t>(t * logits.dim(2) + columns[c])];
    return out;
}

// The largest |engine − PyTorch| of the trace tensors the reference holds, and whether every one
// is within kTolerance (names that fail are added to `failures`).
double worstError(const engine::ModelTrace& trace, const Reference& r,
                  std::vector<std::string>& failures)
{
    double worst = 0;
    const auto compare = [&](const std::string& name, const engine::Tensor& actual) {
        const engine::Tensor expected = tensorFrom(r.file, "trace." + name);
        if (!tensorsNear(actual, expected, kTolerance, 0))
            failures.push_back(name);
        if (actual.shape() != expected.shape())
            return;
        for (std::size_t i = 0; i < actual.values().size(); ++i)
            if (std::isfinite(expected.values()[i]))
                worst =
                    std::max<double>(worst, std::abs(actual.values()[i] - expected.values()[i]));
    };
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& t) {
        if (name == "decoder.logits")
            compare("decoder.logits_columns", logitColumns(t, r.logitColumns));
        else if (r.file.find("trace." + name))
            compare(name, t);
    });
    return worst;
}

// The model's weights, the layers taken back from the model with their attention projections,
// for a variant.
engine::ModelWeights weightsOf(const engine::TransformerModel& model)
{
    engine::ModelWeights w = model.weights();
    for (int L = 0; L < model.config().decoderLayers; ++L) {
        const std::shared_ptr<const engine::ModelLayer> layer = model.layer(true, L);
        engine::LayerWeights& copy = w.decoder.layers.emplace_back(layer->weights);
        copy.attention[0].attention = layer->attention[0].weights();
    }
    return w;
}

class LlamaFamily : public ::testing::TestWithParam<std::string> { };

TEST_P(LlamaFamily, OpensAndMatchesPyTorchWithin1e4)
{
    const io::LoadedModel loaded = io::loadModel((kHf / GetParam()).string());
    const Reference r = referenceOf(GetParam());
    EXPECT_EQ(loaded.layout->name(), "llama");
    EXPECT_EQ(loaded.tokenizer->encode(r.text), r.ids) << GetParam();
    const engine::ModelTrace trace = loaded.model->forward(engine::ModelInput{{}, {}, r.ids});
    std::vector<std::string> failures;
    const double worst = worstError(trace, r, failures);
    EXPECT_THAT(failures, ::testing::IsEmpty()) << GetParam();
    // Every attention step of every layer was compared, the rotated q and k among them.
    for (int L = 0; L < loaded.model->config().decoderLayers; ++L)
        for (const char* step : {"q_rotated", "k_rotated", "weights", "k_heads"})
            EXPECT_TRUE(r.file.find("trace.layer" + std::to_string(L) + ".masked_self." + step))
                << GetParam() << " layer " << L << " " << step;
    std::ostringstream text;
    text << std::scientific << std::setprecision(2) << worst;
    RecordProperty("max_abs_error", text.str());
}

// The comparison is sharp enough to catch the silent mistakes a Llama loader can make:
// rotating interleaved pairs (Meta's layout) where Hugging Face's weights pair feature i with
// i + d/2 — the same as permuting each head's q and k rows —, and reading the K/V heads in
// another order than repeat_kv's, and leaving out rope_scaling.
TEST_P(LlamaFamily, EachSilentLoaderMistakeFailsTheComparison)
{
    const io::LoadedModel loaded = io::loadModel((kHf / GetParam()).string());
    const Reference r = referenceOf(GetParam());
    const engine::ModelConfig& c = loaded.model->config();
    const std::int64_t P = c.headSize();
    const auto fails = [&](const std::function<void(engine::AttentionWeights&)>& mutate,
                           const engine::ModelConfig& config) {
        engine::ModelWeights w = weightsOf(*loaded.model);
        for (engine::LayerWeights& layer : w.decoder.layers)
            mutate(layer.attention[0].attention);
        const engine::TransformerModel variant(config, std::move(w));
        std::vector<std::string> failures;
        worstError(variant.forward(engine::ModelInput{{}, {}, r.ids}), r, failures);
        return std::ranges::any_of(failures,
                                   [](const std::string& n) { return n.ends_with(".weights"); });
    };
    // Row f of a head moves to where an interleaved rotation would pair it: (0, d/2, 1, d/2+1 …).
    const auto interleave = [P](engine::RowMatrix& w) {
        const engine::RowMatrix original = w;
        for (std::int64_t h = 0; h < w.rows() / P; ++h)
            for (std::int64_t i = 0; i < P / 2; ++i) {
                w.row(h * P + 2 * i) = original.row(h * P + i);
                w.row(h * P + 2 * i + 1) = original.row(h * P + i + P / 2);
            }
    };
    const auto interleaveBias = [&](std::optional<Eigen::RowVectorXf>& b) {
        if (!b)
            return;
        engine::RowMatrix column = b->transpose();
        interleave(column);
        *b = column.transpose();
    };
    EXPECT_TRUE(fails(
        [&](engine::AttentionWeights& a) {
            interleave(a.wQ);
            interleave(a.wK);
            interleaveBias(a.bQ);
            interleaveBias(a.bK);
        },
        c))
        << GetParam();
    if (c.keyValueHeads() > 1) {
        // K/V head g serves query heads g·G … g·G + G − 1; reversing the K/V heads pairs each
        // group with another group's keys and values.
        EXPECT_TRUE(fails(
            [&](engine::AttentionWeights& a) {
                const engine::RowMatrix k = a.wK, v = a.wV;
                const std::int64_t heads = c.keyValueHeads();
                for (std::int64_t g = 0; g < heads; ++g) {
                    a.wK.middleRows(g * P, P) = k.middleRows((heads - 1 - g) * P, P);
                    a.wV.middleRows(g * P, P) = v.middleRows((heads - 1 - g) * P, P);
                }
                if (a.bK) {
                    const Eigen::RowVectorXf bk = *a.bK, bv = *a.bV;
                    for (std::int64_t g = 0; g < heads; ++g) {
                        a.bK->segment(g * P, P) = bk.segment((heads - 1 - g) * P, P);
                        a.bV->segment(g * P, P) = bv.segment((heads - 1 - g) * P, P);
                    }
                }
            },
            c))
            << GetParam();
    }
    // And the folders that stretch rotary positions are read with their stretching.
    if (c.ropeScaling) {
        engine::ModelConfig unscaled = c;
        unscaled.ropeScaling.reset();
        EXPECT_TRUE(fails([](engine::AttentionWeights&) {}, unscaled)) << GetParam();
    }
}

INSTANTIATE_TEST_SUITE_P(Folders, LlamaFamily, ::testing::ValuesIn(kFolders),
                         [](const auto& param) { return param.param; });

TEST(LlamaFamily, EachFolderIsReadAsItsFamilyDescribesIt)
{
    const auto configOf = [](const char* folder) {
        return io::loadModel((kHf / folder).string()).model->config();
    };
    const engine::ModelConfig llama3 = configOf("llama3");
    EXPECT_EQ(llama3.numHeads, 4);
    EXPECT_EQ(llama3.keyValueHeads(), 2);
    EXPECT_EQ(llama3.headSize(), 8);
    EXPECT_TRUE(llama3.tiedOutput);
    ASSERT_TRUE(llama3.ropeScaling);
    EXPECT_EQ(llama3.ropeScaling->kind, engine::RopeScaling::Kind::Llama3);
    EXPECT_EQ(llama3.ropeScaling->originalContext, 64);
    EXPECT_EQ(llama3.bosTokenId, 128000);

    const engine::ModelConfig tiny = configOf("tinyllama");
    EXPECT_EQ(tiny.keyValueHeads(), tiny.numHeads) << "num_key_value_heads null";
    EXPECT_TRUE(tiny.hasAttentionBias());
    EXPECT_TRUE(tiny.hasOutputProjectionBias());
    EXPECT_FALSE(tiny.hasMlpBias());
    ASSERT_TRUE(tiny.ropeScaling) << "the older key \"type\"";
    EXPECT_EQ(tiny.ropeScaling->kind, engine::RopeScaling::Kind::Linear);

    const engine::ModelConfig mistral = configOf("mistral");
    EXPECT_EQ(mistral.slidingWindow, 4);
    EXPECT_TRUE(mistral.slidingWindowLayers.empty()) << "every layer";
    EXPECT_FALSE(mistral.hasAttentionBias());

    const engine::ModelConfig qwen2 = configOf("qwen2");
    EXPECT_EQ(qwen2.slidingWindowLayers, (std::vector<bool>{false, true, true}));
    EXPECT_TRUE(qwen2.hasAttentionBias());
    EXPECT_FALSE(qwen2.hasOutputProjectionBias());
    EXPECT_FALSE(qwen2.hasMlpBias());
}

// A trace's manifest says what makes these models differ, so that a reader of the file can
// recompute any step.
TEST(LlamaFamily, TheTraceManifestStatesKeyValueHeadsRotaryScalingAndWindows)
{
    const auto manifestOf = [](const char* folder) {
        const auto loaded =
            std::make_shared<const io::LoadedModel>(io::loadModel((kHf / folder).string()));
        return lesson::modelManifest(lesson::runModelOnText(loaded, {.text = "one two three"}))
            .at("configuration");
    };
    const auto llama3 = manifestOf("llama3");
    EXPECT_EQ(llama3.at("layout"), "llama");
    EXPECT_EQ(llama3.at("num_kv_heads"), 2);
    EXPECT_EQ(llama3.at("head_dim"), 8);
    EXPECT_EQ(llama3.at("norm_kind"), "rmsnorm");
    EXPECT_EQ(llama3.at("feed_forward"), "gated");
    EXPECT_EQ(llama3.at("rotary").at("rope_theta"), 500000.0);
    EXPECT_EQ(llama3.at("rotary").at("rope_scaling").at("rope_type"), "llama3");
    EXPECT_EQ(llama3.at("rotary").at("rope_scaling").at("original_max_position_embeddings"), 64);
    EXPECT_TRUE(llama3.at("sliding_window").is_null());
    const auto qwen2 = manifestOf("qwen2");
    EXPECT_EQ(qwen2.at("sliding_window").at("size"), 4);
    EXPECT_EQ(qwen2.at("sliding_window").at("layers"), (nlohmann::ordered_json{1, 2}));
    EXPECT_TRUE(qwen2.at("rotary").at("rope_scaling").is_null());
}

// A family folder whose config.json is replaced: the other files are linked, not copied (the
// tokenizer files are megabytes).
class LlamaConfig : public TempFolderTest {
protected:
    std::string folderWith(const char* family, const std::function<void(std::string&)>& editConfig)
    {
        // Each call its own folder, named after the family: the model takes the folder's name.
        const fs::path dir = m_dir / std::to_string(++m_made) / family;
        fs::create_directories(dir);
        for (const auto& entry : fs::directory_iterator(kHf / family))
            if (entry.path().filename() != "config.json")
                fs::create_symlink(entry.path(), dir / entry.path().filename());
        std::ifstream in(kHf / family / "config.json");
        std::string text((std::istreambuf_iterator<char>(in)), {});
        editConfig(text);
        std::ofstream(dir / "config.json") << text;
        return dir.string();
    }

    int m_made = 0;

    static void replace(std::string& text, const std::string& from, const std::string& to)
    {
        const std::size_t at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
    }

    std::string errorOf(const char* family, const std::function<void(std::string&)>& edit)
    {
        try {
            io::loadModel(folderWith(family, edit));
        } catch (const io::ModelError& e) {
            return e.what();
        }
        return "(opened)";
    }
};

TEST_F(LlamaConfig, ArchitecturesAloneNameTheFamily)
{
    const io::LoadedModel loaded = io::loadModel(folderWith("smollm", [](std::string& t) {
        replace(t, "\"model_type\": \"llama\"", "\"model_type\": \"smollm\"");
    }));
    EXPECT_EQ(loaded.layout->name(), "llama");
}

TEST_F(LlamaConfig, TransformersV5RopeParametersHoldThetaAndScaling)
{
    const io::LoadedModel loaded = io::loadModel(folderWith("llama3", [](std::string& t) {
        replace(t, "\"rope_scaling\": {",
                "\"rope_parameters\": {\"rope_theta\": 250000.0, \"rope_type\": \"llama3\", "
                "\"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, "
                "\"original_max_position_embeddings\": 64}, \"unused_scaling\": {");
    }));
    const engine::ModelConfig& c = loaded.model->config();
    EXPECT_EQ(c.ropeTheta, 250000.0);
    ASSERT_TRUE(c.ropeScaling);
    EXPECT_EQ(c.ropeScaling->kind, engine::RopeScaling::Kind::Llama3);
}

TEST_F(LlamaConfig, QwenWindowsNeedUseSlidingWindowAndFollowLayerTypes)
{
    const io::LoadedModel off = io::loadModel(folderWith("qwen2", [](std::string& t) {
        replace(t, "\"use_sliding_window\": true", "\"use_sliding_window\": false");
    }));
    EXPECT_FALSE(off.model->config().slidingWindow);
    const io::LoadedModel typed = io::loadModel(folderWith("qwen2", [](std::string& t) {
        replace(t, "\"max_window_layers\": 1",
                "\"max_window_layers\": 1, \"layer_types\": [\"sliding_attention\", "
                "\"full_attention\", \"sliding_attention\"]");
    }));
    EXPECT_EQ(typed.model->config().slidingWindowLayers, (std::vector<bool>{true, false, true}));
}

TEST_F(LlamaConfig, WhatCannotBeComputedIsRefusedInOneSentenceNamingIt)
{
    EXPECT_THAT(errorOf("llama3",
                        [](std::string& t) {
                            replace(t, "\"rope_type\": \"llama3\"", "\"rope_type\": \"yarn\"");
                        }),
                HasSubstr("\"rope_type\" is \"yarn\", a stretching of rotary positions AttnViz "
                          "does not compute"));
    EXPECT_THAT(errorOf("llama3",
                        [](std::string& t) {
                            replace(t, "\"high_freq_factor\": 4.0", "\"high_freq_factor\": 0.5");
                        }),
                HasSubstr("expected positive numbers with the high one larger"));
    EXPECT_THAT(errorOf("mistral",
                        [](std::string& t) {
                            replace(t, "\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\"");
                        }),
                HasSubstr("\"hidden_act\" is \"gelu\"; expected one of silu, swish"));
    EXPECT_THAT(errorOf("tinyllama",
                        [](std::string& t) {
                            replace(t, "\"tie_word_embeddings\": false",
                                    "\"tie_word_embeddings\": false, \"head_dim\": 6");
                        }),
                HasSubstr("has shape"));
    EXPECT_THAT(errorOf("llama3",
                        [](std::string& t) {
                            replace(t, "\"tie_word_embeddings\": true",
                                    "\"tie_word_embeddings\": false");
                        }),
                HasSubstr("has no tensor 'lm_head.weight'"));
    EXPECT_THAT(errorOf("qwen2",
                        [](std::string& t) {
                            replace(t, "\"max_window_layers\": 1",
                                    "\"max_window_layers\": 1, \"layer_types\": [\"full\"]");
                        }),
                HasSubstr("\"layer_types\" lists 1 entries; expected a list of 3 entries"));
}

} // namespace
} // namespace attnviz::test
