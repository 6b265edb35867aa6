#include "io/tokenizer/bpe_merges.h"

#include "io/file_error.h"
#include "io/safetensors.h"

#include <queue>

namespace attnviz::io {
namespace {

std::uint64_t pairKey(int left, int right)
{
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32 |
        static_cast<std::uint32_t>(right);
}

} // namespace

std::vector<MergeRule> parseJsonMerges(const JsonValue& model)
{
    const JsonValue* merges = model.find("merges");
    if (!merges || !merges->isArray())
        throw FormatError(
            "tokenizer.json's model has no \"merges\" array; expected the BPE merges");
    std::vector<MergeRule> rules;
    rules.reserve(merges->asArray().size());
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

BpeMerges::BpeMerges(const std::vector<MergeRule>& rules, const Lookup& lookup,
                     std::string_view vocabName)
{
    m_merges.reserve(rules.size());
    for (std::size_t rank = 0; rank < rules.size(); ++rank) {
        const MergeRule& rule = rules[rank];
        const std::optional<int> left = lookup(rule.left);
        const std::optional<int> right = lookup(rule.right);
        const std::optional<int> result = lookup(rule.left + rule.right);
        if (!left || !right || !result)
            throw FormatError(rule.place + " merges \"" + printable(rule.left) + "\" and \"" +
                              printable(rule.right) + "\"; expected it and its parts in " +
                              std::string(vocabName));
        m_merges.insert_or_assign(pairKey(*left, *right), Merge{static_cast<int>(rank), *result});
    }
}

const BpeMerges::Merge* BpeMerges::find(int left, int right) const
{
    const auto it = m_merges.find(pairKey(left, right));
    return it == m_merges.end() ? nullptr : &it->second;
}

void BpeMerges::apply(std::vector<int>& ids) const
{
    if (ids.size() < 2 || m_merges.empty())
        return;
    // The symbols, doubly linked so that a merge unlinks its right half in O(1).
    struct Symbol {
        int id; ///< -1 once merged into its left neighbour
        std::ptrdiff_t prev;
        std::ptrdiff_t next;
    };
    const auto n = static_cast<std::ptrdiff_t>(ids.size());
    std::vector<Symbol> symbols(ids.size());
    for (std::ptrdiff_t i = 0; i < n; ++i)
        symbols[i] = {ids[i], i - 1, i + 1 < n ? i + 1 : -1};

    // Entries whose pair has changed since they were pushed are skipped when popped.
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
        if (const Merge* merge = find(symbols[left].id, symbols[right].id))
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

    // The first symbol is never a right half, so it survives.
    ids.clear();
    for (std::ptrdiff_t i = 0; i >= 0; i = symbols[i].next)
        ids.push_back(symbols[i].id);
}

} // namespace attnviz::io
