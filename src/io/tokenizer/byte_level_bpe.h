#pragma once

#include "io/tokenizer/bpe_merges.h"
#include "io/tokenizer/special_tokens.h"
#include "io/tokenizer/tokenizer.h"
#include "io/tokenizer/vocabulary.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// GPT-2's tokenizer: byte-level byte-pair encoding, giving the same ids as Hugging Face's GPT-2
/// tokenizer (the Rust `tokenizers` library). Text is cut at added tokens such as <|endoftext|>
/// (Hugging Face recognises them in plain text too), split into words by GPT-2's regex, each word's
/// UTF-8 bytes are spelled with GPT-2's printable byte alphabet (a space is "Ġ", a newline "Ċ"),
/// and the merges are applied lowest rank first. Any byte string can be encoded: bytes that are not
/// valid UTF-8 are tokenized as bytes of a punctuation-like character, so decode(encode(x)) == x
/// for every input. Factories take file contents, not paths, so the caller decides how to read.
class ByteLevelBpe : public Tokenizer {
public:
    /// From vocab.json (an object of token and id) and merges.txt (an optional "#version" line,
    /// then one "left right" merge per line, in rank order). <|endoftext|> is a special token when
    /// the vocabulary has it, as in Hugging Face's GPT2Tokenizer. Throws FormatError.
    static ByteLevelBpe fromVocabAndMerges(std::string_view vocabJson, std::string_view mergesTxt);
    /// From a Hugging Face tokenizer.json with a BPE model, no normalizer and GPT-2's ByteLevel
    /// pre-tokenizer; merges may be "left right" strings or [left, right] pairs. Its added_tokens
    /// become the special tokens. Throws FormatError for anything else.
    static ByteLevelBpe fromTokenizerJson(std::string_view tokenizerJson);

    std::string_view kind() const override { return "byte-level BPE"; }
    /// The token ids of `utf8` (any bytes are accepted).
    std::vector<int> encode(std::string_view utf8) const override;
    /// The bytes the ids stand for, concatenated. Not necessarily UTF-8 when the ids split a
    /// character; Hugging Face would put U+FFFD there. Throws std::out_of_range for an unknown id.
    std::string decode(const std::vector<int>& ids) const override;
    /// The token as the vocabulary spells it, in GPT-2's byte alphabet ("Ġworld").
    std::string token(int id) const override { return m_vocab.token(id); }
    /// The id of a token spelled as in the vocabulary, if it is one.
    std::optional<int> id(std::string_view token) const override { return m_vocab.find(token); }
    int size() const override { return m_vocab.size(); }
    /// Every byte of the text is in one token, none longer than the longest of the vocabulary.
    std::size_t fewestTokens(std::string_view utf8) const override
    {
        return (utf8.size() + m_longestPiece - 1) / m_longestPiece;
    }
    /// The token as a person reads it: its bytes as UTF-8 with a space shown as "␣", a newline as
    /// "↵", a tab as "⇥", and other control bytes or bytes that are no complete UTF-8 character
    /// (a token may hold part of one) as "\xNN" (io::displayBytes).
    std::string displayToken(int id) const override;
    /// The bytes of every token but the special ones.
    std::optional<std::string> pieceBytes(int id) const override;

private:
    static std::vector<MergeRule> parseMergesTxt(std::string_view text);
    ByteLevelBpe(Vocabulary vocab, const std::vector<MergeRule>& merges, std::string_view vocabName,
                 std::vector<std::pair<std::string, int>> special);
    const std::string& bytesOf(int id) const;
    void encodeWord(std::string_view word, std::vector<int>& ids) const;

    Vocabulary m_vocab;
    std::vector<std::string> m_bytes; ///< the bytes each id decodes to
    std::size_t m_longestPiece = 1; ///< bytes of the longest token or special token
    std::vector<bool> m_isSpecial; ///< by id
    std::array<int, 256> m_byteIds{}; ///< the id of each single byte's symbol
    BpeMerges m_merges;
    SpecialTokens m_special;
};

} // namespace attnviz::io
