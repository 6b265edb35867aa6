#include "io/tokenizer/byte_level_bpe.h"

#include "io/file_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/byte_alphabet.h"
#include "io/tokenizer/gpt2_pre_tokenizer.h"
#include "io/tokenizer/token_display.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace attnviz::io {
namespace {

/// Words longer than this are not cached: long runs (of spaces, say) rarely repeat.
constexpr std::size_t kMaxCachedWordBytes = 256;

/// The bytes a token stands for. A token with a character outside the byte alphabet (an added
/// token can have one) stands for its own UTF-8, as in Hugging Face's ByteLevel decoder.
std::string tokenBytes(const std::string& token)
{
    return bytesOfSymbols(token).value_or(token);
}

/// Refuses tokenizer.json pipelines whose ids would differ from GPT-2's scheme.
void checkGpt2Pipeline(const JsonValue& root)
{
    const std::string normalizer = stepType(root, "normalizer");
    if (normalizer != "none")
        throw FormatError("tokenizer.json has a " + normalizer +
                          " normalizer; expected none, as in GPT-2");
    const std::string preTokenizer = stepType(root, "pre_tokenizer");
    if (preTokenizer != "ByteLevel")
        throw FormatError("tokenizer.json's pre-tokenizer is " + preTokenizer +
                          "; expected ByteLevel, as in GPT-2");
    const JsonValue* pre = root.find("pre_tokenizer");
    if (flagIs(pre, "add_prefix_space", true) || flagIs(pre, "use_regex", false))
        throw FormatError("tokenizer.json's ByteLevel pre-tokenizer adds a prefix space or skips "
                          "the regex; expected add_prefix_space false and use_regex true, as in "
                          "GPT-2");
    const JsonValue& model = tokenizerModel(root);
    const JsonValue* dropout = model.find("dropout");
    if (flagIs(&model, "ignore_merges", true) || (dropout && !dropout->isNull()) ||
        !stringSetting(model, "continuing_subword_prefix", "").empty() ||
        !stringSetting(model, "end_of_word_suffix", "").empty())
        throw FormatError("tokenizer.json's BPE model sets ignore_merges, dropout or a subword "
                          "prefix or suffix; expected GPT-2's plain merges");
}

} // namespace

std::vector<MergeRule> ByteLevelBpe::parseMergesTxt(std::string_view text)
{
    std::vector<MergeRule> rules;
    int lineNumber = 0;
    while (!text.empty()) {
        const std::size_t newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        ++lineNumber;
        if (line.ends_with('\r'))
            line.remove_suffix(1);
        if (line.starts_with("#version"))
            continue;
        const std::string place = "merges.txt line " + std::to_string(lineNumber);
        const std::size_t space = line.find(' ');
        if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string_view::npos) {
            int words = 0;
            for (std::size_t i = 0; i < line.size(); ++i)
                words += line[i] != ' ' && (i == 0 || line[i - 1] == ' ');
            throw FormatError(place + " has " + std::to_string(words) +
                              (words == 1 ? " token" : " tokens") +
                              "; expected two tokens separated by a space");
        }
        rules.push_back(
            {std::string(line.substr(0, space)), std::string(line.substr(space + 1)), place});
    }
    return rules;
}

ByteLevelBpe ByteLevelBpe::fromVocabAndMerges(std::string_view vocabJson,
                                              std::string_view mergesTxt)
{
    JsonValue root;
    try {
        root = parseJson(vocabJson, "vocab.json");
    } catch (const JsonError& e) {
        throw FormatError(std::string("vocab.json is not valid JSON: ") + e.what());
    }
    Vocabulary vocab = Vocabulary::fromJsonObject(root, "vocab.json");
    std::vector<std::pair<std::string, int>> special;
    if (const std::optional<int> id = vocab.find("<|endoftext|>"))
        special.emplace_back("<|endoftext|>", *id);
    return ByteLevelBpe(std::move(vocab), parseMergesTxt(mergesTxt), "vocab.json",
                        std::move(special));
}

