#include "support/hf_tokenizer_files.h"

#include "engine/input_error.h"
#include "io/checkpoint/hf_tokenizer_files.h"
#include "io/checkpoint/model_error.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "io/tokenizer/byte_alphabet.h"
#include "io/tokenizer/tokenizer_pipeline.h"
#include "io/tokenizer/unicode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;
using test::readData;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

/// One text of tests/data/tokenizers/<name>_reference.json and what Hugging Face made of it.
struct ReferenceCase {
    std::string text;
    std::vector<int> ids;
    std::vector<int> idsWithSpecial;
    std::string decoded;
};

std::vector<int> idsOf(const JsonValue& array)
{
    std::vector<int> ids;
    for (const JsonValue& id : array.asArray())
        ids.push_back(static_cast<int>(id.asInteger()));
    return ids;
}

std::vector<ReferenceCase> readReference(const std::string& name)
{
    std::vector<ReferenceCase> cases;
    const JsonValue document = parseJson(readData("tokenizers/" + name + "_reference.json"));
    for (const JsonValue& entry : document.find("cases")->asArray())
        cases.push_back({entry.find("text")->asString(), idsOf(*entry.find("ids")),
                         idsOf(*entry.find("ids_with_special")),
                         entry.find("decoded")->asString()});
    return cases;
}

/// The tokenizer of tests/data/tokenizers/<name>, loaded as a model folder is, once per name.
const TokenizerPipeline& pipeline(const std::string& name)
{
    static std::map<std::string, std::unique_ptr<TokenizerPipeline>> loaded;
    std::unique_ptr<TokenizerPipeline>& tokenizer = loaded[name];
    if (!tokenizer)
        tokenizer = loadTokenizerPipeline(fs::path(ATTNVIZ_TEST_DATA_DIR) / "tokenizers" / name);
    return *tokenizer;
}

const char* const kModels[] = {"llama3", "llama2", "qwen2", "smollm", "mistral"};

/// Whether `text` has a character of CJK Extension H (U+31350-U+323AF), new in Unicode 15.0:
/// Debian 12's Oniguruma 6.9.8 has Unicode 14's tables, where it is no letter (\p{L}), while
/// the Oniguruma built into Hugging Face's tokenizers knows it. The one place where split
/// patterns may cut otherwise (docs/tokenizers.md).
bool hasUnicode15Letter(std::string_view text)
{
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        if (c.valid && c.codePoint >= 0x31350 && c.codePoint <= 0x323AF)
            return true;
        pos += c.length;
    }
    return false;
}

// Each token's detail as an English line (io::describe), which the tests read.
std::vector<std::string> describedDetails(const io::Tokenizer& tokenizer,
                                          const std::vector<int>& ids)
{
    std::vector<std::string> lines;
    for (const io::TokenDetail& d : tokenizer.tokenDetails(ids))
        lines.push_back(io::describe(d));
    return lines;
}

TEST(TokenizerPipeline, EveryReferenceCaseGivesHuggingFacesIds)
{
    for (const char* name : kModels) {
        const TokenizerPipeline& tokenizer = pipeline(name);
        const std::vector<ReferenceCase> cases = readReference(name);
        ASSERT_GE(cases.size(), 200u) << name;
        EXPECT_EQ(cases.front().text, "Attention: the cat sat on the mat, 1234 times — 猫 😀!");
        int plain = 0, special = 0, decoded = 0, unicode15 = 0;
        for (const ReferenceCase& c : cases) {
            SCOPED_TRACE(std::string(name) + ": " + printable(c.text, 80));
            const std::vector<int> ids = tokenizer.encodeWithoutSpecialTokens(c.text);
            const std::vector<int> withSpecial = tokenizer.encode(c.text);
            const std::string text = tokenizer.decode(ids);
            plain += ids == c.ids;
            special += withSpecial == c.idsWithSpecial;
            decoded += text == c.decoded;
            EXPECT_EQ(text, c.decoded);
            if (ids != c.ids && hasUnicode15Letter(c.text)) {
                ++unicode15;
                continue;
            }
            EXPECT_EQ(ids, c.ids);
            EXPECT_EQ(withSpecial, c.idsWithSpecial);
        }
        std::cout << name << ": " << plain << " of " << cases.size() << " ids equal (" << unicode15
                  << " differ by a Unicode 15 letter), " << special << " with special tokens, "
                  << decoded << " decoded texts\n";
        EXPECT_LE(unicode15, 1) << name;
    }
}

