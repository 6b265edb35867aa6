#include "engine/attention_mistakes.h"
#include "engine/input_error.h"
#include "engine/resolved_mask.h"

#include "io/attention_case.h"
#include "io/safetensors.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace attnviz::engine {
namespace {

const std::string kData = ATTNVIZ_TEST_DATA_DIR;

class MistakeReference : public ::testing::TestWithParam<const char*> { };

// Every mistake against the same mistake written in PyTorch (tools/make_mistake_references.py):
// the masked scores, the weights, the context and the output.
TEST_P(MistakeReference, EveryMistakeMatchesTheMistakenPyTorchCode)
{
    const std::string name = GetParam();
    const io::AttentionCase c = io::loadAttentionCase(
        io::SafetensorsFile::read(kData + "/mha/" + name + ".case.safetensors"));
    const MultiHeadAttention mha(c.weights, c.description);
    const auto expected = io::SafetensorsFile::read(kData + "/mistakes/" + name + ".safetensors");
    const AttentionTrace right = mha.forward(c.query, c.key, c.value, c.mask);
    for (const AttentionMistakeInfo& info : kAttentionMistakeTable) {
        SCOPED_TRACE(std::string(info.name));
        const MistakenPass pass =
            forwardWithMistake(mha, c.query, c.key, c.value, c.mask, info.mistake);
        const std::string prefix = std::string(info.name) + ".";
        EXPECT_TRUE(
            test::tensorsNear(pass.trace.masked, test::tensorFrom(expected, prefix + "masked")));
        EXPECT_TRUE(
            test::tensorsNear(pass.trace.weights, test::tensorFrom(expected, prefix + "weights")));
        EXPECT_TRUE(
            test::tensorsNear(pass.trace.context, test::tensorFrom(expected, prefix + "context")));
        EXPECT_TRUE(
            test::tensorsNear(pass.trace.output, test::tensorFrom(expected, prefix + "output")));
        // every step before the first wrong one is the correct pass's, bit for bit
        for (const AttentionStepInfo& step : kAttentionStepTable) {
            if (step.step == firstWrongStep(info))
                break;
            const auto a = pass.trace.step(step.step).values(), b = right.step(step.step).values();
            EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << step.name;
        }
        // and the first wrong step differs, unless the case has no mask for a mask mistake
        const auto a = pass.trace.step(firstWrongStep(info)).values();
        const auto b = right.step(firstWrongStep(info)).values();
        const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end());
        const bool onlyFullyMaskedRows = info.mistake == AttentionMistake::FullyMaskedRowsAsNaN;
        if ((c.mask.any() || info.mistake == AttentionMistake::InvertedMask ||
             firstWrongStep(info) != AttentionStep::Masked) &&
            (!onlyFullyMaskedRows || !right.fullyMaskedRows.empty())) {
            EXPECT_FALSE(same) << "the first wrong step is the correct one";
        }
    }
}

// Dividing by 1 is PyTorch's "no scaling" (the scaling experiment's divisor control).
TEST_P(MistakeReference, ADivisorOfOneIsPyTorchWithoutScaling)
{
    const std::string name = GetParam();
    const io::AttentionCase c = io::loadAttentionCase(
        io::SafetensorsFile::read(kData + "/mha/" + name + ".case.safetensors"));
    AttentionDescription d = c.description;
    d.scoreScale = 1.0;
    const AttentionTrace t =
        MultiHeadAttention(c.weights, d).forward(c.query, c.key, c.value, c.mask);
    const auto expected = io::SafetensorsFile::read(kData + "/mistakes/" + name + ".safetensors");
    EXPECT_TRUE(test::tensorsNear(t.weights, test::tensorFrom(expected, "no_scaling.weights")));
    EXPECT_TRUE(test::tensorsNear(t.output, test::tensorFrom(expected, "no_scaling.output")));
}

INSTANTIATE_TEST_SUITE_P(Cases, MistakeReference,
                         ::testing::Values("combined_masks", "causal", "pqk_ne_pv",
                                           "fully_masked_rows"));

TEST(AttentionMistakes, TheAppliedMaskBlocksExactlyTheMinusInfinityCells)
{
    const io::AttentionCase c = io::loadAttentionCase(
        io::SafetensorsFile::read(kData + "/mha/combined_masks.case.safetensors"));
    const MultiHeadAttention mha(c.weights, c.description);
    for (const AttentionMistakeInfo& info : kAttentionMistakeTable) {
        SCOPED_TRACE(std::string(info.name));
        const MistakenPass pass =
            forwardWithMistake(mha, c.query, c.key, c.value, c.mask, info.mistake);
        const ResolvedMask applied(pass.appliedMask, 2, 6, 6);
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t h = 0; h < 4; ++h)
                for (std::int64_t i = 0; i < 6; ++i)
                    for (std::int64_t j = 0; j < 6; ++j)
                        ASSERT_EQ(applied.blocked(b, i, j),
                                  std::isinf(pass.trace.masked.at({b, h, i, j})));
    }
}

TEST(AttentionMistakes, NamesRoundTripAndAWrongMaskIsRefusedFirst)
{
    for (const AttentionMistakeInfo& info : kAttentionMistakeTable)
        EXPECT_EQ(mistakeFromName(info.name), info.mistake);
    EXPECT_EQ(mistakeFromName("no_such_mistake"), std::nullopt);
    const io::AttentionCase c =
        io::loadAttentionCase(io::SafetensorsFile::read(kData + "/mha/causal.case.safetensors"));
    const MultiHeadAttention mha(c.weights, c.description);
    AttentionMask wrong;
    wrong.validLengths = AttentionMask::ValidLengths{{1, 2, 3}, false};
    EXPECT_THROW(
        forwardWithMistake(mha, c.query, c.key, c.value, wrong, AttentionMistake::InvertedMask),
        InputError);
}

} // namespace
} // namespace attnviz::engine
