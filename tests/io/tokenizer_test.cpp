#include "support/hf_tokenizer_files.h"

#include "io/json.h"
#include "io/safetensors.h"
#include "io/tokenizer/bert_pre_tokenizer.h"
#include "io/tokenizer/byte_level_bpe.h"
#include "io/tokenizer/gpt2_pre_tokenizer.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"
#include "io/tokenizer/utf8.h"
#include "io/tokenizer/word_piece.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

namespace attnviz::io {
namespace {

using test::bertTokenizerJson;
using test::gpt2TokenizerJson;
using test::jsonString;
using test::lines;
using test::readData;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// One text of tests/data/tokenizers/*_reference.json and what Hugging Face made of it.
struct ReferenceCase {
    std::string text;
    std::vector<int> ids;
    std::string decoded; ///< BERT only
};

std::vector<ReferenceCase> readReference(const std::string& name)
{
    std::vector<ReferenceCase> cases;
    const JsonValue document = parseJson(readData("tokenizers/" + name));
    for (const JsonValue& entry : document.find("cases")->asArray()) {
        ReferenceCase c{entry.find("text")->asString(), {}, {}};
        for (const JsonValue& id : entry.find("ids")->asArray())
            c.ids.push_back(static_cast<int>(id.asInteger()));
        if (const JsonValue* decoded = entry.find("decoded"))
            c.decoded = decoded->asString();
        cases.push_back(std::move(c));
    }
    return cases;
}

const ByteLevelBpe& gpt2()
{
    static const ByteLevelBpe tokenizer = ByteLevelBpe::fromVocabAndMerges(
        readData("hf/gpt2/vocab.json"), readData("hf/gpt2/merges.txt"));
    return tokenizer;
}

const WordPiece& bert()
{
    static const WordPiece tokenizer = WordPiece::fromVocabTxt(readData("hf/bert/vocab.txt"));
    return tokenizer;
}

/// A vocab.json holding GPT-2's 256 byte symbols (ids 0-255) and then `extra` tokens.
std::string byteVocabJson(const std::vector<std::string>& extra = {})
{
    std::string json = "{";
    int id = 0;
    char32_t next = 0x100;
    for (char32_t b = 0; b < 256; ++b) {
        const bool visible =
            (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        std::string symbol;
        appendUtf8(symbol, visible ? b : next++);
        json += (id == 0 ? "" : ",") + jsonString(symbol) + ":" + std::to_string(id);
        ++id;
    }
    for (const std::string& token : extra)
        json += "," + jsonString(token) + ":" + std::to_string(id++);
    return json + "}";
}

std::string errorOf(const std::function<void()>& load)
{
    try {
        load();
    } catch (const FormatError& e) {
        return e.what();
    }
    return "no error";
}

std::vector<std::string> tokenStrings(const ByteLevelBpe& tokenizer, std::string_view text)
{
    std::vector<std::string> out;
    for (const int id : tokenizer.encode(text))
        out.push_back(tokenizer.token(id));
    return out;
}

std::string randomBytes(std::mt19937& rng, std::size_t size)
{
    std::uniform_int_distribution<int> byte(0, 255);
    std::string bytes(size, '\0');
    for (char& c : bytes)
        c = static_cast<char>(byte(rng));
    return bytes;
}

// ---- the reference data itself

TEST(TokenizerReferences, CoverEveryRequiredCase)
{
    const std::vector<ReferenceCase> cases = readReference("gpt2_reference.json");
    const auto has = [&](const std::function<bool(const std::string&)>& wanted) {
        return std::any_of(cases.begin(), cases.end(),
                           [&](const ReferenceCase& c) { return wanted(c.text); });
    };
    const auto contains = [&](std::string_view part) {
        return has([&](const std::string& t) { return t.find(part) != std::string::npos; });
    };
    EXPECT_TRUE(has([](const std::string& t) { return t.empty(); }));
    EXPECT_TRUE(has([](const std::string& t) { return t.size() >= 2000; }));
    EXPECT_TRUE(has([](const std::string& t) { return t.size() > 100 && t.find(' ') == t.npos; }));
    for (const std::string_view part :
         {"Hello world",   " Hello world", "  ",      "\t",       "\n\n",
          " \n ",          "don't",        "I'LL",    "!!!",      "31415926535",
          "café",          "naïve",        "Ünïcödé", "Ångström", "中文分词",
          "日本語",        "한국어",       "😀",       "Привет",   "\x1B",
          "<|endoftext|>", "[MASK]"})
        EXPECT_TRUE(contains(part)) << part;
    EXPECT_TRUE(contains(std::string_view("\0", 1)));
    EXPECT_EQ(readReference("bert_reference.json").size(), cases.size());
}

// ---- GPT-2

TEST(ByteLevelBpe, GivesTheWellKnownIds)
{
    EXPECT_THAT(gpt2().encode("Hello world"), ElementsAre(15496, 995));
    EXPECT_THAT(gpt2().encode(" Hello world"), ElementsAre(18435, 995));
    EXPECT_THAT(gpt2().encode("<|endoftext|>"), ElementsAre(50256));
    EXPECT_TRUE(gpt2().encode("").empty());
    EXPECT_EQ(gpt2().size(), 50257);
}

TEST(ByteLevelBpe, MatchesReferenceIds)
{
    for (const ReferenceCase& c : readReference("gpt2_reference.json"))
        EXPECT_EQ(gpt2().encode(c.text), c.ids) << ::testing::PrintToString(c.text);
}

TEST(ByteLevelBpe, TokenizerJsonGivesTheSameIds)
{
    const ByteLevelBpe fromStrings = ByteLevelBpe::fromTokenizerJson(gpt2TokenizerJson(false));
    const ByteLevelBpe fromPairs = ByteLevelBpe::fromTokenizerJson(gpt2TokenizerJson(true));
    for (const ReferenceCase& c : readReference("gpt2_reference.json")) {
        EXPECT_EQ(fromStrings.encode(c.text), c.ids) << ::testing::PrintToString(c.text);
        EXPECT_EQ(fromPairs.encode(c.text), c.ids) << ::testing::PrintToString(c.text);
    }
}

TEST(ByteLevelBpe, DecodeInvertsEncodeOnValidUtf8)
{
    for (const ReferenceCase& c : readReference("gpt2_reference.json"))
        EXPECT_EQ(gpt2().decode(c.ids), c.text) << ::testing::PrintToString(c.text);
}

TEST(ByteLevelBpe, InvalidUtf8BytesAreTokenizedAsBytes)
{
    // An invalid byte is a character outside \s, \p{L} and \p{N}; 0xFF's symbol is "ÿ".
    EXPECT_THAT(tokenStrings(gpt2(),
                             "a\xFF"
                             "b"),
                ElementsAre("a", "ÿ", "b"));
    // A truncated sequence after a space joins the space like punctuation does.
    EXPECT_EQ(tokenStrings(gpt2(), "caf \xC3").back(), "ĠÃ");
    for (const std::string text : {"a\xFF"
                                   "b",
                                   "caf \xC3", "\xED\xA0\x80 surrogate", "\xC0\x80 overlong",
                                   "\xF4\x90\x80\x80 too big", "\x80\x80\x80"})
        EXPECT_EQ(gpt2().decode(gpt2().encode(text)), text) << ::testing::PrintToString(text);
}

TEST(ByteLevelBpe, DecodeInvertsEncodeOnAnyBytes)
{
    std::mt19937 rng(7);
    for (int i = 0; i < 200; ++i) {
        const std::string bytes = randomBytes(rng, static_cast<std::size_t>(i));
        EXPECT_EQ(gpt2().decode(gpt2().encode(bytes)), bytes);
    }
}

TEST(ByteLevelBpe, HugeAndOddInputDoesNotCrash)
{
    std::mt19937 rng(11);
    const std::string noise = randomBytes(rng, 1 << 20);
    EXPECT_EQ(gpt2().decode(gpt2().encode(noise)), noise);
    // One word of a million spaces or letters: the merge heap keeps this O(n log n).
    for (const char c : {' ', 'a', '\0'}) {
        const std::string run(1 << 20, c);
        EXPECT_EQ(gpt2().decode(gpt2().encode(run)), run);
    }
    std::string partial;
    for (int i = 0; i < 20000; ++i)
        partial += "<|endoftext<|endoftext|>";
    EXPECT_EQ(gpt2().decode(gpt2().encode(partial)), partial);
}

TEST(ByteLevelBpe, DisplayTokenShowsWhatPeopleRead)
{
    const auto shown = [](std::string_view token) {
        const std::optional<int> id = gpt2().id(token);
        return id ? gpt2().displayToken(*id) : "no token " + std::string(token);
    };
    EXPECT_EQ(shown("Ġworld"), "␣world");
    EXPECT_EQ(shown("Ġ"), "␣");
    EXPECT_EQ(shown("Ċ"), "↵");
    EXPECT_EQ(shown("ĊĊ"), "↵↵");
    EXPECT_EQ(shown("ĉ"), "⇥");
    EXPECT_EQ(shown("Ā"), "\\x00");
    EXPECT_EQ(shown("ä¸Ń"), "中");
    EXPECT_EQ(shown("æĸ"), "\\xE6\\x96"); // the first two bytes of 文
    EXPECT_EQ(shown("<|endoftext|>"), "<|endoftext|>");
    EXPECT_EQ(gpt2().token(995), "Ġworld");
}

TEST(ByteLevelBpe, UnknownIdsAreRefused)
{
    EXPECT_THROW(gpt2().decode({-1}), std::out_of_range);
    EXPECT_THROW(gpt2().token(50257), std::out_of_range);
    EXPECT_THROW(gpt2().displayToken(50257), std::out_of_range);
}

TEST(ByteLevelBpe, MergesApplyLowestRankFirst)
{
    const std::string vocab = byteVocabJson({"ab", "bc"});
    const ByteLevelBpe bcFirst = ByteLevelBpe::fromVocabAndMerges(vocab, "b c\na b\n");
    const ByteLevelBpe abFirst =
        ByteLevelBpe::fromVocabAndMerges(vocab, "#version: 0.2\r\na b\r\nb c");
    EXPECT_THAT(tokenStrings(bcFirst, "abc"), ElementsAre("a", "bc"));
    EXPECT_THAT(tokenStrings(abFirst, "abc"), ElementsAre("ab", "c"));
    EXPECT_THAT(tokenStrings(abFirst, "ababab"), ElementsAre("ab", "ab", "ab"));
    EXPECT_EQ(abFirst.size(), 258);
}

TEST(ByteLevelBpe, RefusesMalformedVocabAndMerges)
{
    const auto error = [](std::string_view vocab, std::string_view merges) {
        return errorOf([&] { ByteLevelBpe::fromVocabAndMerges(vocab, merges); });
    };
    const std::string bytes = byteVocabJson({"ab"});
    EXPECT_THAT(error("{", ""), HasSubstr("vocab.json is not valid JSON: "));
    EXPECT_EQ(error("[]", ""), "vocab.json is an array; expected an object of tokens and ids");
    EXPECT_EQ(error(R"({"a": "x"})", ""),
              "vocab.json gives \"a\" the id \"x\"; expected a whole number from 0");
    EXPECT_EQ(error(R"({"a": 1.5})", ""),
              "vocab.json gives \"a\" the id 1.5; expected a whole number from 0");
    EXPECT_EQ(error(R"({"a": 0, "b": 0})", ""),
              "vocab.json gives the id 0 to both \"a\" and \"b\"");
    EXPECT_EQ(
        error(R"({"a": 0, "b": 2})", ""),
        "vocab.json gives \"b\" the id 2, past its 2 tokens; expected ids from 0 without gaps");
    EXPECT_EQ(error(R"({"a": 0})", ""),
              "vocab.json lacks \"Ā\", the symbol of byte 0x00; expected all 256 byte symbols of "
              "GPT-2's alphabet");
    EXPECT_EQ(error(bytes, "#version: 0.2\na b\nab\n"),
              "merges.txt line 3 has 1 token; expected two tokens separated by a space");
    EXPECT_EQ(error(bytes, "a b c\n"),
              "merges.txt line 1 has 3 tokens; expected two tokens separated by a space");
    EXPECT_EQ(error(bytes, "a  b\n"),
              "merges.txt line 1 has 2 tokens; expected two tokens separated by a space");
    EXPECT_EQ(error(bytes, "a b\n\n"),
              "merges.txt line 2 has 0 tokens; expected two tokens separated by a space");
    EXPECT_EQ(error(bytes, "a b\nb c\n"),
              "merges.txt line 2 merges \"b\" and \"c\"; expected it and its parts in vocab.json");
}

TEST(ByteLevelBpe, RefusesTokenizerJsonItCannotReproduce)
{
    const auto error = [](const std::string& json) {
        return errorOf([&] { ByteLevelBpe::fromTokenizerJson(json); });
    };
    const std::string model = R"("model":{"type":"BPE","vocab":)" + byteVocabJson({"ab"});
    const std::string byteLevel =
        R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false})";
    EXPECT_THAT(error("{"), HasSubstr("tokenizer.json is not valid JSON: "));
    EXPECT_EQ(error("[]"),
              "tokenizer.json has no \"model\" object; expected a Hugging Face "
              "tokenizer file");
    EXPECT_EQ(error(R"({"model":{"type":"WordPiece"}})"),
              "tokenizer.json's model type is \"WordPiece\"; expected \"BPE\"");
    EXPECT_EQ(error("{" + model + R"(,"merges":[]},"pre_tokenizer":{"type":"Metaspace"}})"),
              "tokenizer.json's pre-tokenizer is Metaspace; expected ByteLevel, as in GPT-2");
    EXPECT_EQ(error("{" + model + R"(,"merges":[]}})"),
              "tokenizer.json's pre-tokenizer is none; expected ByteLevel, as in GPT-2");
    EXPECT_EQ(
        error("{" + model +
              R"(,"merges":[]},"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":true}})"),
        "tokenizer.json's ByteLevel pre-tokenizer adds a prefix space or skips the regex; "
        "expected add_prefix_space false and use_regex true, as in GPT-2");
    EXPECT_EQ(
        error("{" + model + R"(,"merges":[]},"normalizer":{"type":"NFC"},)" + byteLevel + "}"),
        "tokenizer.json has a NFC normalizer; expected none, as in GPT-2");
    EXPECT_EQ(error("{" + model + R"(,"merges":[],"ignore_merges":true},)" + byteLevel + "}"),
              "tokenizer.json's BPE model sets ignore_merges, dropout or a subword prefix or "
              "suffix; expected GPT-2's plain merges");
    EXPECT_EQ(error("{" + model + "}," + byteLevel + "}"),
              "tokenizer.json's model has no \"merges\" array; expected the BPE merges");
    EXPECT_EQ(error("{" + model + R"(,"merges":["a b",[1,2]]},)" + byteLevel + "}"),
              "tokenizer.json's merge 2 is an array; expected \"left right\" or [\"left\", "
              "\"right\"]");
    EXPECT_EQ(error("{" + model + R"(,"merges":["a b"]},)" + byteLevel +
                    R"(,"added_tokens":[{"id":3,"content":"ab"}]})"),
              "tokenizer.json's added token \"ab\" has id 3; expected its vocabulary id 256");
    EXPECT_EQ(error("{" + model + R"(,"merges":["a b"]},)" + byteLevel +
                    R"(,"added_tokens":[{"id":300,"content":"<new>"}]})"),
              "tokenizer.json's added token \"<new>\" has id 300; expected the next free id 257");
}

TEST(ByteLevelBpe, AddedTokensFromTokenizerJsonAreSpecial)
{
    const ByteLevelBpe tokenizer = ByteLevelBpe::fromTokenizerJson(
        R"({"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","merges":["a b"],)"
        R"("vocab":)" +
        byteVocabJson({"ab"}) + R"(},"added_tokens":[{"id":257,"content":"<new>"}]})");
    EXPECT_EQ(tokenizer.size(), 258);
    EXPECT_THAT(tokenStrings(tokenizer, "ab<new>a"), ElementsAre("ab", "<new>", "a"));
}

TEST(Gpt2PreTokenizer, SplitsLikeTheRegex)
{
    EXPECT_THAT(gpt2Words("Hello  world\n\n x"), ElementsAre("Hello", " ", " world", "\n\n", " x"));
    EXPECT_THAT(gpt2Words("I'LL don't 're"), ElementsAre("I", "'", "LL", " don", "'t", " '", "re"));
    EXPECT_THAT(gpt2Words("a\t b  "), ElementsAre("a", "\t", " b", "  "));
    EXPECT_THAT(gpt2Words(" 123abc!?"), ElementsAre(" 123", "abc", "!?"));
    EXPECT_TRUE(gpt2Words("").empty());
}

// ---- BERT

TEST(WordPiece, GivesTheWellKnownIds)
{
    EXPECT_THAT(bert().encode("hello world"), ElementsAre(101, 7592, 2088, 102));
    EXPECT_THAT(bert().encodeWithoutSpecialTokens("Hello World"), ElementsAre(7592, 2088));
    EXPECT_THAT(bert().encode(""), ElementsAre(101, 102));
    EXPECT_EQ(bert().size(), 30522);
}

TEST(WordPiece, MatchesReferenceIdsAndDecoding)
{
    for (const ReferenceCase& c : readReference("bert_reference.json")) {
        EXPECT_EQ(bert().encode(c.text), c.ids) << ::testing::PrintToString(c.text);
        EXPECT_EQ(bert().decode(c.ids), c.decoded) << ::testing::PrintToString(c.text);
    }
}

TEST(WordPiece, TokenizerJsonGivesTheSameIds)
{
    const WordPiece tokenizer = WordPiece::fromTokenizerJson(bertTokenizerJson());
    for (const ReferenceCase& c : readReference("bert_reference.json"))
        EXPECT_EQ(tokenizer.encode(c.text), c.ids) << ::testing::PrintToString(c.text);
}

TEST(WordPiece, InvalidUtf8IsDroppedLikeTheReplacementCharacter)
{
    const std::vector<int> joined = bert().encode("helloworld");
    EXPECT_EQ(bert().encode("hello\xFFworld"), joined);
    EXPECT_EQ(bert().encode("hello\xEF\xBF\xBDworld"), joined); // U+FFFD itself
    EXPECT_EQ(bert().encode("hello\xE4\xB8world"), joined); // 中 cut short
    EXPECT_EQ(bert().encode("caf\xC3"), bert().encode("caf"));
}

TEST(WordPiece, WordsPastHundredCharactersAreUnknown)
{
    const std::string known(100, 'a');
    EXPECT_NE(bert().encodeWithoutSpecialTokens(known), std::vector<int>{100});
    EXPECT_THAT(bert().encodeWithoutSpecialTokens(known + "a"), ElementsAre(100));
    // 100 characters, not bytes: 100 two-byte letters are still split into pieces
    std::string accented;
    for (int i = 0; i < 100; ++i)
        accented += "\xC3\xA9";
    EXPECT_NE(bert().encodeWithoutSpecialTokens(accented), std::vector<int>{100});
}

TEST(WordPiece, DisplayTokenKeepsTheContinuationMark)
{
    EXPECT_EQ(bert().displayToken(2226), "##u");
    EXPECT_EQ(bert().displayToken(101), "[CLS]");
    EXPECT_EQ(bert().token(7592), "hello");
    EXPECT_EQ(bert().id("##ing"), 2075);
    EXPECT_THROW(bert().token(30522), std::out_of_range);
}

TEST(WordPiece, HugeAndOddInputDoesNotCrash)
{
    std::mt19937 rng(13);
    EXPECT_GT(bert().encode(randomBytes(rng, 1 << 20)).size(), 2u);
    EXPECT_THAT(bert().encode(std::string(1 << 20, 'a')), ElementsAre(101, 100, 102));
    EXPECT_THAT(bert().encode(std::string(1 << 20, ' ')), ElementsAre(101, 102));
    EXPECT_EQ(bert().encode(std::string(1 << 16, '!')).size(), (1u << 16) + 2);
}

/// WordPiece as its definition reads: at each start, try every end from the last, longest first
/// (ends between characters only).
std::vector<int> piecesTriedOneByOne(const WordPiece& tokenizer, const std::string& word)
{
    std::vector<int> ids;
    for (std::size_t start = 0; start < word.size();) {
        std::size_t end = word.size();
        std::optional<int> id;
        for (; end > start; --end)
            if ((end == word.size() || (static_cast<unsigned char>(word[end]) & 0xC0) != 0x80) &&
                (id = tokenizer.id((start > 0 ? "##" : "") + word.substr(start, end - start))))
                break;
        if (!id)
            return {*tokenizer.id("[UNK]")};
        ids.push_back(*id);
        start = end;
    }
    return ids;
}

TEST(WordPiece, PiecesAgreeWithTryingEveryLengthFromTheLongest)
{
    // Letters of one and two bytes, and tokens ending inside a character, which can never be
    // a piece of a word.
    const std::vector<std::string> letters = {"a", "b", "\xD0\xB6"};
    std::mt19937 rng(11);
    const auto randomWord = [&](int length) {
        std::string word;
        for (int i = 0; i < length; ++i)
            word += letters[std::uniform_int_distribution<std::size_t>(0, letters.size() - 1)(rng)];
        return word;
    };
    for (int round = 0; round < 50; ++round) {
        std::string vocab = "[UNK]\n[CLS]\n[SEP]\n\xD0\n##\xD0\na\xD0\n";
        for (int i = 0; i < 40; ++i)
            vocab += (i % 2 ? "##" : "") +
                randomWord(std::uniform_int_distribution<int>(1, 5)(rng)) + "\n";
        const WordPiece tokenizer = WordPiece::fromVocabTxt(vocab);
        for (int w = 0; w < 40; ++w) {
            const std::string word = randomWord(std::uniform_int_distribution<int>(1, 30)(rng));
            ASSERT_EQ(tokenizer.encodeWithoutSpecialTokens(word),
                      piecesTriedOneByOne(tokenizer, word))
                << ::testing::PrintToString(word) << " in round " << round;
        }
    }
}

// One 20,000-letter token and no limit on a word's length: each of a 20,000-letter word's
// positions tried every length down from 20,000 (minutes); pieces now cost the word's length.
TEST(WordPiece, ALongTokenAndNoWordLimitCostTheLengthOfTheWord)
{
    const std::string longToken(20'000, 'a');
    std::string json = bertTokenizerJson();
    const std::string limit = R"("max_input_chars_per_word":100,"vocab":{)";
    json.replace(json.find(limit), limit.size(),
                 R"("max_input_chars_per_word":1000000000,"vocab":{")" + longToken + R"(":30522,)");
    const WordPiece tokenizer = WordPiece::fromTokenizerJson(json);
    EXPECT_THAT(tokenizer.encodeWithoutSpecialTokens(longToken), ElementsAre(30522));
    EXPECT_THAT(tokenizer.encodeWithoutSpecialTokens(longToken + "a"),
                ElementsAre(30522, *tokenizer.id("##a")));
    const std::string word = "b" + std::string(19'999, 'a');
    const std::vector<int> ids = tokenizer.encodeWithoutSpecialTokens(word);
    EXPECT_TRUE(std::all_of(ids.begin() + 1, ids.end(),
                            [&](int id) { return tokenizer.token(id).starts_with("##"); }));
    EXPECT_EQ(tokenizer.decode(ids), word);
}

TEST(WordPiece, RefusesMalformedFiles)
{
    const auto fromVocab = [](std::string_view text) {
        return errorOf([&] { WordPiece::fromVocabTxt(text); });
    };
    const auto fromJson = [](const std::string& json) {
        return errorOf([&] { WordPiece::fromTokenizerJson(json); });
    };
    EXPECT_EQ(fromVocab(""), "vocab.txt has no tokens; expected one token per line");
    EXPECT_EQ(fromVocab("[UNK]\n[SEP]\nhello\n"),
              "vocab.txt lacks [CLS]; expected BERT's special tokens [UNK], [CLS] and [SEP]");
    EXPECT_EQ(fromVocab("[CLS]\n[SEP]\n"),
              "vocab.txt lacks [UNK]; expected BERT's special tokens [UNK], [CLS] and [SEP]");

    const std::string model =
        R"("model":{"type":"WordPiece","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"hi":3}})";
    const std::string normalizer = R"("normalizer":{"type":"BertNormalizer","lowercase":true})";
    const std::string pre = R"("pre_tokenizer":{"type":"BertPreTokenizer"})";
    EXPECT_EQ(fromJson(R"({"model":{"type":"BPE"}})"),
              "tokenizer.json's model type is \"BPE\"; expected \"WordPiece\"");
    EXPECT_EQ(fromJson("{" + model + "," + pre +
                       R"(,"normalizer":{"type":"BertNormalizer",)"
                       R"("lowercase":false}})"),
              "tokenizer.json's BertNormalizer turns off lower case, accent stripping, cleaning or "
              "Chinese-character spacing; expected all on, as in uncased BERT");
    EXPECT_EQ(fromJson("{" + model + "," + pre + "}"),
              "tokenizer.json's normalizer is none; expected BertNormalizer, as in uncased BERT");
    EXPECT_EQ(
        fromJson("{" + model + "," + normalizer + R"(,"pre_tokenizer":{"type":"Whitespace"}})"),
        "tokenizer.json's pre-tokenizer is Whitespace; expected BertPreTokenizer");
    EXPECT_EQ(
        fromJson(R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0},)"
                 R"("max_input_chars_per_word":0},)" +
                 normalizer + "," + pre + "}"),
        "tokenizer.json's model.max_input_chars_per_word is 0; expected a whole number from 1");
    EXPECT_EQ(fromJson(R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"hi":1}},)" + normalizer +
                       "," + pre + "}"),
              "tokenizer.json's vocabulary lacks [CLS]; expected BERT's special tokens [UNK], "
              "[CLS] and [SEP]");
    const WordPiece tiny =
        WordPiece::fromTokenizerJson("{" + model + "," + normalizer + "," + pre + "}");
    EXPECT_THAT(tiny.encode("Hi hI ho"), ElementsAre(1, 3, 3, 0, 2));
}