TEST(TokenizerPipeline, KindsAndSpecialTokensAreTheFilesOwn)
{
    EXPECT_EQ(pipeline("llama3").kind(), "byte-level BPE");
    EXPECT_EQ(pipeline("qwen2").kind(), "byte-level BPE");
    EXPECT_EQ(pipeline("llama2").kind(), "SentencePiece BPE");
    EXPECT_EQ(pipeline("mistral").kind(), "SentencePiece BPE");
    EXPECT_EQ(pipeline("llama3").size(), 128256);
    EXPECT_EQ(pipeline("llama2").size(), 32000);
    // Llama 3's tokenizer_config.json names its BOS and EOS; its post-processor adds neither.
    EXPECT_EQ(pipeline("llama3").bosId(), 128000);
    EXPECT_EQ(pipeline("llama3").eosId(), 128001);
    EXPECT_EQ(pipeline("llama2").bosId(), 1);
    EXPECT_EQ(pipeline("llama2").eosId(), 2);
    EXPECT_THAT(pipeline("llama2").encode("Hello world"), ElementsAre(1, 22557, 1526));
}

TEST(TokenizerPipeline, TokenizerConfigDecidesBosAndEos)
{
    const std::string llama2 = readData("tokenizers/llama2/tokenizer.json");
    const auto noBos = TokenizerPipeline::fromTokenizerJson(llama2, {false, true, {}, "</s>"});
    EXPECT_THAT(noBos->encode("Hello world"), ElementsAre(22557, 1526, 2));
    EXPECT_THROW(TokenizerPipeline::fromTokenizerJson(llama2, {{}, true, {}, {}}), FormatError);
    const std::string llama3 = readData("tokenizers/llama3/tokenizer.json");
    const auto bos =
        TokenizerPipeline::fromTokenizerJson(llama3, {true, {}, "<|begin_of_text|>", {}});
    EXPECT_THAT(bos->encode("Hello"), ElementsAre(128000, 9906));
    EXPECT_EQ(bos->displayTokens(bos->encode("Hello"))[0], "<|begin_of_text|>");
    try {
        TokenizerPipeline::fromTokenizerJson(llama3, {true, {}, {}, {}});
        FAIL() << "a BOS nobody names was accepted";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("add_bos_token"));
    }
}

TEST(TokenizerPipeline, FolderNeedsTokenizerJsonAndValidConfig)
{
    const fs::path folder = fs::temp_directory_path() / "attnviz_pipeline_folder";
    fs::remove_all(folder);
    fs::create_directories(folder);
    try {
        loadTokenizerPipeline(folder);
        FAIL() << "a folder without tokenizer.json was accepted";
    } catch (const ModelError& e) {
        EXPECT_THAT(e.what(), HasSubstr("no tokenizer.json"));
    }
    fs::copy_file(fs::path(ATTNVIZ_TEST_DATA_DIR) / "tokenizers/llama2/tokenizer.json",
                  folder / "tokenizer.json");
    std::ofstream(folder / "tokenizer_config.json") << "{\"add_bos_token\": ";
    try {
        loadTokenizerPipeline(folder);
        FAIL() << "an invalid tokenizer_config.json was accepted";
    } catch (const ModelError& e) {
        EXPECT_THAT(e.what(), HasSubstr("tokenizer_config.json is not valid JSON"));
    }
    std::ofstream(folder / "tokenizer_config.json") << "{\"add_bos_token\": \"yes\"}";
    EXPECT_THROW(loadTokenizerPipeline(folder), ModelError);
    std::ofstream(folder / "tokenizer_config.json") << "{\"add_bos_token\": false}";
    EXPECT_THAT(loadTokenizerPipeline(folder)->encode("Hello world"), ElementsAre(22557, 1526));
    fs::remove_all(folder);
}

