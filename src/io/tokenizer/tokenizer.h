#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// What a tooltip says about one token (Tokenizer::tokenDetails). The values only: the words
/// around them belong to the interface's language (the app words them; describe() in English).
struct TokenDetail {
    std::string spelling; ///< the vocabulary's spelling, escaped with printable()
    int id = 0;
    /// The token's bytes in hex ("E4 BD") when it is a byte piece or shares a character with its
    /// neighbours; empty otherwise.
    std::string bytes;
    /// Part `part` of `parts` (from 1) of `whole` when the token's bytes form a character only
    /// with its neighbours; 0 otherwise.
    int part = 0;
    int parts = 0;
    std::string whole; ///< the character(s) the parts make, escaped
    std::string codePoints; ///< of `whole`: "U+4F60"
    bool operator==(const TokenDetail&) const = default;
};

/// One English line: "ä½" · id 19526 · bytes E4 BD · part 1 of 2 of "你" (U+4F60)
std::string describe(const TokenDetail& detail);

/// Turns text into a model's token ids and back, exactly as the model was trained: AttnViz's own
/// character or word vocabularies, GPT-2's byte-level BPE, BERT's WordPiece. A model folder's
/// checkpoint layout chooses the tokenizer (io/checkpoint).
class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    /// What kind of tokenizer this is ("char", "word", "byte-level BPE", "WordPiece").
    virtual std::string_view kind() const = 0;
    virtual int size() const = 0;
    /// The ids of `text`, with the special tokens the model expects around it (BERT's [CLS] …
    /// [SEP]). Throws engine::InputError with one sentence when the text cannot be encoded.
    virtual std::vector<int> encode(std::string_view text) const = 0;
    virtual std::string decode(const std::vector<int>& ids) const = 0;
    /// The vocabulary's own string for an id, as Hugging Face's convert_ids_to_tokens gives it
    /// (GPT-2's "Ġworld", BERT's "##ing"): what dumps store next to the ids.
    virtual std::string token(int id) const = 0;
    /// The id of a vocabulary entry, if it is one.
    virtual std::optional<int> id(std::string_view token) const = 0;
    /// A token as people read it on a heatmap's axis: a visible space mark, no byte artefacts.
    virtual std::string displayToken(int id) const { return token(id); }
    /// The raw bytes a token stands for in the text ("Ġworld" and "▁world" stand for " world",
    /// "<0xE4>" for the byte E4), which may be part of a character; nullopt for special tokens and
    /// for tokenizers whose tokens are no byte pieces.
    virtual std::optional<std::string> pieceBytes(int) const { return std::nullopt; }
    /// The segment of each token for models that tell sentences apart (BERT's token types);
    /// empty where there are none, which the engine reads as all 0.
    virtual std::vector<int> tokenTypes(const std::vector<int>&) const { return {}; }

    /// The fewest tokens `text` can encode to, told from its length alone, or 0 where the
    /// tokenizer cannot tell (a normaliser may delete, a whole word may become one [UNK]). Asked
    /// before encoding, so that a line of megabytes for a model of 64 tokens is refused without
    /// being tokenized.
    virtual std::size_t fewestTokens(std::string_view) const { return 0; }

    std::vector<std::string> tokens(const std::vector<int>& ids) const;
    /// Each token as displayToken shows it, except that tokens whose bytes form a character only
    /// together (a CJK character or an emoji cut into byte pieces) each show the whole
    /// character(s) with a part mark: "你·1/3", "你·2/3", "你·3/3".
    std::vector<std::string> displayTokens(const std::vector<int>& ids) const;
    /// What a tooltip says about each token: its vocabulary spelling and id and, for a byte
    /// piece, its bytes and the character it is part of.
    std::vector<TokenDetail> tokenDetails(const std::vector<int>& ids) const;
};

} // namespace attnviz::io
