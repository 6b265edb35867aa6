#pragma once

#include "engine/attention_trace.h"
#include "engine/tensor.h"
#include "io/safetensors.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnviz::io {

/// The most float output an import may need (layers · heads · query · key · 4 bytes), checked on
/// the header's shapes before anything is allocated.
inline constexpr std::uint64_t kMaxImportedFloatBytes = 4ull << 30;
/// The longest token, and the longest model name, in bytes.
inline constexpr std::size_t kMaxImportedTokenBytes = 1024;
/// How far a row's sum may be from 1: covers weights rounded to BF16 (8 significant bits).
inline constexpr double kImportedRowSumTolerance = 0.01;
/// The largest weight a causal import may have above the diagonal (key after query).
inline constexpr float kImportedCausalTolerance = 1e-6f;

/// Attention weights computed elsewhere — by a model too large for AttnViz to run — read from a
/// safetensors file in the format of docs/attention-import.md: per-layer tensors `layer0`,
/// `layer1`, … or one stacked `attentions`, and the tokens in the metadata.
struct ImportedAttentions {
    std::string model; ///< metadata `model`; empty when the file names none
    std::vector<std::string> queryTokens; ///< one per query row
    std::vector<std::string> keyTokens; ///< one per key column; equal to queryTokens unless cross
    bool crossAttention = false; ///< the file gave `query_tokens` and `key_tokens`
    bool causal = false; ///< metadata `causal`; checked: no weight above the diagonal
    int layers = 0;
    int heads = 0;
    /// One tensor per layer, [batch=1, head, query, key] with those axis names, as
    /// AttentionTrace::weights: every row sums to 1 or is all zeros.
    std::vector<engine::Tensor> weights;
    /// Per layer: the query rows that are all zeros in every head (batch 0), as
    /// AttentionTrace::fullyMaskedRows lists them.
    std::vector<std::vector<engine::MaskedRow>> fullyMaskedRows;
};

/// Reads an attention import from a parsed safetensors file. Every check of
/// docs/attention-import.md is made — tensor names, dtypes, ranks and agreeing shapes, the size
/// limit (before allocating), the tokens, finite non-negative values, rows that are probability
/// distributions or all zeros, causality — and a violation throws FormatError with one sentence
/// naming the tensor or metadata field at fault and what was expected (names and tokens escaped
/// with printable()). The sentence does not name the file: callers prefix its path.
ImportedAttentions readAttentionImport(const SafetensorsFile& file);

/// Memory-maps `path` and reads it as above; throws FileError when it cannot be read.
ImportedAttentions readAttentionImport(const std::string& path);

/// The bytes reading the import takes, from the header alone: its weights as floats and the
/// file's bytes, mapped in as they are read. Throws FormatError where readAttentionImport would
/// refuse the header (names, shapes, the size limit).
std::uint64_t attentionImportBytes(const SafetensorsFile& file);

} // namespace attnviz::io