TEST(TokenizerPipeline, ByteLevelDisplayShowsSpacesAndWholeCharacters)
{
    const TokenizerPipeline& llama3 = pipeline("llama3");
    EXPECT_THAT(llama3.displayTokens(llama3.encode(" Hello\n\tworld")),
                ElementsAre("␣Hello", "↵", "⇥world"));
    // U+20000 is no token of Llama 3: its four bytes come as byte pieces.
    const std::vector<int> ids = llama3.encode("𠀀");
    ASSERT_GT(ids.size(), 1u);
    const std::vector<std::string> shown = llama3.displayTokens(ids);
    const std::vector<std::string> details = describedDetails(llama3, ids);
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::string part = std::to_string(k + 1) + "/" + std::to_string(ids.size());
        EXPECT_EQ(shown[k], "𠀀·" + part);
        EXPECT_THAT(details[k], HasSubstr("id " + std::to_string(ids[k])));
        EXPECT_THAT(details[k],
                    HasSubstr("part " + std::to_string(k + 1) + " of " +
                              std::to_string(ids.size()) + " of \"𠀀\" (U+20000)"));
        EXPECT_THAT(shown[k], Not(HasSubstr("\\x")));
    }
    EXPECT_THAT(details[0], HasSubstr("bytes F0"));
    // A character shared by tokens of which one also holds a whole character: " \xF0\x9F" + 98
    // + 80.
    const auto byteId = [&](unsigned char byte) {
        std::string symbol;
        appendByteSymbols(symbol, std::string(1, static_cast<char>(byte)));
        return *llama3.id(symbol);
    };
    const std::vector<int> shared = {*llama3.id("a"), *llama3.id("ĠðŁ"), byteId(0x98), byteId(0x80),
                                     *llama3.id("b")};
    EXPECT_THAT(llama3.displayTokens(shared), ElementsAre("a", "␣😀·1/3", "␣😀·2/3", "␣😀·3/3", "b"));
    EXPECT_THAT(describedDetails(llama3, shared)[1],
                HasSubstr("bytes 20 F0 9F · part 1 of 3 of \" 😀\""));
}

TEST(TokenizerPipeline, ByteFallbackDisplayShowsTheCharacter)
{
    const TokenizerPipeline& llama2 = pipeline("llama2");
    const std::vector<int> ids = llama2.encode("𠀀");
    // <s>, "▁", then the character's four bytes through byte fallback
    ASSERT_EQ(ids.size(), 6u);
    EXPECT_EQ(llama2.token(ids[2]), "<0xF0>");
    EXPECT_THAT(llama2.displayTokens(ids),
                ElementsAre("<s>", "␣", "𠀀·1/4", "𠀀·2/4", "𠀀·3/4", "𠀀·4/4"));
    const std::vector<std::string> details = describedDetails(llama2, ids);
    EXPECT_EQ(details[0], "\"<s>\" · id 1");
    EXPECT_EQ(details[2],
              "\"<0xF0>\" · id " + std::to_string(ids[2]) +
                  " · bytes F0 · part 1 of 4 of \"𠀀\" (U+20000)");
    EXPECT_EQ(llama2.displayToken(*llama2.id("▁world")), "␣world");
    EXPECT_EQ(llama2.displayToken(*llama2.id("<0x0A>")), "↵");
    EXPECT_EQ(llama2.pieceBytes(1), std::nullopt);
}

TEST(TokenizerPipeline, GptTwoDisplayGroupsBytePiecesToo)
{
    // ByteLevelBpe shares the grouping: 文 is two tokens in GPT-2.
    const ByteLevelBpe gpt2 = ByteLevelBpe::fromVocabAndMerges(readData("hf/gpt2/vocab.json"),
                                                               readData("hf/gpt2/merges.txt"));
    const std::vector<int> ids = gpt2.encode("文");
    ASSERT_EQ(ids.size(), 2u);
    EXPECT_THAT(gpt2.displayTokens(ids), ElementsAre("文·1/2", "文·2/2"));
    EXPECT_EQ(gpt2.pieceBytes(50256), std::nullopt);
}

