#include "io/tokenizer/word_piece.h"

#include "io/file_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/bert_pre_tokenizer.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"
#include "io/tokenizer/utf8.h"

#include <algorithm>

namespace attnviz::io {
namespace {

std::vector<std::string> parseVocabTxt(std::string_view text)
{
    std::vector<std::string> tokens;
    while (!text.empty()) {
        const std::size_t newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        // Hugging Face trims the end of each line, which also copes with Windows line ends.
        while (!line.empty() &&
               std::string_view(" \t\r\v\f").find(line.back()) != std::string_view::npos)
            line.remove_suffix(1);
        tokens.emplace_back(line);
    }
    if (tokens.empty())
        throw FormatError("vocab.txt has no tokens; expected one token per line");
    return tokens;
}

/// Refuses tokenizer.json pipelines whose ids would differ from uncased BERT's.
void checkUncasedBertPipeline(const JsonValue& root)
{
    const std::string normalizerType = stepType(root, "normalizer");
    if (normalizerType != "BertNormalizer")
        throw FormatError("tokenizer.json's normalizer is " + normalizerType +
                          "; expected BertNormalizer, as in uncased BERT");
    const JsonValue* normalizer = root.find("normalizer");
    if (flagIs(normalizer, "lowercase", false) || flagIs(normalizer, "strip_accents", false) ||
        flagIs(normalizer, "clean_text", false) ||
        flagIs(normalizer, "handle_chinese_chars", false))
        throw FormatError("tokenizer.json's BertNormalizer turns off lower case, accent "
                          "stripping, cleaning or Chinese-character spacing; expected all on, as "
                          "in uncased BERT");
    if (stepType(root, "pre_tokenizer") != "BertPreTokenizer")
        throw FormatError("tokenizer.json's pre-tokenizer is " + stepType(root, "pre_tokenizer") +
                          "; expected BertPreTokenizer");
}

/// Hugging Face's WordPiece decoder clean-up, applied to each token as it is appended.
std::string cleanUp(std::string piece)
{
    static constexpr std::pair<std::string_view, std::string_view> kReplacements[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kReplacements)
        for (std::size_t at = piece.find(from); at != std::string::npos;
             at = piece.find(from, at + to.size()))
            piece.replace(at, from.size(), to);
    return piece;
}

} // namespace

WordPiece WordPiece::fromVocabTxt(std::string_view vocabTxt)
{
    Vocabulary vocab(parseVocabTxt(vocabTxt));
    std::vector<std::pair<std::string, int>> special;
    for (const char* token : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
        if (const std::optional<int> id = vocab.find(token))
            special.emplace_back(token, *id);
    return WordPiece(std::move(vocab), std::move(special), Settings{}, "vocab.txt");
}

WordPiece WordPiece::fromTokenizerJson(std::string_view tokenizerJson)
{
    const JsonValue root = parseTokenizerJson(tokenizerJson, "WordPiece");
    checkUncasedBertPipeline(root);
    const JsonValue& model = tokenizerModel(root);
    const JsonValue* vocabObject = model.find("vocab");
    Vocabulary vocab = Vocabulary::fromJsonObject(vocabObject ? *vocabObject : JsonValue(),
                                                  "tokenizer.json's model.vocab");
    Settings settings;
    settings.unkToken = stringSetting(model, "unk_token", settings.unkToken);
    settings.prefix = stringSetting(model, "continuing_subword_prefix", settings.prefix);
    if (const JsonValue* max = model.find("max_input_chars_per_word"); max && !max->isNull()) {
        if (!max->isInteger() || max->asInteger() < 1)
            throw FormatError("tokenizer.json's model.max_input_chars_per_word is " +
                              max->describe() + "; expected a whole number from 1");
        settings.maxCharsPerWord = static_cast<std::size_t>(max->asInteger());
    }
    std::vector<std::pair<std::string, int>> special = readAddedTokens(root, vocab);
    return WordPiece(std::move(vocab), std::move(special), std::move(settings),
                     "tokenizer.json's vocabulary");
}

WordPiece::WordPiece(Vocabulary vocab, std::vector<std::pair<std::string, int>> special,
                     Settings settings, std::string_view vocabName)
    : m_vocab(std::move(vocab))
    , m_special(std::move(special))
    , m_settings(std::move(settings))
{
    const auto require = [&](const std::string& token) {
        const std::optional<int> id = m_vocab.find(token);
        if (!id)
            throw FormatError(std::string(vocabName) + " lacks " + printable(token) +
                              "; expected BERT's special tokens " + printable(m_settings.unkToken) +
                              ", [CLS] and [SEP]");
        return *id;
    };
    // Words are valid UTF-8 once normalised, so a token that is not can never be a piece. Of a
    // token listed twice, the vocabulary's id (its last) is the one a lookup gives.
    std::vector<std::pair<std::string_view, int>> starts, continuations;
    for (int id = 0; id < m_vocab.size(); ++id) {
        const std::string_view token = m_vocab.token(id);
        if (!isValidUtf8(token))
            continue;
        const int value = *m_vocab.find(token);
        starts.emplace_back(token, value);
        if (token.starts_with(m_settings.prefix))
            continuations.emplace_back(token.substr(m_settings.prefix.size()), value);
    }
    m_wordStarts = LongestMatchFinder(starts);
    m_continuations = LongestMatchFinder(continuations);
    m_unkId = require(m_settings.unkToken);
    m_clsId = require("[CLS]");
    m_sepId = require("[SEP]");
}

void WordPiece::encodeWord(std::string_view word, std::vector<int>& ids) const
{
    if (word.empty())
        return;
    if (countUtf8Characters(word) > m_settings.maxCharsPerWord) {
        ids.push_back(m_unkId);
        return;
    }
    // Longest piece first, from the start of the word, pieces after the first spelled with the
    // prefix; if no piece starts somewhere, the whole word is unknown.
    const LongestMatchFinder::Match first = m_wordStarts.longestStartingAt(word)[0];
    if (first.length == 0) {
        ids.push_back(m_unkId);
        return;
    }
    const std::vector<LongestMatchFinder::Match> next = m_continuations.longestStartingAt(word);
    const std::size_t firstPiece = ids.size();
    ids.push_back(first.value);
    for (std::size_t start = first.length; start < word.size(); start += next[start].length) {
        if (next[start].length == 0) {
            ids.resize(firstPiece);
            ids.push_back(m_unkId);
            return;
        }
        ids.push_back(next[start].value);
    }
}

std::vector<int> WordPiece::encodeWithoutSpecialTokens(std::string_view utf8) const
{
    std::vector<int> ids;
    for (const SpecialTokens::Piece& piece : m_special.split(utf8)) {
        if (piece.id >= 0)
            ids.push_back(piece.id);
        else
            for (const std::string& word : bertWords(piece.text))
                encodeWord(word, ids);
    }
    return ids;
}

std::vector<int> WordPiece::encode(std::string_view utf8) const
{
    std::vector<int> ids{m_clsId};
    const std::vector<int> text = encodeWithoutSpecialTokens(utf8);
    ids.insert(ids.end(), text.begin(), text.end());
    ids.push_back(m_sepId);
    return ids;
}

std::string WordPiece::decode(const std::vector<int>& ids) const
{
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::string& token = m_vocab.token(ids[i]);
        if (i == 0)
            text += cleanUp(token);
        else if (token.starts_with(m_settings.prefix))
            text += cleanUp(token.substr(m_settings.prefix.size()));
        else
            text += cleanUp(" " + token);
    }
    return text;
}

std::vector<int> WordPiece::tokenTypes(const std::vector<int>& ids) const
{
    std::vector<int> types(ids.size(), 0);
    const auto sep = std::find(ids.begin(), ids.end(), m_sepId);
    if (sep != ids.end())
        std::fill(types.begin() + (sep - ids.begin()) + 1, types.end(), 1);
    return types;
}

} // namespace attnviz::io
