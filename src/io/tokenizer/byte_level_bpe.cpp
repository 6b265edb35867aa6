#include "io/tokenizer/byte_level_bpe.h"

#include "io/file_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/gpt2_pre_tokenizer.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

#include <cstdio>
#include <queue>

namespace attnviz::io {
namespace {

/// Words longer than this are not cached: long runs (of spaces, say) rarely repeat.
constexpr std::size_t kMaxCachedWordBytes = 256;

/// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves and the other 68 bytes
/// take U+0100 onwards in byte order, so that every byte has a visible, non-space symbol.
const std::array<char32_t, 256>& byteSymbols()
{
    static const std::array<char32_t, 256> symbols = [] {
        std::array<char32_t, 256> s{};
        char32_t next = 0x100;
        for (char32_t b = 0; b < 256; ++b) {
            const bool visible =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            s[b] = visible ? b : next++;
        }
        return s;
    }();
    return symbols;
}

/// The bytes a token stands for. A token with a character outside the byte alphabet (an added
/// token can have one) stands for its own UTF-8, as in Hugging Face's ByteLevel decoder.
std::string tokenBytes(const std::string& token)
{
    static const std::array<int, 0x200> byteOfSymbol = [] {
        std::array<int, 0x200> inverse{};
        inverse.fill(-1);
        for (int b = 0; b < 256; ++b)
            inverse[byteSymbols()[b]] = b;
        return inverse;
    }();
    std::string bytes;
    for (std::size_t pos = 0; pos < token.size();) {
        const Utf8Char c = decodeUtf8(token, pos);
        if (!c.valid || c.codePoint >= byteOfSymbol.size() || byteOfSymbol[c.codePoint] < 0)
            return token;
        bytes += static_cast<char>(byteOfSymbol[c.codePoint]);
        pos += c.length;
    }
    return bytes;
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

std::vector<ByteLevelBpe::MergeRule> ByteLevelBpe::parseMergesTxt(std::string_view text)
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

std::vector<ByteLevelBpe::MergeRule> ByteLevelBpe::parseJsonMerges(const JsonValue& model)
{
    const JsonValue* merges = model.find("merges");
    if (!merges || !merges->isArray())
        throw FormatError(
            "tokenizer.json's model has no \"merges\" array; expected the BPE merges");
    std::vector<MergeRule> rules;
    for (const JsonValue& merge : merges->asArray()) {
        const std::string place = "tokenizer.json's merge " + std::to_string(rules.size() + 1);
        if (merge.isString()) {
            const std::string& s = merge.asString();
            const std::size_t space = s.find(' ');
            if (space != 0 && space != std::string::npos && space + 1 < s.size() &&
                s.find(' ', space + 1) == std::string::npos) {
                rules.push_back({s.substr(0, space), s.substr(space + 1), place});
                continue;
            }
        } else if (merge.isArray() && merge.asArray().size() == 2 &&
                   merge.asArray()[0].isString() && merge.asArray()[1].isString()) {
            rules.push_back({merge.asArray()[0].asString(), merge.asArray()[1].asString(), place});
            continue;
        }
        throw FormatError(place + " is " + merge.describe() +
                          "; expected \"left right\" or [\"left\", \"right\"]");
    }
    return rules;
}

ByteLevelBpe ByteLevelBpe::fromVocabAndMerges(std::string_view vocabJson,
                                              std::string_view mergesTxt)
{
    JsonValue root;
    try {
        root = parseJson(vocabJson);
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
    , m_special(std::move(special))
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
    m_merges.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const MergeRule& rule = merges[rank];
        const std::optional<int> left = m_vocab.find(rule.left);
        const std::optional<int> right = m_vocab.find(rule.right);
        const std::optional<int> result = m_vocab.find(rule.left + rule.right);
        if (!left || !right || !result)
            throw FormatError(rule.place + " merges \"" + printable(rule.left) + "\" and \"" +
                              printable(rule.right) + "\"; expected it and its parts in " + name);
        // A repeated pair keeps its later rank, as in Hugging Face's merge map.
        m_merges.insert_or_assign(static_cast<std::uint64_t>(*left) << 32 |
                                      static_cast<std::uint32_t>(*right),
                                  Merge{static_cast<int>(rank), *result});
    }
    m_bytes.reserve(m_vocab.size());
    for (int id = 0; id < m_vocab.size(); ++id)
        m_bytes.push_back(tokenBytes(m_vocab.token(id)));
}

const ByteLevelBpe::Merge* ByteLevelBpe::findMerge(int left, int right) const
{
    const auto it =
        m_merges.find(static_cast<std::uint64_t>(left) << 32 | static_cast<std::uint32_t>(right));
    return it == m_merges.end() ? nullptr : &it->second;
}

const std::string& ByteLevelBpe::bytesOf(int id) const
{
    m_vocab.token(id); // throws std::out_of_range, with a sentence, for an unknown id
    return m_bytes[static_cast<std::size_t>(id)];
}

void ByteLevelBpe::encodeWord(std::string_view word, std::vector<int>& ids) const
{
    // pass 1: one symbol per byte, doubly linked so that a merge unlinks its right half in O(1)
    struct Symbol {
        int id; ///< -1 once merged into its left neighbour
        std::ptrdiff_t prev;
        std::ptrdiff_t next;
    };
    const auto n = static_cast<std::ptrdiff_t>(word.size());
    std::vector<Symbol> symbols(word.size());
    for (std::ptrdiff_t i = 0; i < n; ++i)
        symbols[i] = {m_byteIds[static_cast<unsigned char>(word[i])], i - 1,
                      i + 1 < n ? i + 1 : -1};

    // pass 2: merge the lowest-ranked adjacent pair, leftmost first among equal ranks, until no
    // pair has a merge. A heap keeps this O(n log n) on long words; entries whose pair has changed
    // since they were pushed are skipped when popped.
    struct Candidate {
        int rank;
        std::ptrdiff_t left;
        int leftId;
        int rightId;
        int result;
    };
    const auto later = [](const Candidate& a, const Candidate& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
    };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later);
    const auto consider = [&](std::ptrdiff_t left) {
        const std::ptrdiff_t right = symbols[left].next;
        if (right < 0)
            return;
        if (const Merge* merge = findMerge(symbols[left].id, symbols[right].id))
            queue.push({merge->rank, left, symbols[left].id, symbols[right].id, merge->result});
    };
    for (std::ptrdiff_t i = 0; i + 1 < n; ++i)
        consider(i);
    while (!queue.empty()) {
        const Candidate c = queue.top();
        queue.pop();
        Symbol& left = symbols[c.left];
        if (left.id != c.leftId || left.next < 0 || symbols[left.next].id != c.rightId)
            continue;
        const std::ptrdiff_t right = left.next;
        left.id = c.result;
        left.next = symbols[right].next;
        if (left.next >= 0)
            symbols[left.next].prev = c.left;
        symbols[right].id = -1;
        if (left.prev >= 0)
            consider(left.prev);
        consider(c.left);
    }

    // pass 3: read the survivors; the first byte's symbol is never a right half, so it survives
    for (std::ptrdiff_t i = n > 0 ? 0 : -1; i >= 0; i = symbols[i].next)
        ids.push_back(symbols[i].id);
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
    const std::string& bytes = bytesOf(id);
    std::string shown;
    const auto showHex = [&](std::size_t pos, std::size_t length) {
        for (std::size_t k = pos; k < pos + length; ++k) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(bytes[k]));
            shown += hex;
        }
    };
    for (std::size_t pos = 0; pos < bytes.size();) {
        const Utf8Char c = decodeUtf8(bytes, pos);
        if (c.codePoint == U' ')
            shown += "␣";
        else if (c.codePoint == U'\n')
            shown += "↵";
        else if (c.codePoint == U'\t')
            shown += "⇥";
        else if (!c.valid || c.codePoint < 0x20 || (c.codePoint >= 0x7F && c.codePoint < 0xA0))
            showHex(pos, c.length);
        else
            shown.append(bytes, pos, c.length);
        pos += c.length;
    }
    return shown;
}

} // namespace attnviz::io
