#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "lesson/valid_lengths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

using ::testing::HasSubstr;

std::vector<std::int64_t> lengthsOf(const std::string& text, const std::vector<int>& keys,
                                    std::size_t queries, bool perQuery)
{
    const auto parsed = parseValidLengths(text, keys, queries);
    const auto* lengths = std::get_if<engine::AttentionMask::ValidLengths>(&parsed);
    if (!lengths) {
        ADD_FAILURE() << text << ": " << std::get<std::string>(parsed);
        return {};
    }
    EXPECT_EQ(lengths->perQuery, perQuery) << text;
    return lengths->lengths;
}

std::string problemOf(const std::string& text, const std::vector<int>& keys, std::size_t queries)
{
    const auto parsed = parseValidLengths(text, keys, queries);
    return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
}

TEST(ValidLengths, D2LsSpellingsAllReadTheSame)
{
    using V = std::vector<std::int64_t>;
    for (const char* text : {"3, 2", "[3, 2]", "3 2", " [3,2] ", "3,,2"})
        EXPECT_EQ(lengthsOf(text, {4, 4}, 4, false), (V{3, 2})) << text;
    for (const char* text : {"[[1, 3], [2, 4]]", "1 3; 2 4", "[[1,3],[2,4]]", "1, 3; 2, 4;"})
        EXPECT_EQ(lengthsOf(text, {4, 4}, 2, true), (V{1, 3, 2, 4})) << text;
    EXPECT_EQ(lengthsOf("0", {5}, 5, false), (V{0})) << "a fully blocked item is allowed";
}

TEST(ValidLengths, EveryWrongFieldIsOneSentenceNamingWhatWasExpected)
{
    EXPECT_THAT(problemOf("3", {4, 4}, 4), HasSubstr("give 1 item but there are 2 sentences"));
    EXPECT_THAT(problemOf("3, 2, 1", {4}, 4), HasSubstr("give 3 items but there is 1 sentence"));
    EXPECT_THAT(problemOf("5, 2", {4, 4}, 4),
                HasSubstr("A valid length of 5 is more than the 4 keys of batch item 0"));
    EXPECT_THAT(problemOf("[[1, 2, 3], [1, 2]]", {4, 4}, 3),
                HasSubstr("The row of batch item 1 in the valid lengths has 2 lengths"));
    EXPECT_THAT(problemOf("-1, 2", {4, 4}, 4), HasSubstr("cannot be negative"));
    EXPECT_THAT(problemOf("three", {4}, 4), HasSubstr("whole numbers separated by commas"));
    EXPECT_THAT(problemOf("2.5", {4}, 4), HasSubstr("whole numbers"));
    EXPECT_THAT(problemOf("[3, 2", {4, 4}, 4), HasSubstr("never closed"));
    EXPECT_THAT(problemOf("3, 2]", {4, 4}, 4), HasSubstr("no [ to close"));
    EXPECT_THAT(problemOf("[[[1]]]", {4}, 1), HasSubstr("at most two levels"));
    EXPECT_THAT(problemOf("99999999999999999999999", {4}, 4), HasSubstr("far too large"));
    EXPECT_THAT(problemOf(" , ", {4}, 4), HasSubstr("Type one valid length per sentence"));
}

TEST(ValidLengths, TypedLengthsBlockTheKeysAfterThemInThePlayground)
{
    PlaygroundSettings s;
    s.querySentences = {"the cat sat down", "a dog ran off"};
    s.mask = MaskKind::ValidLengths;
    s.validLengths = "[3, 2]";
    ASSERT_TRUE(checkSettings(s).empty());
    const auto w = computePlayground(s);
    const engine::Tensor& weights = w->trace->weights;
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 4; ++h) {
            const auto m = weights.matrix({b, h});
            const Eigen::Index length = b == 0 ? 3 : 2;
            EXPECT_NEAR(m.leftCols(length).rowwise().sum().minCoeff(), 1.0f, 1e-5f);
            EXPECT_EQ(m.rightCols(4 - length).cwiseAbs().maxCoeff(), 0.0f);
        }
    const auto notes = maskNotes(*w);
    ASSERT_FALSE(notes.empty());
    EXPECT_THAT(notes.back(),
                HasSubstr("Valid lengths [3, 2]: item 0 sees keys 0–2; item 1 sees "
                          "keys 0–1"));
}

TEST(ValidLengths, PerQueryLengthsCutEachRowOnItsOwn)
{
    PlaygroundSettings s;
    s.querySentences = {"one two three", "four five six"};
    s.mask = MaskKind::ValidLengths;
    s.validLengths = "[[1, 3, 2], [2, 1, 3]]";
    ASSERT_TRUE(checkSettings(s).empty());
    const auto w = computePlayground(s);
    const int lengths[2][3] = {{1, 3, 2}, {2, 1, 3}};
    for (std::int64_t b = 0; b < 2; ++b) {
        const auto m = w->trace->weights.matrix({b, 0});
        for (Eigen::Index i = 0; i < 3; ++i)
            for (Eigen::Index j = 0; j < 3; ++j)
                EXPECT_EQ(m(i, j) > 0, j < lengths[b][i]) << b << "," << i << "," << j;
    }
    EXPECT_THAT(maskNotes(*w).back(), HasSubstr("[[1, 3, 2], [2, 1, 3]]"));
}

TEST(ValidLengths, ProblemsAreShownUnderTheFieldAndOnlyWhenTheMaskUsesIt)
{
    PlaygroundSettings s;
    s.querySentences = {"a b c"};
    s.validLengths = "7";
    EXPECT_TRUE(checkSettings(s).empty()) << "the field is ignored unless valid lengths are chosen";
    s.mask = MaskKind::ValidLengths;
    const auto problems = checkSettings(s);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].field, SettingsField::ValidLengths);
    s.validLengths.clear();
    EXPECT_TRUE(checkSettings(s).empty()) << "empty means each sentence's own length";
}

} // namespace
} // namespace attnviz::lesson