// #22 item 16: a step's type reached stderr raw (a C1 CSI, bytes that are not UTF-8) and whole
// (100,000 characters); it is escaped and cut like every name from a file.
TEST(WordPiece, AStepsTypeIsEchoedEscapedAndBounded)
{
    const auto fromJson = [](const std::string& json) {
        return errorOf([&] { WordPiece::fromTokenizerJson(json); });
    };
    const std::string model =
        R"("model":{"type":"WordPiece","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"hi":3}})";
    const std::string normalizer = R"("normalizer":{"type":"BertNormalizer"})";
    EXPECT_EQ(fromJson("{" + model + R"(,"normalizer":{"type":"\u009b31mX"}})"),
              "tokenizer.json's normalizer is \\u009b31mX; expected BertNormalizer, as in "
              "uncased BERT");
    EXPECT_EQ(
        fromJson("{" + model + "," + normalizer + ",\"pre_tokenizer\":{\"type\":\"a\xc2\x9b\"}}"),
        "tokenizer.json's pre-tokenizer is a\\u009b; expected BertPreTokenizer");
    // Bytes that are not UTF-8 do not get that far: JSON is UTF-8 (issue #45).
    EXPECT_EQ(
        fromJson("{" + model + "," + normalizer + ",\"pre_tokenizer\":{\"type\":\"a\xff\x9b\"}}"),
        "tokenizer.json is not valid JSON: invalid UTF-8 inside a string at byte 142");
    EXPECT_EQ(fromJson("{" + model + "," + normalizer + R"(,"pre_tokenizer":{"type":")" +
                       std::string(100000, 'P') + R"("}})"),
              "tokenizer.json's pre-tokenizer is " + std::string(kEchoedTypeLength, 'P') +
                  "…; expected BertPreTokenizer");
    // The GPT-2 pipeline's check names the same types the same way.
    EXPECT_EQ(errorOf([&] {
                  ByteLevelBpe::fromTokenizerJson(
                      R"({"model":{"type":"BPE","vocab":{},"merges":[]},"normalizer":{"type":")"
                      "\\u001b[2J\"}}");
              }),
              "tokenizer.json has a \\x1b[2J normalizer; expected none, as in GPT-2");
}

