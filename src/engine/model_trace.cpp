#include "engine/model_trace.h"

#include <algorithm>

namespace attnviz::engine {
namespace {

void visitStack(const StackTrace& s, const std::string& stack,
                const std::function<void(const std::string&, const Tensor&)>& visit)
{
    visit(stack + ".embedding", s.embedding);
    visit(stack + ".positional", s.positional);
    visit(stack + ".input", s.input);
    for (std::size_t L = 0; L < s.layers.size(); ++L) {
        const std::string layer = "layer" + std::to_string(L) + ".";
        for (const AttentionBlockTrace& a : s.layers[L].attention) {
            const std::string prefix = layer + blockName(a.block) + ".";
            for (const AttentionStep step : kAttentionSteps)
                visit(prefix + std::string(stepName(step)), a.attention.step(step));
            visit(prefix + "norm", a.norm);
            visit(prefix + "residual", a.residual);
        }
        const FeedForwardBlockTrace& f = s.layers[L].feedForward;
        const std::string prefix = layer + blockName(f.block) + ".";
        visit(prefix + "hidden_pre", f.feedForward.hiddenPre);
        visit(prefix + "hidden", f.feedForward.hidden);
        visit(prefix + "output", f.feedForward.output);
        visit(prefix + "norm", f.norm);
        visit(prefix + "residual", f.residual);
    }
    if (s.finalNorm.rank())
        visit(stack + ".final_norm", s.finalNorm);
}

} // namespace

const Tensor& LayerTrace::output(NormPosition norm) const
{
    return norm == NormPosition::Pre ? feedForward.residual : feedForward.norm;
}

void ModelTrace::forEachTensor(const std::function<void(const std::string&, const Tensor&)>& visit) const
{
    if (encoder)
        visitStack(*encoder, "encoder", visit);
    if (decoder)
        visitStack(*decoder, "decoder", visit);
    if (logits.rank())
        visit("decoder.logits", logits);
}

const AttentionBlockTrace* ModelTrace::attentionBlock(int layer, Block block) const
{
    const StackTrace* stack = block == Block::Self ? (encoder ? &*encoder : nullptr) : (decoder ? &*decoder : nullptr);
    if (!stack || layer < 0 || layer >= static_cast<int>(stack->layers.size()))
        return nullptr;
    for (const AttentionBlockTrace& a : stack->layers[static_cast<std::size_t>(layer)].attention)
        if (a.block == block)
            return &a;
    return nullptr;
}

std::vector<Block> ModelTrace::attentionBlocks(int layer) const
{
    std::vector<Block> blocks;
    for (const Block b : {Block::Self, Block::MaskedSelf, Block::Cross})
        if (attentionBlock(layer, b))
            blocks.push_back(b);
    return blocks;
}

int ModelTrace::layerCount() const
{
    return static_cast<int>(std::max(encoder ? encoder->layers.size() : 0, decoder ? decoder->layers.size() : 0));
}

const std::vector<std::string>& ModelTrace::queryTokens(Block block) const
{
    return block == Block::Self ? sourceTokens : targetTokens;
}

const std::vector<std::string>& ModelTrace::keyTokens(Block block) const
{
    return block == Block::MaskedSelf ? targetTokens : sourceTokens;
}

} // namespace attnviz::engine
