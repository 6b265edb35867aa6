#pragma once

#include "io/tokenizer/longest_match.h"
#include "io/tokenizer/special_tokens.h"
#include "io/tokenizer/tokenizer.h"
#include "io/tokenizer/vocabulary.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// Uncased BERT's tokenizer, giving the same ids as Hugging Face's (the Rust `tokenizers`
/// library's BertNormalizer, BertPreTokenizer, WordPiece and [CLS] $A [SEP] template). Text is
/// cut at special tokens ([CLS], [SEP], [MASK], ... typed into the text count as themselves),
/// normalised and split into words (bertWords), and each word is cut greedily into the longest
/// vocabulary pieces from its start, pieces after the first spelled with "##". A word that cannot
/// be cut that way, or is longer than 100 characters, becomes [UNK] as a whole. Factories take
/// file contents, not paths, so the caller decides how to read.
class WordPiece : public Tokenizer {
public:
    /// From vocab.txt: one token per line, id = line index. [PAD], [UNK], [CLS], [SEP] and [MASK]
    /// are the special tokens, as in Hugging Face's BertTokenizer; [UNK], [CLS] and [SEP] are
    /// required. Throws FormatError.
    static WordPiece fromVocabTxt(std::string_view vocabTxt);
    /// From a Hugging Face tokenizer.json with a WordPiece model, an uncased BertNormalizer and
    /// the BertPreTokenizer; its added_tokens become the special tokens. Throws FormatError.
    static WordPiece fromTokenizerJson(std::string_view tokenizerJson);

    std::string_view kind() const override { return "WordPiece"; }
    /// The ids of `utf8` between [CLS] and [SEP], as BERT reads a single sentence.
    std::vector<int> encode(std::string_view utf8) const override;
    /// The ids of `utf8` alone, without [CLS] and [SEP].
    std::vector<int> encodeWithoutSpecialTokens(std::string_view utf8) const;
    /// Hugging Face's WordPiece decoding: tokens joined by spaces, "##" pieces glued to the one
    /// before, no space before . , ! ? (special tokens are kept). Throws std::out_of_range for an
    /// unknown id.
    std::string decode(const std::vector<int>& ids) const override;
    /// The vocabulary's token ("hello", "##ing", "[CLS]").
    std::string token(int id) const override { return m_vocab.token(id); }
    /// The id of a vocabulary token, if it is one.
    std::optional<int> id(std::string_view token) const override { return m_vocab.find(token); }
    int size() const override { return m_vocab.size(); }
    /// The token as shown on a heatmap axis: as the vocabulary spells it, "##" kept, so that a
    /// tooltip can join the pieces of a word.
    std::string displayToken(int id) const override { return m_vocab.token(id); }
    /// BERT's segments: 0 up to and including the first [SEP], 1 after it, so "a [SEP] b" is
    /// read as a sentence pair, as the tokenizer's pair encoding would give it.
    std::vector<int> tokenTypes(const std::vector<int>& ids) const override;

private:
    struct Settings {
        std::string unkToken = "[UNK]";
        std::string prefix = "##";
        std::size_t maxCharsPerWord = 100;
    };

    WordPiece(Vocabulary vocab, std::vector<std::pair<std::string, int>> special, Settings settings,
              std::string_view vocabName);
    void encodeWord(std::string_view word, std::vector<int>& ids) const;

    Vocabulary m_vocab;
    SpecialTokens m_special;
    Settings m_settings;
    int m_unkId = 0;
    int m_clsId = 0;
    int m_sepId = 0;
    LongestMatchFinder m_wordStarts; ///< every token, for a word's first piece
    LongestMatchFinder m_continuations; ///< the tokens spelled with the prefix, without it
};

} // namespace attnviz::io