/// A small BPE tokenizer.json over single characters, to test one option at a time.
std::string smallTokenizer(const std::string& addedTokens, const std::string& normalizer = "null",
                           const std::string& preTokenizer = "null",
                           const std::string& postProcessor = "null",
                           const std::string& decoder = "null")
{
    return R"({"added_tokens": [)" + addedTokens + R"(], "normalizer": )" + normalizer +
        R"(, "pre_tokenizer": )" + preTokenizer + R"(, "post_processor": )" + postProcessor +
        R"(, "decoder": )" + decoder +
        R"(, "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "t": 3, " ": 4,
           "x": 5, "_": 6, "1": 7, "2": 8, "ab": 9, "<unk>": 10}, "merges": ["a b"],
           "unk_token": "<unk>", "fuse_unk": true}})";
}

std::string addedToken(const std::string& content, int id, const std::string& options)
{
    return R"({"id": )" + std::to_string(id) + R"(, "content": ")" + content + R"(", )" + options +
        "}";
}

TEST(TokenizerPipeline, AddedTokenOptionsAreHuggingFaces)
{
    const auto ids = [](const std::string& json, std::string_view text) {
        return TokenizerPipeline::fromTokenizerJson(json)->encode(text);
    };
    const std::string plain = addedToken("<m>", 11, R"("special": true, "normalized": false)");
    EXPECT_THAT(ids(smallTokenizer(plain), "a <m> b"), ElementsAre(0, 4, 11, 4, 1));
    const std::string stripping = addedToken(
        "<m>", 11, R"("special": true, "normalized": false, "lstrip": true, "rstrip": true)");
    EXPECT_THAT(ids(smallTokenizer(stripping), "a  <m>  b"), ElementsAre(0, 11, 1));
    const std::string word = addedToken("cat", 11, R"("single_word": true, "normalized": false)");
    EXPECT_THAT(ids(smallTokenizer(word), "a cat b"), ElementsAre(0, 4, 11, 4, 1));
    EXPECT_THAT(ids(smallTokenizer(word), "acat"), ElementsAre(0, 2, 0, 3));
    // A normalised token is found in the normalised text: here "x x" after " " becomes "_".
    const std::string normalized = addedToken("x x", 11, R"("normalized": true)");
    const std::string replace =
        R"({"type": "Replace", "pattern": {"String": " "}, "content": "_"})";
    EXPECT_THAT(ids(smallTokenizer(normalized, replace), "ax x"), ElementsAre(0, 11));
    // unknown characters fuse into one <unk>
    EXPECT_THAT(ids(smallTokenizer(""), "azzzb"), ElementsAre(0, 10, 1));
    EXPECT_THAT(ids(smallTokenizer(""), "ab"), ElementsAre(9));
}

TEST(TokenizerPipeline, SplitBehavioursAndDigits)
{
    const auto ids = [](const std::string& preTokenizer, std::string_view text) {
        return TokenizerPipeline::fromTokenizerJson(smallTokenizer("", "null", preTokenizer))
            ->encode(text);
    };
    const auto split = [](const std::string& behavior, bool invert, const char* pattern = "b") {
        return R"({"type": "Split", "pattern": {"Regex": ")" + std::string(pattern) +
            R"("}, "behavior": ")" + behavior + R"(", "invert": )" + (invert ? "true" : "false") +
            "}";
    };
    // "ab" merges unless a split separates a from b
    EXPECT_THAT(ids(split("Isolated", false), "abab"), ElementsAre(0, 1, 0, 1));
    EXPECT_THAT(ids(split("Removed", false), "abab"), ElementsAre(0, 0));
    EXPECT_THAT(ids(split("MergedWithPrevious", false), "abab"), ElementsAre(9, 9));
    EXPECT_THAT(ids(split("MergedWithNext", false), "abab"), ElementsAre(0, 1, 0, 1));
    EXPECT_THAT(ids(split("MergedWithNext", false, "a"), "abab"), ElementsAre(9, 9));
    EXPECT_THAT(ids(split("Contiguous", false, "a"), "aab"), ElementsAre(0, 0, 1));
    EXPECT_THAT(ids(split("Removed", true), "abab"), ElementsAre(1, 1));
    const std::string digits = R"({"type": "Digits", "individual_digits": false})";
    EXPECT_THAT(ids(digits, "a12b"), ElementsAre(0, 7, 8, 1));
}

