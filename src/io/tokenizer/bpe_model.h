#pragma once

#include "io/json.h"
#include "io/tokenizer/bpe_merges.h"
#include "io/tokenizer/vocabulary.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// tokenizer.json's BPE "model" as Hugging Face's models/bpe runs it on one word: each character
/// looked up in the vocabulary (a missing one becomes its <0xXX> byte pieces with byte_fallback,
/// else the unk_token, consecutive ones fused with fuse_unk, else nothing), then the merges; with
/// ignore_merges a word that is itself a vocabulary entry is taken whole first (Llama 3).
class BpeModel {
public:
    /// An empty vocabulary.
    BpeModel() = default;
    /// From the "model" object and the vocabulary, which is model.vocab with the added tokens
    /// appended after its first `modelSize` ids: the model itself looks up only those. Throws
    /// FormatError for a setting AttnViz does not read (dropout, a subword prefix or suffix) or
    /// merges and an unk_token outside the vocabulary.
    static BpeModel fromJson(const JsonValue& model, Vocabulary vocab, int modelSize);

    /// Appends the ids of `word` (valid UTF-8, in the model's alphabet) to `ids`.
    void encodeWord(std::string_view word, std::vector<int>& ids) const;
    /// Appends the ids of bytes that are no UTF-8 (which no pre-tokenizer saw) to `ids`: their
    /// <0xXX> pieces, or the unk_token (fused as fuse_unk says), or nothing.
    void encodeInvalidBytes(std::string_view bytes, std::vector<int>& ids) const;

    const Vocabulary& vocabulary() const { return m_vocab; }
    /// The id of `token` among the model's own entries (not the added tokens).
    std::optional<int> modelId(std::string_view token) const;
    /// The byte a "<0xXX>" piece stands for.
    std::optional<unsigned char> fallbackByte(int id) const;

private:
    void appendUnknown(std::optional<int>& pendingUnk, std::vector<int>& symbols) const;
    /// Adds the waiting unknown, merges and appends the word's ids.
    void finishWord(std::vector<int>& symbols, std::optional<int> pendingUnk,
                    std::vector<int>& ids) const;

    Vocabulary m_vocab;
    int m_modelSize = 0;
    BpeMerges m_merges;
    bool m_ignoreMerges = false;
    bool m_byteFallback = false;
    bool m_fuseUnk = false;
    std::optional<int> m_unk;
    std::array<std::optional<int>, 256> m_byteIds{}; ///< the <0xXX> piece of each byte
};

} // namespace attnviz::io
