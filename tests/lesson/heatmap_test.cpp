#include "lesson/heatmap.h"

#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

TEST(WholeWord, JoinsTheWordPiecesAroundAToken)
{
    const std::vector<std::string> tokens{"[CLS]", "the", "play", "##ful", "##ness", "cat", "##s"};
    EXPECT_EQ(wholeWord(tokens, 2), "playfulness");
    EXPECT_EQ(wholeWord(tokens, 3), "playfulness");
    EXPECT_EQ(wholeWord(tokens, 4), "playfulness");
    EXPECT_EQ(wholeWord(tokens, 6), "cats");
    EXPECT_EQ(wholeWord(tokens, 1), std::nullopt); // a whole word
    EXPECT_EQ(wholeWord(tokens, 0), std::nullopt);
    EXPECT_EQ(wholeWord(tokens, 7), std::nullopt); // past the end
    EXPECT_EQ(wholeWord(tokens, -1), std::nullopt);
    // A piece with nothing before it stands for itself and what follows.
    EXPECT_EQ(wholeWord({"##a", "##b"}, 1), "##ab");
}

} // namespace
} // namespace attnviz::lesson
