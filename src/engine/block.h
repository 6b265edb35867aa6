#pragma once

#include <optional>
#include <string_view>

namespace attnviz::engine {

/// The sublayers of a Transformer layer. Their names are part of every tensor name: weights
/// (`decoder.layers.0.cross.q_proj.weight`) and trace (`layer0.cross.weights`).
enum class Block { Self, MaskedSelf, Cross, EncoderFeedForward, DecoderFeedForward };

/// "self", "masked_self", "cross", "enc_ffn", "dec_ffn"
const char* blockName(Block block);
std::optional<Block> blockFromName(std::string_view name);
bool isAttention(Block block);
/// The attention blocks any model can have, in computation order.
inline constexpr Block kAttentionBlocks[] = {Block::Self, Block::MaskedSelf, Block::Cross};

} // namespace attnviz::engine
