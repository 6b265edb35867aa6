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

std::vector<Block> layerBlocks(const ModelConfig& c, bool decoder)
{
    if (!decoder)
        return {Block::Self, Block::EncoderFeedForward};
    if (c.architecture == Architecture::EncoderDecoder)
        return {Block::MaskedSelf, Block::Cross, Block::DecoderFeedForward};
    return {Block::MaskedSelf, Block::DecoderFeedForward};
}

std::vector<Block> attentionBlocksOfLayer(const ModelConfig& c, int layer)
{
    std::vector<Block> blocks;
    if (c.hasEncoder() && layer >= 0 && layer < c.encoderLayers)
        blocks.push_back(Block::Self);
    if (c.hasDecoder() && layer >= 0 && layer < c.decoderLayers)
        for (const Block b : layerBlocks(c, true))
            if (isAttention(b))
                blocks.push_back(b);
    return blocks;
}

bool isAttention(Block block)
{
    return block == Block::Self || block == Block::MaskedSelf || block == Block::Cross;
}

} // namespace attnviz::engine
