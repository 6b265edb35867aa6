#include "io/tokenizer/bpe_model.h"

#include "io/safetensors.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"

#include <cstdio>
#include <utility>

namespace attnviz::io {
namespace {

bool modelFlag(const JsonValue& model, std::string_view key)
{
    const JsonValue* value = model.find(key);
    if (!value || value->isNull())
        return false;
    if (!value->isBool())
        throw FormatError("tokenizer.json's model." + std::string(key) + " is " +
                          value->describe() + "; expected true or false");
    return value->asBool();
}

} // namespace

BpeModel BpeModel::fromJson(const JsonValue& model, Vocabulary vocab, int modelSize)
{
    const JsonValue* dropout = model.find("dropout");
    if (dropout && !dropout->isNull() && !(dropout->isNumber() && dropout->asNumber() == 0.0))
        throw FormatError("tokenizer.json's BPE model has dropout " + dropout->describe() +
                          "; AttnViz reads models without dropout (null), whose ids do not vary");
    if (!stringSetting(model, "continuing_subword_prefix", "").empty() ||
        !stringSetting(model, "end_of_word_suffix", "").empty())
        throw FormatError("tokenizer.json's BPE model has a continuing_subword_prefix or an "
                          "end_of_word_suffix; AttnViz reads BPE models without them (null)");

    BpeModel result;
    result.m_vocab = std::move(vocab);
    result.m_modelSize = modelSize;
    result.m_ignoreMerges = modelFlag(model, "ignore_merges");
    result.m_byteFallback = modelFlag(model, "byte_fallback");
    result.m_fuseUnk = modelFlag(model, "fuse_unk");
    const std::string unk = stringSetting(model, "unk_token", "");
    if (!unk.empty()) {
        result.m_unk = result.modelId(unk);
        if (!result.m_unk)
            throw FormatError("tokenizer.json's BPE model has the unk_token \"" + printable(unk) +
                              "\"; expected a token of its vocabulary");
    }
    for (int b = 0; b < 256; ++b) {
        char piece[8];
        std::snprintf(piece, sizeof piece, "<0x%02X>", b);
        result.m_byteIds[b] = result.modelId(piece);
    }
    result.m_merges = BpeMerges(
        parseJsonMerges(model), [&result](std::string_view token) { return result.modelId(token); },
        "tokenizer.json's model.vocab");
    return result;
}

std::optional<int> BpeModel::modelId(std::string_view token) const
{
    const std::optional<int> id = m_vocab.find(token);
    return id && *id < m_modelSize ? id : std::nullopt;
}

std::optional<unsigned char> BpeModel::fallbackByte(int id) const
{
    for (int b = 0; b < 256; ++b)
        if (m_byteIds[b] == id)
            return static_cast<unsigned char>(b);
    return std::nullopt;
}

void BpeModel::appendUnknown(std::optional<int>& pendingUnk, std::vector<int>& symbols) const
{
    if (!m_unk)
        return; // Hugging Face drops a character it can neither find nor spell in bytes
    if (pendingUnk && !m_fuseUnk)
        symbols.push_back(*pendingUnk);
    pendingUnk = m_unk;
}

void BpeModel::finishWord(std::vector<int>& symbols, std::optional<int> pendingUnk,
                          std::vector<int>& ids) const
{
    if (pendingUnk)
        symbols.push_back(*pendingUnk);
    m_merges.apply(symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
}

void BpeModel::encodeWord(std::string_view word, std::vector<int>& ids) const
{
    if (word.empty())
        return;
    if (m_ignoreMerges)
        if (const std::optional<int> whole = modelId(word)) {
            ids.push_back(*whole);
            return;
        }
    std::vector<int> symbols;
    symbols.reserve(word.size());
    // An unknown character waits here, so that fuse_unk can join it with the next ones. As in
    // Hugging Face, byte pieces of a later character go before it.
    std::optional<int> pendingUnk;
    for (std::size_t pos = 0; pos < word.size();) {
        const std::size_t length = decodeUtf8(word, pos).length;
        const std::string_view character = word.substr(pos, length);
        pos += length;
        if (const std::optional<int> id = modelId(character)) {
            if (pendingUnk)
                symbols.push_back(*std::exchange(pendingUnk, std::nullopt));
            symbols.push_back(*id);
            continue;
        }
        bool spelled = m_byteFallback;
        for (const char byte : character)
            spelled = spelled && m_byteIds[static_cast<unsigned char>(byte)].has_value();
        if (spelled)
            for (const char byte : character)
                symbols.push_back(*m_byteIds[static_cast<unsigned char>(byte)]);
        else
            appendUnknown(pendingUnk, symbols);
    }
    finishWord(symbols, pendingUnk, ids);
}

void BpeModel::encodeInvalidBytes(std::string_view bytes, std::vector<int>& ids) const
{
    std::vector<int> symbols;
    std::optional<int> pendingUnk;
    for (const char byte : bytes) {
        const std::optional<int> piece = m_byteIds[static_cast<unsigned char>(byte)];
        if (m_byteFallback && piece)
            symbols.push_back(*piece);
        else
            appendUnknown(pendingUnk, symbols);
    }
    finishWord(symbols, pendingUnk, ids);
}

} // namespace attnviz::io
