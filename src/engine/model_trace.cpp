#include "engine/model_trace.h"

#include <algorithm>

namespace attnviz::engine {
namespace {

// Visits a tensor only when the capture policy kept it.
void visitKept(const TensorVisitor& visit, const std::string& name, const Tensor& t)
{
    if (t.rank())
        visit(name, t);
}

void visitStack(const StackTrace& s, const std::string& stack, const TensorVisitor& visit)
{
    visitKept(visit, stack + ".embedding", s.embedding);
    visitKept(visit, stack + ".positional", s.positional);
    visitKept(visit, stack + ".token_type", s.tokenType);
    visitKept(visit, stack + ".input", s.input);
    for (std::size_t L = 0; L < s.layers.size(); ++L)
        forEachLayerTensor(s.layers[L], static_cast<int>(L), visit);
    visitKept(visit, stack + ".final_norm", s.finalNorm);
}

} // namespace

CapturePolicy CapturePolicy::attentionWeights(std::optional<int> fullLayer)
{
    CapturePolicy p;
    p.attention = AttentionKeep::only({AttentionStep::Weights});
    p.layerTensors = false;
    p.fullLayer = fullLayer;
    p.allLogits = false;
    return p;
}

void forEachLayerTensor(const LayerTrace& layer, int index, const TensorVisitor& visit)
{
    const std::string prefix = "layer" + std::to_string(index) + ".";
    for (const AttentionBlockTrace& a : layer.attention) {
        const std::string block = prefix + blockName(a.block) + ".";
        for (const AttentionStepInfo& info : kAttentionStepTable)
            visitKept(visit, block + std::string(info.name), a.attention.step(info.step));
        visitKept(visit, block + "norm", a.norm);
        visitKept(visit, block + "output_norm", a.outputNorm);
        visitKept(visit, block + "residual", a.residual);
    }
    const FeedForwardBlockTrace& f = layer.feedForward;
    const std::string block = prefix + blockName(f.block) + ".";
    visitKept(visit, block + "gate_pre", f.feedForward.gatePre);
    visitKept(visit, block + "hidden_pre", f.feedForward.hiddenPre);
    visitKept(visit, block + "hidden", f.feedForward.hidden);
    visitKept(visit, block + "output", f.feedForward.output);
    visitKept(visit, block + "norm", f.norm);
    visitKept(visit, block + "output_norm", f.outputNorm);
    visitKept(visit, block + "residual", f.residual);
}

void ModelTrace::forEachTensor(const TensorVisitor& visit) const
{
    visitKept(visit, "pixels", pixels);
    if (encoder)
        visitStack(*encoder, "encoder", visit);
    if (decoder)
        visitStack(*decoder, "decoder", visit);
    visitKept(visit, "decoder.logits", logits);
    visitKept(visit, "logits", classLogits);
}

const StackTrace* ModelTrace::stackOf(Block block) const
{
    const bool inEncoder = block == Block::Self || block == Block::EncoderFeedForward;
    const std::optional<StackTrace>& stack = inEncoder ? encoder : decoder;
    return stack ? &*stack : nullptr;
}

const AttentionBlockTrace* ModelTrace::attentionBlock(int layer, Block block) const
{
    const StackTrace* stack = stackOf(block);
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
    for (const Block b : kAttentionBlocks)
        if (attentionBlock(layer, b))
            blocks.push_back(b);
    return blocks;
}

int ModelTrace::layerCount() const
{
    return static_cast<int>(
        std::max(encoder ? encoder->layers.size() : 0, decoder ? decoder->layers.size() : 0));
}

const std::vector<int>& ModelTrace::queryIds(Block block) const
{
    return block == Block::Self ? sourceIds : targetIds;
}

const std::vector<int>& ModelTrace::keyIds(Block block) const
{
    return block == Block::MaskedSelf ? targetIds : sourceIds;
}

} // namespace attnviz::engine
