#include "engine/model_weights.h"

namespace attnviz::engine {

const char* blockName(Block block)
{
    switch (block) {
    case Block::Self:
        return "self";
    case Block::MaskedSelf:
        return "masked_self";
    case Block::Cross:
        return "cross";
    case Block::EncoderFeedForward:
        return "enc_ffn";
    case Block::DecoderFeedForward:
        return "dec_ffn";
    }
    return "";
}

std::optional<Block> blockFromName(std::string_view name)
{
    for (const Block b : {Block::Self, Block::MaskedSelf, Block::Cross, Block::EncoderFeedForward,
                          Block::DecoderFeedForward})
        if (name == blockName(b))
            return b;
    return std::nullopt;
}

bool isAttention(Block block)
{
    return block == Block::Self || block == Block::MaskedSelf || block == Block::Cross;
}

} // namespace attnviz::engine
