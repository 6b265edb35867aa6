#pragma once

#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attnviz::app {

enum class MaskKind { None, Causal, ValidLengths, Custom };
enum class Tokenizer { Whitespace, Characters };

/// What the user set in the input panel: sentences, module shape, mask and seed. Plain data, so
/// the checks and the computation can be tested without a window.
struct PlaygroundSettings {
    std::vector<std::string> querySentences{"the cat sat on the mat"}; ///< one per batch item
    std::vector<std::string> keyValueSentences; ///< empty: self-attention
    Tokenizer tokenizer = Tokenizer::Whitespace;
    bool positionalEncoding = true;
    int modelWidth = 16;    ///< D
    int heads = 4;          ///< H
    int queryKeySize = 0;   ///< Pqk (d_k); 0 = D / H
    int valueSize = 0;      ///< Pv (d_v); 0 = D / H
    int outputWidth = 0;    ///< Po; 0 = D
    bool bias = true;
    MaskKind mask = MaskKind::None;
    std::set<std::pair<int, int>> blockedCells; ///< (query, key) blocked by the custom mask
    std::uint32_t seed = 42;

    bool operator==(const PlaygroundSettings&) const = default;
};

/// The fields of the input panel a problem can be attached to.
enum class SettingsField { QuerySentences, KeyValueSentences, ModelWidth, Heads, QueryKeySize,
                           ValueSize, OutputWidth, Mask };

/// One reason why settings cannot be computed, shown next to its field.
struct SettingsProblem {
    SettingsField field;
    std::string message;
};

/// Every problem with the settings; empty when they can be computed.
std::vector<SettingsProblem> checkSettings(const PlaygroundSettings& settings);

/// A computed walkthrough: the tokens, the input matrices and the engine's trace. Immutable once
/// made; views hold it through a shared pointer and read from it.
struct Walkthrough {
    PlaygroundSettings settings;
    std::vector<std::vector<std::string>> queryTokens; ///< [batch][query], padded with "<pad>"
    std::vector<std::vector<std::string>> keyTokens;   ///< [batch][key], padded with "<pad>"
    std::vector<int> keyLengths;                       ///< real (unpadded) keys per batch item
    engine::Tensor queryEmbedding;  ///< [batch, query, feature] token embeddings
    engine::Tensor positional;      ///< [position, feature] (zeros when switched off)
    engine::Tensor queryInput;      ///< [batch, query, feature] X = embedding + position
    engine::Tensor keyValueInput;   ///< [batch, key, feature]; same as queryInput for self-attention
    engine::AttentionWeights weights;
    engine::AttentionTrace trace;
    double milliseconds = 0;
    /// Where X comes from when it is not embedding + position: one attention block of a whole
    /// model reads the previous layer's output ("X = LayerNorm(output of layer 0)").
    std::string queryInputOrigin;
    std::string keyValueInputOrigin;

    bool selfAttention() const { return settings.keyValueSentences.empty(); }
    int dk() const { return static_cast<int>(trace.qHeads.dim(3)); }
    int dv() const { return static_cast<int>(trace.vHeads.dim(3)); }
};

/// Tokenises, embeds (a seeded random table: the same token always gets the same vector), draws
/// the weights from the seed, and runs the engine. Call only with settings checkSettings accepts.
std::shared_ptr<const Walkthrough> computeWalkthrough(const PlaygroundSettings& settings);

/// Splits a sentence into tokens.
std::vector<std::string> tokenize(const std::string& sentence, Tokenizer tokenizer);

} // namespace attnviz::app
