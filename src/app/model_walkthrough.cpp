#include "app/model_walkthrough.h"

#include <stdexcept>

namespace attnviz::app {
namespace {

std::string describeInput(const engine::ModelConfig& c, int layer, engine::Block block, bool decoder)
{
    const std::string stack = decoder ? "decoder" : "encoder";
    const bool firstBlockOfLayer = block != engine::Block::Cross;
    std::string source;
    if (!firstBlockOfLayer)
        source = "the stream after the masked self-attention of decoder layer " + std::to_string(layer);
    else if (layer == 0)
        source = stack + " embedding + position";
    else
        source = "the output of " + stack + " layer " + std::to_string(layer - 1);
    return c.norm == engine::NormPosition::Pre ? "X = LayerNorm(" + source + ")" : "X = " + source;
}

} // namespace

const engine::ModelTrace& traceFor(const engine::ModelRun& run, int decodingStep)
{
    if (decodingStep >= 0 && decodingStep < static_cast<int>(run.decoding.size()))
        return *run.decoding[static_cast<std::size_t>(decodingStep)].trace;
    return *run.trace;
}

std::shared_ptr<const Walkthrough> walkthroughForBlock(const engine::TransformerModel& model,
                                                       const engine::ModelRun& run, const BlockChoice& choice)
{
    const engine::ModelTrace& trace = traceFor(run, choice.decodingStep);
    const engine::AttentionBlockTrace* block = trace.attentionBlock(choice.layer, choice.block);
    if (!block)
        throw std::invalid_argument("the model has no such attention block");
    const engine::ModelConfig& c = model.config();
    const bool decoder = choice.block != engine::Block::Self;
    const engine::StackTrace& stack = decoder ? *trace.decoder : *trace.encoder;
    const auto& layer = stack.layers[static_cast<std::size_t>(choice.layer)];

    auto w = std::make_shared<Walkthrough>();
    w->settings.modelWidth = c.modelWidth;
    w->settings.heads = c.numHeads;
    w->settings.mask = choice.block == engine::Block::MaskedSelf ? MaskKind::Causal : MaskKind::None;
    w->settings.querySentences = {""};
    w->settings.keyValueSentences = choice.block == engine::Block::Cross ? std::vector<std::string>{""}
                                                                          : std::vector<std::string>{};
    w->queryTokens = {trace.queryTokens(choice.block)};
    w->keyTokens = {trace.keyTokens(choice.block)};
    w->keyLengths = {static_cast<int>(w->keyTokens[0].size())};
    // No embeddings: inside a model the input step shows X with where it came from
    // (queryInputOrigin), not embedding + position.

    // What the block read: with pre-norm its own LayerNorm output, with post-norm the previous
    // block's output (the residual stream).
    std::size_t index = 0;
    while (layer.attention[index].block != choice.block)
        ++index;
    if (c.norm == engine::NormPosition::Pre) {
        w->queryInput = block->norm;
    } else if (index > 0) {
        w->queryInput = layer.attention[index - 1].norm;
    } else if (choice.layer == 0) {
        w->queryInput = stack.input;
    } else {
        w->queryInput = stack.layers[static_cast<std::size_t>(choice.layer - 1)].output(c.norm);
    }
    w->queryInputOrigin = describeInput(c, choice.layer, choice.block, decoder);
    if (choice.block == engine::Block::Cross) {
        const engine::StackTrace& enc = *trace.encoder;
        w->keyValueInput = enc.finalNorm.rank() ? enc.finalNorm : enc.layers.back().output(c.norm);
        w->keyValueInputOrigin = "X_kv = the encoder's output";
    } else {
        w->keyValueInput = w->queryInput;
    }
    w->weights = model.attentionModule(choice.layer, choice.block).weights();
    w->trace = block->attention;
    return w;
}

} // namespace attnviz::app
