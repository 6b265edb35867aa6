#include "lesson/playground.h"
#include "lesson/step_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string joined(const std::vector<std::string>& notes)
{
    std::string text;
    for (const std::string& n : notes)
        text += n + "\n";
    return text;
}

TEST(MaskNotes, PaddingShowsTheLengthsAndWhatEachItemSees)
{
    PlaygroundSettings s;
    s.querySentences = {"the cat sat", "a dog", "hi"};
    const auto w = computePlayground(s);
    EXPECT_THAT(joined(maskNotes(*w)),
                HasSubstr("Valid lengths [3, 2, 1]: item 0 sees keys 0–2; item 1 sees keys 0–1; "
                          "item 2 sees key 0."));
    PlaygroundSettings one;
    EXPECT_THAT(maskNotes(*computePlayground(one)), IsEmpty());
}

TEST(MaskNotes, ACausalMaskOnCrossAttentionIsWarnedAbout)
{
    PlaygroundSettings s;
    s.querySentences = {"le chat"};
    s.keyValueSentences = {"the black cat"};
    s.mask = MaskKind::Causal;
    EXPECT_THAT(joined(maskNotes(*computePlayground(s))),
                HasSubstr("causal mask on cross-attention"));
    s.keyValueSentences = {};
    EXPECT_THAT(joined(maskNotes(*computePlayground(s))),
                ::testing::Not(HasSubstr("cross-attention")));
}

} // namespace
} // namespace attnviz::lesson