ByteLevelBpe ByteLevelBpe::fromTokenizerJson(std::string_view tokenizerJson)
{
    const JsonValue root = parseTokenizerJson(tokenizerJson, "BPE");
    checkGpt2Pipeline(root);
    const JsonValue& model = tokenizerModel(root);
    const JsonValue* vocabObject = model.find("vocab");
    Vocabulary vocab = Vocabulary::fromJsonObject(vocabObject ? *vocabObject : JsonValue(),
                                                  "tokenizer.json's model.vocab");
    std::vector<std::pair<std::string, int>> special = readAddedTokens(root, vocab);
    return ByteLevelBpe(std::move(vocab), parseJsonMerges(model), "tokenizer.json's vocabulary",
                        std::move(special));
}

ByteLevelBpe::ByteLevelBpe(Vocabulary vocab, const std::vector<MergeRule>& merges,
                           std::string_view vocabName,
                           std::vector<std::pair<std::string, int>> special)
    : m_vocab(std::move(vocab))
    , m_special(special)
{
    const std::string name(vocabName);
    for (int b = 0; b < 256; ++b) {
        std::string symbol;
        appendUtf8(symbol, byteSymbols()[b]);
        const std::optional<int> id = m_vocab.find(symbol);
        if (!id) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", b);
            throw FormatError(name + " lacks \"" + symbol + "\", the symbol of byte " + hex +
                              "; expected all 256 byte symbols of GPT-2's alphabet");
        }
        m_byteIds[b] = *id;
    }
    m_merges = BpeMerges(
        merges, [this](std::string_view token) { return m_vocab.find(token); }, name);
    m_bytes.reserve(m_vocab.size());
    for (int id = 0; id < m_vocab.size(); ++id)
        m_bytes.push_back(tokenBytes(m_vocab.token(id)));
    m_isSpecial.assign(m_vocab.size(), false);
    for (const auto& [content, id] : special) {
        m_isSpecial[static_cast<std::size_t>(id)] = true;
        m_longestPiece = std::max(m_longestPiece, content.size());
    }
    for (const std::string& piece : m_bytes)
        m_longestPiece = std::max(m_longestPiece, piece.size());
}

const std::string& ByteLevelBpe::bytesOf(int id) const
{
    m_vocab.token(id); // throws std::out_of_range, with a sentence, for an unknown id
    return m_bytes[static_cast<std::size_t>(id)];
}

void ByteLevelBpe::encodeWord(std::string_view word, std::vector<int>& ids) const
{
    std::vector<int> symbols;
    symbols.reserve(word.size());
    for (const char byte : word)
        symbols.push_back(m_byteIds[static_cast<unsigned char>(byte)]);
    m_merges.apply(symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
}

std::vector<int> ByteLevelBpe::encode(std::string_view utf8) const
{
    std::vector<int> ids;
    // Running text repeats its words. The cache (word -> its ids' range in `ids`) lives for one
    // call only, so that encode stays const and safe to call from several threads at once.
    std::unordered_map<std::string_view, std::pair<std::size_t, std::size_t>> cache;
    for (const SpecialTokens::Piece& piece : m_special.split(utf8)) {
        if (piece.id >= 0) {
            ids.push_back(piece.id);
            continue;
        }
        for (const std::string_view word : gpt2Words(piece.text)) {
            if (const auto hit = cache.find(word); hit != cache.end()) {
                for (std::size_t k = hit->second.first; k < hit->second.second; ++k) {
                    const int id = ids[k];
                    ids.push_back(id);
                }
                continue;
            }
            const std::size_t begin = ids.size();
            encodeWord(word, ids);
            if (word.size() <= kMaxCachedWordBytes)
                cache.emplace(word, std::pair(begin, ids.size()));
        }
    }
    return ids;
}

std::string ByteLevelBpe::decode(const std::vector<int>& ids) const
{
    std::string text;
    for (const int id : ids)
        text += bytesOf(id);
    return text;
}

std::string ByteLevelBpe::displayToken(int id) const
{
    return displayBytes(bytesOf(id));
}

std::optional<std::string> ByteLevelBpe::pieceBytes(int id) const
{
    const std::string& bytes = bytesOf(id);
    if (m_isSpecial[static_cast<std::size_t>(id)])
        return std::nullopt;
    return bytes;
}

} // namespace attnviz::io