TEST(BertPreTokenizer, NormalisesAndSplits)
{
    EXPECT_THAT(bertWords(" Héllo,\tWÖRLD!! 中文 "),
                ElementsAre("hello", ",", "world", "!", "!", "中", "文"));
    EXPECT_THAT(bertWords("a\x01\x7F"
                          "b\xC2\xA0"
                          "c"),
                ElementsAre("ab", "c"));
    EXPECT_THAT(bertWords("한"), ElementsAre("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB")); // jamo
    EXPECT_THAT(bertWords("\xEF\xA4\x80"), ElementsAre("\xE8\xB1\x88")); // U+F900 -> U+8C48
}

// ---- UTF-8

TEST(Utf8, DecodesWellFormedSequences)
{
    const std::string text = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80";
    std::vector<char32_t> codePoints;
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        EXPECT_TRUE(c.valid);
        codePoints.push_back(c.codePoint);
        pos += c.length;
    }
    EXPECT_THAT(codePoints, ElementsAre(U'a', U'é', U'中', U'😀'));
    std::string encoded;
    for (const char32_t cp : codePoints)
        appendUtf8(encoded, cp);
    EXPECT_EQ(encoded, text);
}

TEST(Utf8, RefusesMalformedSequencesOneByteAtATime)
{
    for (const std::string bad : {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80",
                                  "\xED\xA0\x80", "\xF0\x80\x80\x80", "\xF4\x90\x80\x80",
                                  "\xF5\x80\x80\x80", "\xFF", "\xC3", "\xE4\xB8", "\xF0\x9F\x98"}) {
        const Utf8Char c = decodeUtf8(bad, 0);
        EXPECT_FALSE(c.valid) << ::testing::PrintToString(bad);
        EXPECT_EQ(c.length, 1u);
        EXPECT_EQ(c.codePoint, U'\uFFFD');
    }
}

TEST(Utf8, NeverReadsPastTheEndOfTheView)
{
    // The view ends inside a valid sequence; the bytes after it must not complete the character.
    const std::string buffer = "\xF0\x9F\x98\x80";
    for (std::size_t length = 1; length < buffer.size(); ++length)
        EXPECT_FALSE(decodeUtf8(std::string_view(buffer).substr(0, length), 0).valid) << length;
}

TEST(Utf8, CountsAgreeWithTheSplitAndWithQtsUnits)
{
    // ASCII, two-, three- and four-byte characters, a stray continuation byte, a cut sequence.
    const std::string text = "a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\x80\xe4\xb8";
    EXPECT_EQ(io::countUtf8Characters(text), io::splitUtf8Characters(text).size());
    EXPECT_EQ(io::countUtf8Characters(text), 7u);
    // The emoji takes a surrogate pair; each byte that starts no character one unit.
    EXPECT_EQ(io::countUtf16Units(text), 8u);
    EXPECT_EQ(io::countUtf16Units(""), 0u);
}

} // namespace
} // namespace attnviz::io