/// The message of the FormatError `json` gives, or "" when it is accepted.
std::string refusal(const std::string& json)
{
    try {
        TokenizerPipeline::fromTokenizerJson(json);
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

void expectOneSentence(const std::string& message)
{
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.find(". "), std::string::npos) << message;
    EXPECT_THAT(message, HasSubstr("tokenizer.json")) << message;
}

TEST(TokenizerPipeline, UnsupportedStepsAreRefusedInOneSentence)
{
    const std::string lowercase = refusal(smallTokenizer("", R"({"type": "Lowercase"})"));
    expectOneSentence(lowercase);
    EXPECT_THAT(lowercase, HasSubstr("Lowercase normalizer; AttnViz reads NFC"));
    const std::string whitespace = refusal(smallTokenizer("", "null", R"({"type": "Whitespace"})"));
    expectOneSentence(whitespace);
    EXPECT_THAT(whitespace, HasSubstr("pre-tokenizer is Whitespace"));
    const std::string roberta =
        refusal(smallTokenizer("", "null", "null", R"({"type": "RobertaProcessing"})"));
    expectOneSentence(roberta);
    EXPECT_THAT(roberta, HasSubstr("post-processor is RobertaProcessing"));
    const std::string ctc =
        refusal(smallTokenizer("", "null", "null", "null", R"({"type": "CTC"})"));
    expectOneSentence(ctc);
    EXPECT_THAT(ctc, HasSubstr("decoder is CTC"));
    // a hostile type name is echoed escaped and cut short
    const std::string hostile = refusal(
        smallTokenizer("", R"({"type": "Evil\n\u001b[31m)" + std::string(500, 'x') + "\"}"));
    expectOneSentence(hostile);
    EXPECT_THAT(hostile, HasSubstr("Evil\\n\\x1b[31m"));
    EXPECT_LT(hostile.size(), 300u);
    const std::string unigram = refusal(R"({"model": {"type": "Unigram", "vocab": []}})");
    expectOneSentence(unigram);
    EXPECT_THAT(unigram, HasSubstr("expected \"BPE\""));
}

TEST(TokenizerPipeline, HostileFilesAreRefusedInOneSentence)
{
    const std::string pattern = refusal(smallTokenizer(
        "", "null", R"({"type": "Split", "pattern": {"Regex": "(a"}, "behavior": "Isolated"})"));
    expectOneSentence(pattern);
    EXPECT_THAT(pattern, HasSubstr("Split pattern \"(a\" does not compile"));
    std::string unknownMerge = smallTokenizer("");
    unknownMerge.replace(unknownMerge.find("\"a b\""), 5, "\"a q\"");
    expectOneSentence(refusal(unknownMerge));
    std::string duplicateId = smallTokenizer("");
    duplicateId.replace(duplicateId.find("\"b\": 1"), 6, "\"b\": 0");
    expectOneSentence(refusal(duplicateId));
    std::string wrongType = smallTokenizer("");
    wrongType.replace(wrongType.find("\"fuse_unk\": true"), 16, "\"fuse_unk\": \"yes\"");
    expectOneSentence(refusal(wrongType));
    const std::string badId = refusal(smallTokenizer(addedToken("<m>", 99, R"("special": true)")));
    expectOneSentence(badId);
    EXPECT_THAT(badId, HasSubstr("next free id 11"));
    const std::string badTemplate = refusal(smallTokenizer(
        "", "null", "null",
        R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {}})"));
    expectOneSentence(badTemplate);
    EXPECT_THAT(badTemplate, HasSubstr("\"<s>\" without its ids"));
}

TEST(TokenizerPipeline, CatastrophicPatternsStopWithASentence)
{
    // The sentence an exponential pattern ends encode with ("finished" if it ran to the end).
    const auto refusal = [](const std::string& tokenizerJson) -> std::string {
        try {
            TokenizerPipeline::fromTokenizerJson(tokenizerJson)
                ->encode(std::string(60, 'a') + "bc");
        } catch (const engine::InputError& e) {
            return e.what();
        }
        return "finished";
    };
    const auto start = std::chrono::steady_clock::now();
    const std::string split = refusal(smallTokenizer(
        "", "null",
        R"({"type": "Split", "pattern": {"Regex": "(a|aa)+c"}, "behavior": "Isolated"})"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
    EXPECT_THAT(split, HasSubstr("tokenizer.json's Split pattern"));
    EXPECT_THAT(split, HasSubstr("backtracks too much"));
    // A normaliser's pattern is stopped the same way, and the sentence names it, not the split.
    const std::string replace = refusal(smallTokenizer(
        "", R"({"type": "Replace", "pattern": {"Regex": "(a|aa)+c"}, "content": "x"})"));
    EXPECT_THAT(replace, HasSubstr("tokenizer.json's Replace pattern"));
    EXPECT_THAT(replace, HasSubstr("backtracks too much"));
}

std::string randomBytes(std::mt19937& rng, std::size_t size)
{
    std::string bytes(size, '\0');
    for (char& b : bytes)
        b = static_cast<char>(rng() & 0xFF);
    return bytes;
}

TEST(TokenizerPipeline, InvalidUtf8BecomesBytePieces)
{
    const TokenizerPipeline& llama3 = pipeline("llama3");
    std::mt19937 rng(24);
    for (const std::string& text :
         {std::string("a\xFF"
                      "b"),
          std::string("\xED\xA0\x80 lone surrogate \xED\xBF\xBF"), std::string("nul\0byte", 8),
          std::string("cut \xE4\xBD"), randomBytes(rng, 4096)})
        EXPECT_EQ(llama3.decode(llama3.encodeWithoutSpecialTokens(text)), text);
    // SentencePiece: each invalid byte is its <0xXX> piece, the text around it a stretch of its own
    const TokenizerPipeline& llama2 = pipeline("llama2");
    const std::vector<int> ids = llama2.encodeWithoutSpecialTokens("a\xFF"
                                                                   "b");
    std::vector<int> expected = llama2.encodeWithoutSpecialTokens("a");
    expected.push_back(*llama2.id("<0xFF>"));
    for (const int id : llama2.encodeWithoutSpecialTokens("b"))
        expected.push_back(id);
    EXPECT_EQ(ids, expected);
    EXPECT_EQ(llama2.decode(llama2.encodeWithoutSpecialTokens("x\xC3")), "x\xC3");
}

// How fast is measured in docs/tokenizers.md, not here: a test that times itself fails on a slow
// machine (7 s under AddressSanitizer). A quadratic step would run into ctest's time limit.
TEST(TokenizerPipeline, LongAndOddTextsEncodeIntoTheVocabulary)
{
    std::mt19937 rng(7);
    std::string prose;
    const std::string words[] = {"attention ", "heads ", "猫 ", "😀",      "1234567 ",
                                 "They'Ve ",   "\n\n",   "  ",  "naïve, "};
    while (prose.size() < (1u << 20))
        prose += words[rng() % std::size(words)];
    const std::string texts[] = {prose,
                                 std::string(100000, ' '),
                                 std::string(1 << 20, ' '),
                                 std::string(1 << 20, '\0'),
                                 std::string(1 << 20, '7'),
                                 std::string(100000, ' ') + "x",
                                 randomBytes(rng, 1 << 20)};
    for (const char* name : kModels) {
        const TokenizerPipeline& tokenizer = pipeline(name);
        for (const std::string& text : texts) {
            const std::vector<int> ids = tokenizer.encode(text);
            EXPECT_FALSE(ids.empty()) << name << " on " << printable(text, 20) << "…";
            for (const int id : ids)
                ASSERT_TRUE(id >= 0 && id < tokenizer.size());
        }
    }
}

TEST(TokenizerPipeline, OnigurumaLeavesPosixRegexToTheCLibrary)
{
    // libonig.so exports regcomp and regexec too; linked first, it breaks them for the process.
    regex_t posix;
    ASSERT_EQ(regcomp(&posix, "^a+b$", REG_EXTENDED | REG_NOSUB), 0);
    EXPECT_EQ(regexec(&posix, "aab", 0, nullptr, 0), 0);
    EXPECT_EQ(regexec(&posix, "aabc", 0, nullptr, 0), REG_NOMATCH);
    regfree(&posix);
}

TEST(TokenizerPipeline, UnknownIdsAreRefused)
{
    const TokenizerPipeline& llama3 = pipeline("llama3");
    EXPECT_THROW(llama3.decode({128256}), std::out_of_range);
    EXPECT_THROW(llama3.displayToken(-1), std::out_of_range);
    EXPECT_THROW(llama3.pieceBytes(200000), std::out_of_range);
}

} // namespace
} // namespace attnviz::io
