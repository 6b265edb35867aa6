#pragma once

#include "engine/model_config.h"
#include "lesson/heatmap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// Lesson 4 of today's attention: how far back one token can hear through a stack of causal
/// self-attention layers when some or all of them have a sliding window. A layer with a window of
/// W lets a token read the W − 1 tokens before it; what those tokens read in the layers below
/// reaches it too, so after L windowed layers the reach is L · (W − 1) tokens, and a layer
/// without a window reaches every earlier token at once.
struct WindowReach {
    /// The window of each layer, first layer first; nullopt for a layer that sees every earlier
    /// token.
    std::vector<std::optional<std::int64_t>> windows;
    int query = 0; ///< the token whose reach is drawn
    /// After each layer: how many tokens before `query` can have reached it; nullopt once a
    /// layer without a window has let every earlier token in.
    std::vector<std::optional<std::int64_t>> reach;
    /// Layers down, tokens across: 2 where the layer's own window lets `query` read the token, 1
    /// where the token reaches it only through the layers below, 0 where it cannot have reached
    /// it yet; tokens after `query` are blocked (causal).
    Heatmap map;
};

/// The windows of a model's decoder self-attention layers (engine::attentionDescription).
std::vector<std::optional<std::int64_t>> layerWindows(const engine::ModelConfig& config);

/// The reach of token `query` of `tokens` (its labels) through layers with `windows`. Throws
/// engine::InputError for an empty stack, a window below 1, or a query outside the tokens.
WindowReach windowReach(std::vector<std::optional<std::int64_t>> windows,
                        std::vector<std::string> tokens, int query);

} // namespace attnviz::lesson
