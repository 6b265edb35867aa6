#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

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
    /// The segment of each token for models that tell sentences apart (BERT's token types);
    /// empty where there are none, which the engine reads as all 0.
    virtual std::vector<int> tokenTypes(const std::vector<int>&) const { return {}; }

    std::vector<std::string> tokens(const std::vector<int>& ids) const;
    std::vector<std::string> displayTokens(const std::vector<int>& ids) const;
};

} // namespace attnviz::io
