#pragma once

#include "io/tokenizer/added_vocabulary.h"
#include "io/tokenizer/bpe_model.h"
#include "io/tokenizer/decoder.h"
#include "io/tokenizer/normalizer.h"
#include "io/tokenizer/post_processor.h"
#include "io/tokenizer/pre_tokenizer.h"
#include "io/tokenizer/tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// What a folder's tokenizer_config.json says about special tokens; unset = as tokenizer.json
/// says.
struct TokenizerSettings {
    /// add_bos_token / add_eos_token: whether encode() puts the BOS (EOS) token first (last),
    /// whatever the post-processor's template does.
    std::optional<bool> addBosToken, addEosToken;
    /// bos_token / eos_token: which tokens those are.
    std::optional<std::string> bosToken, eosToken;
};

/// A Hugging Face tokenizer.json with a BPE model, run step by step as Hugging Face's Rust
/// `tokenizers` runs it, giving the same ids: added tokens cut out, normaliser, pre-tokenizer,
/// BPE, post-processor — byte-level BPE with a Split pattern (Llama 3, Qwen2, SmolLM) or
/// SentencePiece-style BPE with byte fallback (Llama 2, Mistral, TinyLlama). docs/tokenizers.md
/// lists the steps read and refused. Bytes that are no UTF-8 split the text as an added token
/// would, and become byte pieces of their own (the byte alphabet, or <0xXX>/unk).
class TokenizerPipeline : public Tokenizer {
public:
    /// Throws FormatError with one sentence naming tokenizer.json and what it does not read.
    static std::unique_ptr<TokenizerPipeline> fromTokenizerJson(
        std::string_view tokenizerJson, const TokenizerSettings& settings = {});

    /// "byte-level BPE" or "SentencePiece BPE".
    std::string_view kind() const override;
    int size() const override { return m_model.vocabulary().size(); }
    /// The ids with the special tokens the post-processor (or tokenizer_config.json) puts around
    /// them. Any bytes are accepted; engine::InputError only for a split pattern that backtracks
    /// without end.
    std::vector<int> encode(std::string_view text) const override;
    std::vector<int> encodeWithoutSpecialTokens(std::string_view text) const;
    /// The decoder's text, special tokens included. Throws std::out_of_range for an unknown id.
    std::string decode(const std::vector<int>& ids) const override;
    std::string token(int id) const override { return m_model.vocabulary().token(id); }
    std::optional<int> id(std::string_view token) const override;
    /// A special token as its text ("<s>", "<|begin_of_text|>"), any other as its bytes with a
    /// visible space (io::displayBytes).
    std::string displayToken(int id) const override;
    std::optional<std::string> pieceBytes(int id) const override;

    std::optional<int> bosId() const { return m_bos; }
    std::optional<int> eosId() const { return m_eos; }

private:
    TokenizerPipeline() = default;
    struct EncodeState;
    void encodeText(std::string_view text, bool startsText, EncodeState& state) const;
    void encodeValid(std::string_view utf8, bool startsText, EncodeState& state) const;

    Normalizer m_normalizer;
    PreTokenizer m_preTokenizer;
    BpeModel m_model;
    AddedVocabulary m_added;
    Decoder m_decoder;
    SpecialTokenTemplate m_template;
    std::optional<int> m_bos, m_eos;
    std::vector<bool> m_isSpecial; ///< by id
    bool m_byteLevel = false;
};

} // namespace attnviz::io
