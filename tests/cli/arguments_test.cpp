// The CLI's argument parsing as a unit (#9, #11): lists stay ranges, numbers are bounded, and
// every refusal is one sentence naming what was given.
#include "cli/arguments.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::cli {
namespace {

using ::testing::HasSubstr;

template <typename F> std::string usageError(F&& f)
{
    try {
        f();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

// A command with a value option, a text, a repeatable option with a second name, and a switch.
const CommandSpec kSpec{"mha",
                        "Usage: test",
                        "A test command.",
                        {{"--dump", "OUT", "where to write"},
                         {"--text", "T", "a text", false, true},
                         {"--text-file,--texts", "FILE", "texts\none per line", true},
                         {"--threads", "N", "threads"},
                         {"--quiet", "", "print nothing"}},
                        "Exit status: 0."};

Arguments parse(const std::vector<std::string>& args)
{
    return parseArguments(args, kSpec);
}

TEST(Arguments, OptionsFlagsAndPositionals)
{
    const Arguments a = parse({"x.case", "--dump", "out", "--quiet"});
    EXPECT_EQ(a.positional, std::vector<std::string>{"x.case"});
    EXPECT_EQ(a.value("--dump"), "out");
    EXPECT_TRUE(a.has("--quiet"));
    EXPECT_FALSE(a.has("--text"));
    EXPECT_THAT(usageError([] { parse({"--dump"}); }), HasSubstr("--dump needs a value"));
    EXPECT_THAT(usageError([] {
                    parse({"--dump", "a", "--dump", "b"});
                }),
                HasSubstr("--dump is given twice"));
    EXPECT_THAT(usageError([] { parse({"--bogus\n"}); }), HasSubstr("unknown option '--bogus\\n'"));
    // A prefix is not the option: scripts must keep working when options are added.
    EXPECT_THAT(usageError([] { parse({"--du", "x"}); }), HasSubstr("unknown option '--du'"));
}

TEST(Arguments, EqualsFormEmptyTextsAndRepeatedOptions)
{
    const Arguments a = parse({"--dump=out", "--text", "", "--texts", "a", "--text-file=b"});
    EXPECT_EQ(a.value("--dump"), "out");
    // An empty text is a text; an empty file name is a mistake to name.
    EXPECT_EQ(a.value("--text"), "");
    EXPECT_EQ(a.all("--text-file"), (std::vector<std::string>{"a", "b"}));
    EXPECT_THAT(usageError([] {
                    parse({"--dump", ""});
                }),
                HasSubstr("--dump is empty; expected a value"));
    // A value may look like an option or a negative number.
    EXPECT_EQ(parse({"--text", "-x"}).value("--text"), "-x");
    EXPECT_EQ(parse({"--text", "--quiet"}).value("--text"), "--quiet");
}

TEST(Arguments, HelpComesFromTheSameTable)
{
    const std::string help = helpText(kSpec);
    EXPECT_THAT(help, HasSubstr("Usage: test"));
    EXPECT_THAT(help, HasSubstr("  --text-file, --texts FILE"));
    // A continuation line starts in the help column.
    EXPECT_THAT(help, HasSubstr("texts\n                   one per line"));
    for (const OptionSpec& o : kSpec.options)
        EXPECT_THAT(help, HasSubstr(o.names.substr(0, o.names.find(','))));
}

TEST(Arguments, IntegersAreBoundedAndSpelledOut)
{
    const Arguments a = parse({"--threads", "100000"});
    EXPECT_EQ(usageError([&] { a.integer("--threads", 0, 0, 256); }),
              "--threads is '100000'; expected an integer from 0 to 256");
    const Arguments b = parse({"--threads", "4.0"});
    EXPECT_THAT(usageError([&] { b.integer("--threads", 0, 0, 256); }), HasSubstr("'4.0'"));
    const Arguments c = parse({"--threads", "2"});
    EXPECT_EQ(c.integer("--threads", 0, 0, 256), 2);
}

TEST(Arguments, IndexListsStayRangesWithoutExpanding)
{
    const lesson::IndexSet huge = indexList(std::string("0-2000000000"), "--heads");
    EXPECT_EQ(huge.firstAtOrAbove(4), 4);
    EXPECT_EQ(huge.within(4), (std::vector<int>{0, 1, 2, 3}));
    const lesson::IndexSet mixed = indexList(std::string("5, 1-2"), "--heads");
    EXPECT_EQ(mixed.within(8), (std::vector<int>{1, 2, 5}));
    EXPECT_TRUE(indexList(std::string("all"), "--heads").isAll());
    EXPECT_TRUE(indexList(std::nullopt, "--heads").isAll());
}

TEST(Arguments, BadIndexListsNameTheWholeItem)
{
    EXPECT_EQ(usageError([] { indexList(std::string("-1"), "--heads"); }),
              "--heads has '-1'; expected numbers from 0, ranges such as 0-3, or all");
    EXPECT_THAT(usageError([] { indexList(std::string("2147483645-2147483648"), "--heads"); }),
                HasSubstr("'2147483645-2147483648'"));
    EXPECT_THAT(usageError([] { indexList(std::string("3-1"), "--heads"); }),
                HasSubstr("empty range '3-1'"));
    EXPECT_THAT(usageError([] { indexList(std::string(","), "--heads"); }),
                HasSubstr("--heads is empty"));
    const lesson::IndexSet top =
        indexList(std::string("2147483645-2147483647"), "--heads"); // #11: once looped forever
    EXPECT_EQ(top.within(4), std::vector<int>{});
    EXPECT_EQ(top.firstAtOrAbove(4), 2147483645);
}

TEST(Arguments, StepAndBlockNamesComeFromTheTables)
{
    EXPECT_EQ(stepList(std::string("weights,q_proj"), {}),
              (std::vector<engine::AttentionStep>{engine::AttentionStep::Weights,
                                                  engine::AttentionStep::QProj}));
    EXPECT_EQ(stepList(std::string("all"), {}).size(), engine::kAttentionStepTable.size());
    EXPECT_THAT(usageError([] { stepList(std::string("softmax"), {}); }),
                HasSubstr("--steps has 'softmax'; expected q_proj, k_proj"));
    EXPECT_EQ(blockList(std::string("cross")), std::vector<engine::Block>{engine::Block::Cross});
    EXPECT_THAT(usageError([] { blockList(std::string("enc_ffn")); }),
                HasSubstr("expected self, masked_self or cross"));
}

} // namespace
} // namespace attnviz::cli
