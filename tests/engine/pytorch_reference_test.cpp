// The engine against PyTorch: every case in tests/data/mha (made by
// tools/make_reference_cases.py with torch and, wherever it can express the case,
// torch.nn.MultiheadAttention; grouped K/V heads, rotary positions and sliding windows written
// from Hugging Face's definitions and checked a second way) is run through the engine, by the
// exact, the fused and the stage-by-stage pass, and every step the module computes is compared at
// the tolerance stated in support/tensor_compare.h; the reference holds exactly those steps.
#include "engine/attention_paths.h"
#include "engine/multi_head_attention.h"
#include "io/attention_case.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include <gtest/gtest.h>

#include <fstream>

namespace attnviz::test {
namespace {

const std::string kDataDir = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";

std::vector<std::string> caseNames()
{
    std::vector<std::string> names;
    std::ifstream listing(kDataDir + "cases.txt");
    for (std::string line; std::getline(listing, line);)
        if (!line.empty())
            names.push_back(line.substr(0, line.find('\t')));
    return names;
}

std::string fullyMaskedRowsText(const engine::AttentionTrace& t)
{
    std::string s = "[";
    for (const auto& r : t.fullyMaskedRows)
        s += (s.size() > 1 ? "," : "") +
            ("[" + std::to_string(r.batch) + "," + std::to_string(r.query) + "]");
    return s + "]";
}

class PyTorchReference : public ::testing::TestWithParam<std::string> { };

TEST_P(PyTorchReference, EveryStepMatches)
{
    const io::AttentionCase c = io::loadAttentionCase(
        io::SafetensorsFile::read(kDataDir + GetParam() + ".case.safetensors"));
    const engine::MultiHeadAttention module(c.weights, c.description);
    engine::AttentionOptions options;
    options.positions = c.positions;
    const io::SafetensorsFile expected =
        io::SafetensorsFile::read(kDataDir + GetParam() + ".expected.safetensors");
    for (const engine::AttentionPath path : kEveryPath) {
        SCOPED_TRACE(pathName(path));
        options.path = path;
        const engine::AttentionTrace trace =
            module.forward(c.query, c.key, c.value, c.mask, options);
        EXPECT_EQ(trace.path, path);
        for (const engine::AttentionStep step : engine::kAttentionSteps) {
            const std::string name(engine::stepName(step));
            ASSERT_EQ(trace.computes(step), expected.find(name) != nullptr) << "step " << name;
            EXPECT_EQ(trace.has(step), trace.computes(step)) << "step " << name;
            if (trace.computes(step)) {
                EXPECT_TRUE(tensorsNear(trace.step(step), tensorFrom(expected, name)))
                    << "step " << name;
            }
        }
        EXPECT_EQ(fullyMaskedRowsText(trace),
                  expected.metadata().find("fully_masked_rows")->asString());
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, PyTorchReference, ::testing::ValuesIn(caseNames()),
                         [](const auto& param) { return param.param; });

TEST(PyTorchReferenceData, CoversEveryRequiredCase)
{
    const std::vector<std::string> names = caseNames();
    for (const char* required : {"self_attention",
                                 "cross_attention",
                                 "batched",
                                 "causal",
                                 "valid_lens_per_batch",
                                 "valid_lens_per_query",
                                 "mask_shared",
                                 "mask_per_batch",
                                 "combined_masks",
                                 "no_bias",
                                 "single_head",
                                 "head_size_one",
                                 "pqk_ne_pv",
                                 "po_ne_hpv",
                                 "fully_masked_rows",
                                 "large_logits",
                                 "large_128",
                                 "d2l_example",
                                 "gqa",
                                 "mqa",
                                 "gqa_cross",
                                 "rope",
                                 "rope_positions",
                                 "rope_theta_small",
                                 "rope_gqa",
                                 "sliding_window",
                                 "sliding_window_one",
                                 "sliding_window_wide",
                                 "mistral_like",
                                 "qk_norm_per_head",
                                 "qk_norm_whole_projection",
                                 "qk_norm_gemma",
                                 "softcap",
                                 "softcap_small",
                                 "sinks",
                                 "sinks_fully_masked",
                                 "rope_partial",
                                 "alibi",
                                 "treatments_combined"})
        EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
}

TEST(PyTorchReferenceData, D2LExampleHasTheBooksOutputShape)
{
    // D2L 10.3: 100 hidden units, 5 heads, batch 2, 4 queries, 6 key-value pairs -> (2, 4, 100).
    const io::AttentionCase c =
        io::loadAttentionCase(io::SafetensorsFile::read(kDataDir + "d2l_example.case.safetensors"));
    const engine::AttentionTrace t = engine::MultiHeadAttention(c.weights, c.description)
                                         .forward(c.query, c.key, c.value, c.mask);
    EXPECT_EQ(t.output.shape(), (std::vector<std::int64_t>{2, 4, 100}));
    EXPECT_EQ(t.weights.shapeString(), "(batch=2, head=5, query=4, key=6)");
    // valid lengths [3, 2]: batch 1 attends to its first two keys only.
    EXPECT_EQ(t.weights.at({1, 0, 0, 2}), 0.0f);
    EXPECT_GT(t.weights.at({1, 0, 0, 1}), 0.0f);
}

} // namespace
} // namespace attnviz::test
