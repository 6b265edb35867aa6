#include "io/tokenizer/tokenizer_pipeline.h"

#include "io/safetensors.h"
#include "io/tokenizer/byte_alphabet.h"
#include "io/tokenizer/token_display.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

#include <chrono>
#include <unordered_map>

namespace attnviz::io {
namespace {

/// Words longer than this are not cached: long runs (of spaces, say) rarely repeat.
constexpr std::size_t kMaxCachedWordBytes = 256;
/// How long the patterns (the normaliser's Replace, the pre-tokenizer's Split) may run over one
/// text, all of them and every stretch between added tokens together, before encode gives up: a
/// last resort against a hostile pattern that Oniguruma's retry limits let through one search at
/// a time. Real patterns take under a second on a megabyte (about 7 s under AddressSanitizer on a
/// busy machine), so no real text depends on the machine's speed.
constexpr std::chrono::seconds kPatternTimeLimit{60};

/// The model's alphabet writes a space as this (SentencePiece's "▁").
constexpr std::string_view kMetaspace = "▁";

std::optional<int> settingToken(const std::optional<std::string>& name, const Vocabulary& vocab,
                                std::string_view key)
{
    if (!name)
        return std::nullopt;
    const std::optional<int> id = vocab.find(*name);
    if (!id)
        throw FormatError("tokenizer_config.json's " + std::string(key) + " \"" + printable(*name) +
                          "\" is not in tokenizer.json's vocabulary; expected "
                          "one of its tokens");
    return id;
}

/// Puts `id` at the front (`front`) or the back of `side` when `wanted`, takes it away when not.
void requireAtEdge(std::vector<int>& side, bool front, std::optional<int> id, bool wanted,
                   std::string_view key)
{
    const bool there = id && !side.empty() && (front ? side.front() : side.back()) == *id;
    if (wanted && !there) {
        if (!id)
            throw FormatError("tokenizer_config.json sets " + std::string(key) +
                              " but neither it nor tokenizer.json says which token that is; "
                              "expected a bos_token or eos_token");
        side.insert(front ? side.begin() : side.end(), *id);
    } else if (!wanted && there) {
        side.erase(front ? side.begin() : side.end() - 1);
    }
}

} // namespace

/// What one encode call carries along: the ids so far, a cache of the words seen (word -> its
/// range in `ids`; running text repeats its words) and the one deadline of its patterns.
struct TokenizerPipeline::EncodeState {
    std::vector<int>& ids;
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> cache;
    std::chrono::steady_clock::time_point deadline;
};

std::unique_ptr<TokenizerPipeline> TokenizerPipeline::fromTokenizerJson(
    std::string_view tokenizerJson, const TokenizerSettings& settings)
{
    const JsonValue root = parseTokenizerJson(tokenizerJson, "BPE");
    const JsonValue& model = tokenizerModel(root);
    std::unique_ptr<TokenizerPipeline> pipeline(new TokenizerPipeline);
    pipeline->m_normalizer = Normalizer::fromJson(root.find("normalizer"));
    pipeline->m_preTokenizer = PreTokenizer::fromJson(root.find("pre_tokenizer"));
    pipeline->m_decoder = Decoder::fromJson(root.find("decoder"));
    pipeline->m_byteLevel = pipeline->m_preTokenizer.byteLevel();

    const JsonValue* vocabObject = model.find("vocab");
    Vocabulary vocab = Vocabulary::fromJsonObject(vocabObject ? *vocabObject : JsonValue(),
                                                  "tokenizer.json's model.vocab");
    const int modelSize = vocab.size();
    std::vector<AddedToken> added = readAddedTokenEntries(root, vocab);
    pipeline->m_isSpecial.assign(static_cast<std::size_t>(vocab.size()), false);
    for (const AddedToken& token : added)
        if (token.special)
            pipeline->m_isSpecial[static_cast<std::size_t>(token.id)] = true;
    pipeline->m_added = AddedVocabulary(std::move(added), pipeline->m_normalizer);
    pipeline->m_model = BpeModel::fromJson(model, std::move(vocab), modelSize);

    const Vocabulary& known = pipeline->m_model.vocabulary();
    SpecialTokenTemplate& wrap = pipeline->m_template;
    wrap = readPostProcessor(root.find("post_processor"), known.size());
    pipeline->m_bos = settingToken(settings.bosToken, known, "bos_token");
    pipeline->m_eos = settingToken(settings.eosToken, known, "eos_token");
    if (!pipeline->m_bos && !wrap.before.empty())
        pipeline->m_bos = wrap.before.front();
    if (!pipeline->m_eos && !wrap.after.empty())
        pipeline->m_eos = wrap.after.back();
    if (settings.addBosToken)
        requireAtEdge(wrap.before, true, pipeline->m_bos, *settings.addBosToken, "add_bos_token");
    if (settings.addEosToken)
        requireAtEdge(wrap.after, false, pipeline->m_eos, *settings.addEosToken, "add_eos_token");
    return pipeline;
}

std::string_view TokenizerPipeline::kind() const
{
    return m_byteLevel ? "byte-level BPE" : "SentencePiece BPE";
}

std::vector<int> TokenizerPipeline::encode(std::string_view text) const
{
    std::vector<int> ids = m_template.before;
    const std::vector<int> body = encodeWithoutSpecialTokens(text);
    ids.insert(ids.end(), body.begin(), body.end());
    ids.insert(ids.end(), m_template.after.begin(), m_template.after.end());
    return ids;
}

std::vector<int> TokenizerPipeline::encodeWithoutSpecialTokens(std::string_view text) const
{
    std::vector<int> ids;
    EncodeState state{ids, {}, std::chrono::steady_clock::now() + kPatternTimeLimit};
    for (const AddedVocabulary::Piece& piece : m_added.split(text, false)) {
        if (piece.id >= 0)
            ids.push_back(piece.id);
        else
            encodeText(text.substr(piece.start, piece.end - piece.start), piece.start == 0, state);
    }
    return ids;
}

void TokenizerPipeline::encodeText(std::string_view text, bool startsText, EncodeState& state) const
{
    // Bytes that are no UTF-8 cut the text like added tokens (no pattern may see them) and
    // become byte pieces of their own.
    std::size_t validStart = 0;
    for (std::size_t pos = 0; pos <= text.size();) {
        const bool atEnd = pos == text.size();
        if (!atEnd && decodeUtf8(text, pos).valid) {
            pos += decodeUtf8(text, pos).length;
            continue;
        }
        if (pos > validStart)
            encodeValid(text.substr(validStart, pos - validStart), startsText && validStart == 0,
                        state);
        if (atEnd)
            break;
        std::size_t invalidEnd = pos;
        while (invalidEnd < text.size() && !decodeUtf8(text, invalidEnd).valid)
            ++invalidEnd;
        const std::string_view bytes = text.substr(pos, invalidEnd - pos);
        if (m_byteLevel) {
            std::string spelled;
            appendByteSymbols(spelled, bytes);
            m_model.encodeWord(spelled, state.ids);
        } else {
            m_model.encodeInvalidBytes(bytes, state.ids);
        }
        pos = validStart = invalidEnd;
    }
}

void TokenizerPipeline::encodeValid(std::string_view utf8, bool startsText,
                                    EncodeState& state) const
{
    const std::string normalized = m_normalizer.apply(utf8, state.deadline);
    for (const AddedVocabulary::Piece& piece : m_added.split(normalized, true)) {
        if (piece.id >= 0) {
            state.ids.push_back(piece.id);
            continue;
        }
        PreToken stretch{normalized.substr(piece.start, piece.end - piece.start),
                         startsText && piece.start == 0};
        for (const PreToken& word : m_preTokenizer.apply(std::move(stretch), state.deadline)) {
            if (const auto hit = state.cache.find(word.text); hit != state.cache.end()) {
                for (std::size_t k = hit->second.first; k < hit->second.second; ++k) {
                    const int id = state.ids[k];
                    state.ids.push_back(id);
                }
                continue;
            }
            const std::size_t begin = state.ids.size();
            m_model.encodeWord(word.text, state.ids);
            if (word.text.size() <= kMaxCachedWordBytes)
                state.cache.emplace(word.text, std::pair(begin, state.ids.size()));
        }
    }
}

std::string TokenizerPipeline::decode(const std::vector<int>& ids) const
{
    return m_decoder.decode(tokens(ids));
}

std::optional<int> TokenizerPipeline::id(std::string_view token) const
{
    return m_model.vocabulary().find(token);
}

std::string TokenizerPipeline::displayToken(int id) const
{
    if (const std::optional<std::string> bytes = pieceBytes(id))
        return displayBytes(*bytes);
    return token(id);
}

std::optional<std::string> TokenizerPipeline::pieceBytes(int id) const
{
    const std::string& spelled = m_model.vocabulary().token(id); // throws for an unknown id
    if (m_isSpecial[static_cast<std::size_t>(id)])
        return std::nullopt;
    if (!m_model.modelId(spelled))
        return spelled; // an added token that is not special stands for its text
    if (m_byteLevel)
        return bytesOfSymbols(spelled).value_or(spelled);
    if (const std::optional<unsigned char> byte = m_model.fallbackByte(id))
        return std::string(1, static_cast<char>(*byte));
    std::string bytes;
    std::size_t start = 0;
    for (std::size_t at; (at = spelled.find(kMetaspace, start)) != std::string::npos;
         start = at + kMetaspace.size())
        bytes.append(spelled, start, at - start).append(" ");
    return bytes.append(spelled, start);
}

} // namespace attnviz::io
