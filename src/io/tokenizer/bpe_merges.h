#pragma once

#include "io/json.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz::io {

/// One merge of a BPE model as a file spells it, in rank order.
struct MergeRule {
    std::string left;
    std::string right;
    std::string place; ///< where the rule was read, for error messages
};

/// tokenizer.json's model.merges: "left right" strings or ["left", "right"] pairs. Throws
/// FormatError.
std::vector<MergeRule> parseJsonMerges(const JsonValue& model);

/// A BPE model's merge table and the merge loop Hugging Face's BPE runs on each word: repeatedly
/// merge the adjacent pair of lowest rank, leftmost first among equal ranks, until no adjacent
/// pair has a merge. A heap keeps a word of n symbols O(n log n).
class BpeMerges {
public:
    /// How a spelling maps to its id in the model's vocabulary.
    using Lookup = std::function<std::optional<int>(std::string_view)>;

    BpeMerges() = default;
    /// Throws FormatError when a rule's parts or result are not in the vocabulary, which
    /// `vocabName` names. Of two rules for one pair the later counts, as in Hugging Face.
    BpeMerges(const std::vector<MergeRule>& rules, const Lookup& lookup,
              std::string_view vocabName);

    /// Merges `symbols` (ids) in place.
    void apply(std::vector<int>& symbols) const;

private:
    struct Merge {
        int rank;
        int result;
    };
    const Merge* find(int left, int right) const;

    std::unordered_map<std::uint64_t, Merge> m_merges; ///< keyed by left id << 32 | right id
};

} // namespace attnviz::io
