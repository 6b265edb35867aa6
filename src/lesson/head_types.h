#pragma once

#include "engine/model_trace.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/heatmap.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace attnviz::lesson {

/// What a head can be found to do. Previous-token, duplicate-token and induction are scored as
/// TransformerLens' head detector scores them ("mul": the share of the head's attention that
/// falls on the cells of a detection pattern, Σ A ⊙ P / Σ A over its whole pattern); the others
/// are read from the weights directly.
enum class HeadType {
    PreviousToken, ///< P[i, i − 1] = 1
    DuplicateToken, ///< P[i, j] = 1 for j < i holding the same token as i
    Induction, ///< P[i, j] = 1 for 1 ≤ j ≤ i whose previous token is i's; on a repeated random
               ///< sequence
    FirstToken, ///< the share of weight on the first token (an attention sink, firstTokenShare)
    Distance, ///< the mean distance attended over, in tokens: Σ_j A[i, j] · |i − j|, per row
    Entropy, ///< the mean entropy of a row, −Σ_j A[i, j] ln A[i, j], in nats
    /// A Vision Transformer's: the mean distance attended over in pixels of its input
    /// (meanAttentionDistanceInPixels)
    PixelDistance,
};

struct HeadTypeInfo {
    HeadType type;
    std::string_view name; ///< "previous_token", …: files, tests
    std::string_view title; ///< "previous-token", as the lesson layer writes it
};

inline constexpr std::array kHeadTypes = {
    HeadTypeInfo{HeadType::PreviousToken, "previous_token", "previous-token score"},
    HeadTypeInfo{HeadType::DuplicateToken, "duplicate_token", "duplicate-token score"},
    HeadTypeInfo{HeadType::Induction, "induction", "induction score"},
    HeadTypeInfo{HeadType::FirstToken, "first_token", "share on the first token"},
    HeadTypeInfo{HeadType::Distance, "distance", "mean attention distance (tokens)"},
    HeadTypeInfo{HeadType::Entropy, "entropy", "mean row entropy (nats)"},
    HeadTypeInfo{HeadType::PixelDistance, "distance_pixels", "mean attention distance (pixels)"},
};

const HeadTypeInfo& headTypeInfo(HeadType type);

/// One score per head of the self-attention blocks of one kind, layers × heads.
struct HeadTypeMap {
    HeadType type;
    engine::Block block;
    int layers = 0;
    int heads = 0;
    std::vector<double> values; ///< layer-major
    double at(int layer, int head) const
    {
        return values[static_cast<std::size_t>(layer * heads + head)];
    }
    /// (layer, head) from the highest score down.
    std::vector<std::pair<int, int>> ranking() const;
    Heatmap heatmap() const;
};

/// The detection pattern of a head type over `tokens` (n × n, row-major, 0 or 1): what
/// TransformerLens' get_*_detection_pattern builds. Only the three pattern types have one.
std::vector<std::uint8_t> detectionPattern(HeadType type, const std::vector<int>& tokens);

/// TransformerLens' "mul" score of a head's weights `attention` [N, N] against a detection
/// pattern: Σ A ⊙ P / Σ A.
double patternScore(const std::vector<std::uint8_t>& pattern, engine::ConstMatrixView attention);

/// Every head type of every self-attention block of a run: the text's own trace for all but the
/// induction score, which is measured on `repeated`'s trace (repeatedRandomTokens). Blocks without
/// weights kept, or over one token, are left out.
std::vector<HeadTypeMap> headTypes(const engine::ModelTrace& text,
                                   const engine::ModelTrace& repeated);

/// A Vision Transformer's head types over its picture: the share on the first token ([CLS]), the
/// mean attention distance in pixels and the row entropy (the token patterns mean nothing for
/// patches). Throws engine::InputError as pictureAttention does.
std::vector<HeadTypeMap> pictureHeadTypes(const engine::ModelTrace& trace,
                                          const engine::ModelConfig& config);

/// The prompt of an induction test: `length` random ids (seeded, uniform over [first, last])
/// written twice, after `prefix` (a BOS, when the tokenizer adds one).
std::vector<int> repeatedRandomTokens(std::vector<int> prefix, int length, int first, int last,
                                      std::uint32_t seed);

/// Runs `model` on its repeated random prompt (its longest that fits, at most 2 × 50 tokens,
/// without special tokens) with its attention weights kept, for headTypes.
engine::ModelTrace runOnRepeatedRandomTokens(const io::LoadedModel& model, std::uint32_t seed = 25);

} // namespace attnviz::lesson
