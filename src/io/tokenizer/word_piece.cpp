#include "io/tokenizer/word_piece.h"

#include "io/file_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/bert_pre_tokenizer.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

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

std::size_t countCharacters(std::string_view text)
{
    std::size_t count = 0;
    for (std::size_t pos = 0; pos < text.size(); ++count)
        pos += decodeUtf8(text, pos).length;
    return count;
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
    for (int id = 0; id < m_vocab.size(); ++id)
        m_longestToken = std::max(m_longestToken, m_vocab.token(id).size());
    m_unkId = require(m_settings.unkToken);
    m_clsId = require("[CLS]");
    m_sepId = require("[SEP]");
}

void WordPiece::encodeWord(std::string_view word, std::vector<int>& ids) const
{
    if (countCharacters(word) > m_settings.maxCharsPerWord) {
        ids.push_back(m_unkId);
        return;
    }
    const std::size_t firstPiece = ids.size();
    std::string candidate;
    for (std::size_t start = 0; start < word.size();) {
        // Longest piece first: shorten from the end one character at a time until the vocabulary
        // has it. If not even one character is known, the whole word is unknown.
        std::optional<int> piece;
        std::size_t end = word.size();
        // Candidates longer than the longest token cannot be found: start at the longest that
        // may be (on a character boundary), or a long word with a large max_input_chars_per_word
        // costs cubic time (4000 characters: 18 s under ASan) for the same pieces.
        const std::size_t prefix = start > 0 ? m_settings.prefix.size() : 0;
        const std::size_t room = m_longestToken > prefix ? m_longestToken - prefix : 0;
        if (end - start > room) {
            end = start + room;
            while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80)
                --end;
        }
        while (end > start) {
            candidate.assign(start > 0 ? m_settings.prefix : "");
            candidate.append(word.substr(start, end - start));
            if ((piece = m_vocab.find(candidate)))
                break;
            do
                --end;
            while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
        }
        if (!piece) {
            ids.resize(firstPiece);
            ids.push_back(m_unkId);
            return;
        }
        ids.push_back(*piece);
        start = end;
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
