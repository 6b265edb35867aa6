#include "io/json.h"

#include "engine/input_error.h"
#include "io/file_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::io {
namespace {

using ::testing::HasSubstr;

std::string errorOf(std::string_view text)
{
    try {
        parseJson(text);
    } catch (const JsonError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Json, ParsesNestedDocument)
{
    const JsonValue v = parseJson(R"( {"a": [1, -2.5e1, true, null], "b": {"c": "d\u00e9\n"}} )");
    ASSERT_TRUE(v.isObject());
    const JsonValue& a = *v.find("a");
    ASSERT_EQ(a.asArray().size(), 4u);
    EXPECT_TRUE(a.asArray()[0].isInteger());
    EXPECT_EQ(a.asArray()[0].asInteger(), 1);
    EXPECT_FALSE(a.asArray()[1].isInteger());
    EXPECT_DOUBLE_EQ(a.asArray()[1].asNumber(), -25.0);
    EXPECT_TRUE(a.asArray()[2].asBool());
    EXPECT_TRUE(a.asArray()[3].isNull());
    EXPECT_EQ(v.find("b")->find("c")->asString(), "d\xc3\xa9\n");
    EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, KeepsMemberOrder)
{
    const JsonValue v = parseJson(R"({"z": 1, "a": 2})");
    EXPECT_EQ(v.asObject()[0].first, "z");
    EXPECT_EQ(v.asObject()[1].first, "a");
}

TEST(Json, DecodesSurrogatePairs)
{
    EXPECT_EQ(parseJson(R"("\ud83d\ude00")").asString(), "\xf0\x9f\x98\x80");
    // Either half alone is refused rather than written out as invalid UTF-8.
    EXPECT_THAT(errorOf(R"("\ude00")"), HasSubstr("unpaired surrogate"));
    EXPECT_THAT(errorOf(R"("\ud83d x")"), HasSubstr("unpaired surrogate"));
}

TEST(Json, RejectsMalformedText)
{
    EXPECT_THAT(errorOf("{\"a\": 1,}"), HasSubstr("member name"));
    EXPECT_THAT(errorOf("[1, 2"), HasSubstr("expected ']'"));
    EXPECT_THAT(errorOf("{\"a\": 1} x"), HasSubstr("after the end"));
    EXPECT_THAT(errorOf("\"abc"), HasSubstr("unterminated string"));
    EXPECT_THAT(errorOf("01"), HasSubstr("leading zero"));
    EXPECT_THAT(errorOf("-"), HasSubstr("unexpected character"));
    EXPECT_THAT(errorOf(""), HasSubstr("unexpected end"));
    EXPECT_THAT(errorOf("{\"a\": 1, \"a\": 2}"), HasSubstr("duplicate member \"a\""));
    EXPECT_THAT(errorOf(std::string(100, '[')), HasSubstr("nesting deeper"));
}

// JSON is UTF-8: a stray byte, an overlong form, a surrogate written in UTF-8 or a cut
// character is refused where it stands (it reached labels and CSV files as invalid text).
TEST(Json, RefusesStringsThatAreNotUtf8)
{
    EXPECT_EQ(io::parseJson("\"caf\xc3\xa9 \xe4\xbd\xa0 \xf0\x9f\x98\x80\"").asString(),
              "caf\xc3\xa9 \xe4\xbd\xa0 \xf0\x9f\x98\x80");
    EXPECT_EQ(errorOf("[\"a\xff\"]"), "invalid UTF-8 inside a string at byte 3");
    EXPECT_EQ(errorOf("\"\xc0\xaf\""), "invalid UTF-8 inside a string at byte 1");
    EXPECT_EQ(errorOf("\"\xed\xa0\x80\""), "invalid UTF-8 inside a string at byte 1");
    EXPECT_EQ(errorOf("\"ab\xe4\xbd\""), "invalid UTF-8 inside a string at byte 3");
    EXPECT_EQ(errorOf("{\"\x80\": 1}"), "invalid UTF-8 inside a string at byte 2");
}

// #11: 4.0 was reported as 4. A number keeps no text (#45), so it is described by its shortest
// exact spelling, with a fraction if it was written with one.
TEST(Json, DescribesValuesExactlyAndEscaped)
{
    EXPECT_EQ(parseJson("4.0").describe(), "4.0");
    EXPECT_EQ(parseJson("4.000").describe(), "4.0");
    EXPECT_EQ(parseJson("4").describe(), "4");
    EXPECT_EQ(parseJson("1000000000").describe(), "1000000000");
    EXPECT_EQ(parseJson("-0.125").describe(), "-0.125");
    EXPECT_EQ(parseJson("1e9").describe(), "1e9");
    EXPECT_EQ(parseJson("1e+39").describe(), "1e39");
    EXPECT_EQ(parseJson("2.5E-07").describe(), "2.5e-7");
    EXPECT_EQ(parseJson("0.1").describe(), "0.1");
    EXPECT_EQ(parseJson("12345678901234567890").describe(), "1.2345678901234567e19");
    EXPECT_EQ(parseJson(R"("a\nb\u001b[31m")").describe(), R"("a\nb\x1b[31m")");
}

// #22 item 15: a long string was cut at 40 bytes, inside a character ("a中中…" printed \xe4\xb8).
TEST(Json, DescriptionsAreCutBetweenCharacters)
{
    std::string chinese;
    for (int i = 0; i < 30; ++i)
        chinese += "中";
    const std::string described = parseJson("\"a" + chinese + "\"").describe();
    EXPECT_EQ(described, "\"a中中中中中中中中中中中中中…\"");
    EXPECT_EQ(printable(described), described) << "valid UTF-8, nothing left to escape";
    EXPECT_EQ(parseJson("\"\\u009b31m" + std::string(100, 'x') + "\"").describe(),
              "\"\\u009b31m" + std::string(31, 'x') + "…\"");
}

// #22 item 17: the byte after a backslash was echoed raw: an ESC, a lone 0x9b, or the first byte
// of a right-to-left override (and not UTF-8 on its own).
TEST(Json, AnUnknownEscapeIsEchoedEscaped)
{
    EXPECT_EQ(errorOf(R"("a\q")"), "unknown escape \\q at byte 4");
    EXPECT_EQ(errorOf("\"a\\\u202e\""), "unknown escape \\\\u202e at byte 4");
    EXPECT_EQ(errorOf("\"a\\\x1b[31m\""), "unknown escape \\\\x1b at byte 4");
    EXPECT_EQ(errorOf("\"a\\\x9b\""), "unknown escape \\\\x9b at byte 4");
}

TEST(Json, ManyMembersParseInLinearTime) // #11: a quadratic duplicate check took minutes
{
    std::string text = "{";
    for (int i = 0; i < 300000; ++i)
        text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
    text += "}";
    EXPECT_EQ(parseJson(text).asObject().size(), 300000u);
}

// #45 item 5: the duplicate check sorts instead of hashing; the error still names the first
// repeat in the file, at the byte after its name.
TEST(Json, TheFirstRepeatedMemberIsNamedWhereItStands)
{
    EXPECT_EQ(errorOf(R"({"b": 1, "a": 2, "c": {"x": 1}, "a": 3, "b": 4})"),
              "duplicate member \"a\" at byte 35");
    EXPECT_EQ(errorOf(R"({"z": [{"k": 1, "k": 2}]})"), "duplicate member \"k\" at byte 19");
    EXPECT_EQ(errorOf(R"({"\u0061": 1, "a": 2})"), "duplicate member \"a\" at byte 17");
}

// The census sizes each container before it is built; a text it miscounts (malformed, cut
// short, deeper than allowed) must still parse or fail exactly as before.
TEST(Json, ContainersAreSizedFromTheCensusWhateverTheText)
{
    const JsonValue v = parseJson(R"([[], {}, [1, [2, 3], {"a": [4, "x,]}"]}], "[", {"b": {}}])");
    ASSERT_EQ(v.asArray().size(), 5u);
    EXPECT_EQ(v.asArray()[2].asArray()[2].find("a")->asArray()[1].asString(), "x,]}");
    EXPECT_EQ(v.asArray()[3].asString(), "[");
    EXPECT_THAT(errorOf("[1, 2, [3, 4"), HasSubstr("expected ']'"));
    EXPECT_THAT(errorOf("[\"a\\"), HasSubstr("unterminated"));
    EXPECT_THAT(errorOf("]]]"), HasSubstr("unexpected character"));
    EXPECT_THAT(errorOf(std::string(70, '[') + "1" + std::string(70, ']')),
                HasSubstr("nesting deeper than 64"));
}

// A copy is deep and a moved-from value is null: the 16-byte value owns its string or container.
TEST(Json, ValuesCopyAndMoveWhatTheyHold)
{
    JsonValue a = parseJson(R"({"list": [1, "two", {"three": 3}]})");
    JsonValue b = a;
    JsonValue c = std::move(a);
    EXPECT_TRUE(a.isNull());
    EXPECT_EQ(b.find("list")->asArray()[1].asString(), "two");
    EXPECT_EQ(c.find("list")->asArray()[2].find("three")->asInteger(), 3);
    b = c.find("list")->asArray()[1];
    EXPECT_EQ(b.asString(), "two");
    EXPECT_EQ(sizeof(JsonValue), 16u);
}

// #45 item 5: an 80 MB array of zeros took 3.7 GB. The memory a document takes is asked of the
// thread's scope before anything is built, and a refusal leaves nothing half built.
TEST(Json, TheScopeIsAskedTheParsingPeakBeforeAnythingIsBuilt)
{
    std::string zeros = "[";
    for (int i = 0; i < 1000000; ++i)
        zeros += i ? ",0" : "0";
    zeros += "]";
    std::uint64_t asked = 0;
    std::string what;
    {
        const JsonMemoryScope scope([&](std::uint64_t bytes, const std::string& name) {
            asked = bytes;
            what = name;
        });
        EXPECT_EQ(parseJson(zeros, "tokenizer.json").asArray().size(), 1000000u);
    }
    EXPECT_EQ(what, "tokenizer.json");
    // 16 bytes a value and the text itself: about nine bytes a byte of "0,", where it was fifty.
    EXPECT_GE(asked, zeros.size() + 1000000u * sizeof(JsonValue));
    EXPECT_LE(asked, zeros.size() + 1000000u * sizeof(JsonValue) + 4096);

    // Strings and members are counted too: long ones take a block of their own.
    std::string names = "{";
    for (int i = 0; i < 1000; ++i)
        names += (i ? ",\"" : "\"") + std::string(40, 'k') + std::to_string(i) + "\": \"" +
            std::string(30, 'v') + "\"";
    names += "}";
    asked = 0;
    {
        const JsonMemoryScope scope(
            [&](std::uint64_t bytes, const std::string&) { asked = bytes; });
        parseJson(names);
    }
    EXPECT_GE(asked,
              names.size() +
                  1000u * (sizeof(JsonValue::Object::value_type) + 2 * 40 + sizeof(std::string)));

    // Outside every scope nothing is asked; the innermost of two scopes is.
    int outerAsked = 0, innerAsked = 0;
    const JsonMemoryScope outer([&](std::uint64_t, const std::string&) { ++outerAsked; });
    {
        const JsonMemoryScope inner([&](std::uint64_t, const std::string&) {
            ++innerAsked;
            throw std::length_error("refused");
        });
        EXPECT_THROW(parseJson(zeros), std::length_error);
    }
    parseJson("[1]");
    EXPECT_EQ(innerAsked, 1);
    EXPECT_EQ(outerAsked, 1);
}

// Without a limit, a document that would take more than 768 MiB is refused all the same, from
// the count alone: 15 million empty arrays in 45 MB of text.
TEST(Json, NoDocumentMayTakeMoreThanItsCeiling)
{
    std::string empties = "[[]";
    empties.reserve(45u << 20);
    for (int i = 1; i < 15000000; ++i)
        empties += ",[]";
    empties += "]";
    try {
        parseJson(empties, "vocab.json");
        FAIL() << "parsed";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), ::testing::StartsWith("Reading vocab.json needs about "));
        EXPECT_THAT(e.what(), HasSubstr("no JSON file AttnViz reads may take more than 768 MiB."));
    }
}

} // namespace
} // namespace attnviz::io
