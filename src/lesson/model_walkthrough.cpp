#include "lesson/model_walkthrough.h"

#include "engine/input_error.h"

namespace attnviz::lesson {
namespace {

std::string describeInput(const engine::ModelConfig& c, int layer, engine::Block block,
                          bool decoder)
{
    const std::string stack = decoder ? "decoder" : "encoder";
    std::string source;
    if (block == engine::Block::Cross)
        source =
            "the stream after the masked self-attention of decoder layer " + std::to_string(layer);
    else if (layer == 0 && c.image)
        source = std::string(c.image->distillationToken ? "[CLS; DIST; " : "[CLS; ") +
            "patches · W_pᵀ + b_p] + E_pos";
    else if (layer == 0)
        source = stack + " embedding + position";
    else
        source = "the output of " + stack + " layer " + std::to_string(layer - 1);
    return c.norm == engine::NormPosition::Pre ? "X = LayerNorm(" + source + ")" : "X = " + source;
}

bool hasAll(const engine::AttentionTrace& trace, const engine::AttentionKeep& needed)
{
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        if (needed.has(info.step) && !trace.has(info.step))
            return false;
    return true;
}

// The tokens along the block's query and key axes, as shown and as tooltips detail them.
void setTokens(Walkthrough& w, const ModelRun& run, const engine::ModelTrace& trace,
               engine::Block block)
{
    const io::Tokenizer& tokenizer = *run.model->tokenizer;
    w.queryTokens = {tokenizer.displayTokens(trace.queryIds(block))};
    w.keyTokens = {tokenizer.displayTokens(trace.keyIds(block))};
    w.queryTokenDetails = {tokenizer.tokenDetails(trace.queryIds(block))};
    w.keyTokenDetails = {tokenizer.tokenDetails(trace.keyIds(block))};
    w.keyLengths = {static_cast<int>(w.keyTokens[0].size())};
}

// The mask a block's own policy puts in force (causal, a window), as its module's maskInForce
// gives it for inputs without a mask of their own.
engine::AttentionMask policyMask(const engine::AttentionTrace& trace)
{
    const engine::MaskPolicy& policy = trace.description.mask;
    return engine::AttentionMask{}.combinedWith(policy.causal, policy.slidingWindow);
}

// A block of attention weights computed elsewhere: the weights are all there is.
std::shared_ptr<const Walkthrough> importedBlock(
    const std::shared_ptr<const ModelRun>& run,
    const std::shared_ptr<const engine::ModelTrace>& trace,
    const engine::AttentionBlockTrace& block, const BlockChoice& choice)
{
    auto w = std::make_shared<Walkthrough>();
    w->source = ImportSource{run->config.name, choice.layer, choice.block};
    w->crossAttention = choice.block == engine::Block::Cross;
    setTokens(*w, *run, *trace, choice.block);
    w->mask = policyMask(block.attention);
    w->trace = std::shared_ptr<const engine::AttentionTrace>(trace, &block.attention);
    return w;
}

} // namespace

std::vector<std::string> displayTokens(const ModelRun& run, const std::vector<int>& ids)
{
    return run.model->tokenizer->displayTokens(ids);
}

std::shared_ptr<const Walkthrough> walkthroughForBlock(const std::shared_ptr<const ModelRun>& run,
                                                       const BlockChoice& choice,
                                                       const engine::AttentionKeep& needed)
{
    const std::shared_ptr<const engine::ModelTrace> trace = run->sharedTraceAt(choice.decodingStep);
    const engine::AttentionBlockTrace* block = trace->attentionBlock(choice.layer, choice.block);
    if (!block)
        throw engine::InputError("The model has no " +
                                 std::string(engine::blockName(choice.block)) +
                                 " attention in layer " + std::to_string(choice.layer) + ".");
    if (!run->model->model)
        return importedBlock(run, trace, *block, choice);
    const engine::TransformerModel& model = *run->model->model;
    const engine::ModelConfig& c = model.config();
    const bool decoder = choice.block != engine::Block::Self;
    const engine::StackTrace& stack = *trace->stackOf(choice.block);

    // The layer as the run kept it, or recomputed in full and owned by this walkthrough.
    std::shared_ptr<const engine::LayerTrace> layer(
        trace, &stack.layers[static_cast<std::size_t>(choice.layer)]);
    const bool usable = layer->complete || (!needed.keepsAll() && hasAll(block->attention, needed));
    if (!usable) {
        layer = std::make_shared<const engine::LayerTrace>(
            model.recomputeAttention(*trace, choice.block, choice.layer, run->request.ablation));
    }
    std::size_t index = 0;
    while (layer->attention[index].block != choice.block)
        ++index;
    const engine::AttentionBlockTrace& own = layer->attention[index];

    auto w = std::make_shared<Walkthrough>();
    ModelBlockSource source;
    source.model = c.name;
    source.layer = choice.layer;
    source.block = choice.block;
    source.decodingStep = choice.decodingStep;
    source.queryInputOrigin = describeInput(c, choice.layer, choice.block, decoder);
    source.picture = run->picture;
    source.patchSize = c.image ? c.image->patchSize : 0;
    w->crossAttention = choice.block == engine::Block::Cross;
    setTokens(*w, *run, *trace, choice.block);

    // What the block read: with pre-norm its own LayerNorm output, with post-norm the previous
    // block's output (the residual stream); the layer's input is always kept.
    const engine::Tensor* queryInput = nullptr;
    if (c.norm == engine::NormPosition::Pre)
        queryInput = own.norm.rank() ? &own.norm : nullptr;
    else if (index > 0)
        queryInput =
            layer->attention[index - 1].norm.rank() ? &layer->attention[index - 1].norm : nullptr;
    else
        queryInput = &layer->input;
    if (queryInput)
        w->queryInput = std::shared_ptr<const engine::Tensor>(layer, queryInput);
    if (w->crossAttention) {
        w->keyValueInput = std::shared_ptr<const engine::Tensor>(trace, &trace->encoder->output);
        source.keyValueInputOrigin = "X_kv = the encoder's output";
    } else {
        w->keyValueInput = w->queryInput;
    }
    w->mask = policyMask(own.attention);
    // For a streamed model, the module means reading the layer from the checkpoint; a
    // walkthrough of steps the run kept (the overview's thumbnails, one a layer) does without.
    if (!model.streamsLayers() || needed.keepsAll() || !usable)
        w->module = model.attentionModule(choice.layer, choice.block);
    w->trace = std::shared_ptr<const engine::AttentionTrace>(layer, &own.attention);
    w->source = std::move(source);
    if (run->intact && choice.decodingStep < 0)
        w->intact = walkthroughForBlock(run->intact, choice, needed);
    return w;
}

} // namespace attnviz::lesson
