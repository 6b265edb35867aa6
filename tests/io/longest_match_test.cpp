#include "io/tokenizer/longest_match.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace attnviz::io {
namespace {

using Strings = std::vector<std::pair<std::string, int>>;

LongestMatchFinder finderOf(const Strings& strings)
{
    std::vector<std::pair<std::string_view, int>> views(strings.begin(), strings.end());
    return LongestMatchFinder(views);
}

/// What the finder replaces: every string checked at every position, the first of the longest.
std::vector<LongestMatchFinder::Match> checkedOneByOne(const Strings& strings,
                                                       std::string_view text)
{
    std::vector<LongestMatchFinder::Match> matches(text.size());
    for (std::size_t pos = 0; pos < text.size(); ++pos)
        for (const auto& [s, value] : strings)
            if (!s.empty() && s.size() > matches[pos].length && text.substr(pos).starts_with(s))
                matches[pos] = {static_cast<std::uint32_t>(s.size()), value};
    return matches;
}

TEST(LongestMatchFinder, AgreesWithCheckingEveryStringAtEveryPosition)
{
    std::mt19937 rng(7);
    const auto randomText = [&](int length, std::string_view alphabet) {
        std::string text;
        for (int i = 0; i < length; ++i)
            text +=
                alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
        return text;
    };
    for (int round = 0; round < 200; ++round) {
        const std::string_view alphabet = round % 2 ? "ab" : "abc\xD0\xB6";
        Strings strings;
        const int count = std::uniform_int_distribution<int>(0, 30)(rng);
        for (int i = 0; i < count; ++i)
            strings.emplace_back(
                randomText(std::uniform_int_distribution<int>(0, 7)(rng), alphabet),
                i); // repeats and empty strings included
        const std::string text = randomText(300, alphabet);
        const std::vector<LongestMatchFinder::Match> found =
            finderOf(strings).longestStartingAt(text);
        const std::vector<LongestMatchFinder::Match> expected = checkedOneByOne(strings, text);
        ASSERT_EQ(found.size(), text.size());
        for (std::size_t pos = 0; pos < text.size(); ++pos) {
            ASSERT_EQ(found[pos].length, expected[pos].length)
                << "round " << round << " at " << pos;
            ASSERT_EQ(found[pos].value, expected[pos].value) << "round " << round << " at " << pos;
        }
    }
}

TEST(LongestMatchFinder, NoStringsMatchNowhere)
{
    const LongestMatchFinder none = finderOf({{"", 1}});
    EXPECT_TRUE(none.empty());
    for (const LongestMatchFinder::Match& m : none.longestStartingAt("abc"))
        EXPECT_EQ(m.length, 0u);
    EXPECT_TRUE(LongestMatchFinder().longestStartingAt("").empty());
}

// 2000 strings a…ab sharing their prefixes, over 100,000 a's: checked one by one, that is
// 10^5 positions × 2000 strings × up to 2000 bytes; the automaton reads each byte once.
TEST(LongestMatchFinder, StringsSharingLongPrefixesCostTheLengthOfTheText)
{
    Strings strings;
    for (int k = 1; k <= 2000; ++k)
        strings.emplace_back(std::string(static_cast<std::size_t>(k), 'a') + "b", k);
    const LongestMatchFinder finder = finderOf(strings);
    const std::string text = std::string(100'000, 'a') + "b";
    const std::vector<LongestMatchFinder::Match> found = finder.longestStartingAt(text);
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        const std::size_t rest = text.size() - pos;
        const bool matches = rest >= 2 && rest <= 2001;
        ASSERT_EQ(found[pos].length, matches ? rest : 0) << pos;
        ASSERT_EQ(found[pos].value, matches ? static_cast<int>(rest) - 1 : -1) << pos;
    }
}

} // namespace
} // namespace attnviz::io
