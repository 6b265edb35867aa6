#include "lesson/trace_export.h"

#include "engine/transformer_model.h"
#include "io/trace_file.h"

#include <charconv>
#include <cstdlib>

namespace attnviz::lesson {
namespace {

// The float as the decimal people wrote in config.json (1e-05, not 9.99999974e-06).
double asWritten(float value)
{
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    *end = '\0';
    return std::strtod(text, nullptr);
}

// Rotary positions' base and stretching; null without rotary positions.
nlohmann::ordered_json rotaryOf(const engine::ModelConfig& c)
{
    if (c.positional != engine::PositionalKind::Rotary)
        return nullptr;
    nlohmann::ordered_json scaling = nullptr;
    if (const auto& s = c.ropeScaling) {
        scaling = {{"rope_type", engine::ropeScalingName(s->kind)}, {"factor", s->factor}};
        if (s->kind == engine::RopeScaling::Kind::Llama3) {
            scaling["low_freq_factor"] = s->lowFrequencyFactor;
            scaling["high_freq_factor"] = s->highFrequencyFactor;
            scaling["original_max_position_embeddings"] = s->originalContext;
        }
    }
    // Every self-attention block turns as many features; its description says how many.
    const engine::Block self = c.hasEncoder() ? engine::Block::Self : engine::Block::MaskedSelf;
    return {{"rope_theta", c.ropeTheta},
            {"rotary_dim", engine::attentionDescription(c, 0, self).rotatedSize()},
            {"rope_scaling", scaling}};
}

// The sliding window and the decoder layers it applies to; null without one.
nlohmann::ordered_json windowOf(const engine::ModelConfig& c)
{
    if (!c.slidingWindow)
        return nullptr;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (int L = 0; L < c.decoderLayers; ++L)
        if (c.windowed(L))
            layers.push_back(L);
    return {{"size", *c.slidingWindow}, {"layers", layers}};
}

nlohmann::ordered_json configurationOf(const engine::ModelConfig& c, const io::LoadedModel& loaded)
{
    return {{"name", c.name},
            {"layout", loaded.layout ? std::string(loaded.layout->name()) : "imported"},
            {"architecture", engine::architectureName(c.architecture)},
            {"vocab_size", c.vocabSize},
            {"d_model", c.modelWidth},
            {"num_heads", c.numHeads},
            {"num_kv_heads", c.keyValueHeads()},
            {"head_dim", c.headSize()},
            {"d_ff", c.feedForwardWidth},
            {"feed_forward", engine::feedForwardKindName(c.feedForwardKind)},
            {"encoder_layers", c.encoderLayers},
            {"decoder_layers", c.decoderLayers},
            {"norm", engine::normName(c.norm)},
            {"norm_kind", engine::normKindName(c.normKind)},
            {"activation", engine::activationName(c.activation)},
            {"positional", engine::positionalName(c.positional)},
            {"rotary", rotaryOf(c)},
            {"sliding_window", windowOf(c)},
            {"max_length", c.maxLength},
            {"layer_norm_eps", asWritten(c.layerNormEps)},
            {"tokenizer", std::string(loaded.tokenizer->kind())}};
}

nlohmann::ordered_json ablationOf(const engine::Ablation& ablation)
{
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (const engine::Ablation::Head& h : ablation.heads)
        heads.push_back(
            {{"layer", h.layer}, {"block", engine::blockName(h.block)}, {"head", h.head}});
    return heads;
}

std::size_t tensorCount(const engine::ModelTrace& trace)
{
    std::size_t n = 0;
    trace.forEachTensor([&](const std::string&, const engine::Tensor&) { ++n; });
    return n;
}

} // namespace

nlohmann::ordered_json modelManifest(const ModelRun& run)
{
    const engine::ModelConfig& c = run.config;
    const io::Tokenizer& tokenizer = *run.model->tokenizer;
    if (!run.model->model) {
        // Imported attentions: no configuration beyond the sizes, and the ids would be ours.
        nlohmann::ordered_json m{
            {"kind", "model"},         {"source", "import"},
            {"model", c.name},         {"architecture", engine::architectureName(c.architecture)},
            {"num_heads", c.numHeads}, {"layers", c.layerCount()}};
        m["source_tokens"] = tokenizer.displayTokens(run.trace->sourceIds);
        m["target_tokens"] = tokenizer.displayTokens(run.trace->targetIds);
        return m;
    }
    nlohmann::ordered_json m{{"kind", "model"},
                             {"model", c.name},
                             {"architecture", engine::architectureName(c.architecture)},
                             {"num_heads", c.numHeads},
                             {"layers", c.layerCount()},
                             {"configuration", configurationOf(c, *run.model)},
                             {"text", run.request.text}};
    if (run.request.target)
        m["target"] = *run.request.target;
    if (!run.decoding.empty())
        m["generated"] = run.generated;
    if (!run.request.ablation.empty())
        m["ablated_heads"] = ablationOf(run.request.ablation);
    // The tokens as every export spells them (docs/trace-format.md): the text they stand for,
    // ␣ ↵ ⇥ for whitespace, \xNN for a byte that is part of a character; and as the vocabulary
    // spells them ("Ġcat"), to look them up.
    m["source_tokens"] = tokenizer.displayTokens(run.trace->sourceIds);
    m["target_tokens"] = tokenizer.displayTokens(run.trace->targetIds);
    m["source_pieces"] = tokenizer.tokens(run.trace->sourceIds);
    m["target_pieces"] = tokenizer.tokens(run.trace->targetIds);
    m["source_ids"] = run.trace->sourceIds;
    m["target_ids"] = run.trace->targetIds;
    return m;
}

namespace {

// What the module's description adds to plain multi-head attention, in the case files'
// spelling (docs/case-format.md): a reader of the dump can tell which treatments made it.
void describeModule(const engine::AttentionDescription& d, nlohmann::ordered_json& configuration)
{
    configuration["num_kv_heads"] = d.keyValueHeads;
    if (d.queryKeyNorm) {
        configuration["qk_norm"] = engine::queryKeyNormScopeName(d.queryKeyNorm->scope);
        configuration["qk_norm_eps"] = d.queryKeyNorm->epsilon;
        configuration["qk_norm_unit_offset"] = d.queryKeyNorm->unitOffset;
    }
    if (d.rotary) {
        configuration["rope_theta"] = d.rotary->theta;
        configuration["rotary_dim"] = d.rotatedSize();
    }
    configuration["score_scale"] = d.scale();
    if (d.logitSoftCap)
        configuration["attn_logit_softcapping"] = *d.logitSoftCap;
    if (d.scoreBias)
        configuration["alibi_slopes"] = d.scoreBias->slopes;
    if (d.mask.slidingWindow)
        configuration["sliding_window"] = *d.mask.slidingWindow;
    configuration["learned_sinks"] = d.learnedSinks;
    if (const auto tile = d.onlineSoftmaxTile)
        configuration["online_softmax_tile"] = *tile;
}

} // namespace

nlohmann::ordered_json walkthroughManifest(const Walkthrough& w)
{
    nlohmann::ordered_json configuration{{"num_heads", w.heads()}};
    if (w.weights()) {
        configuration["d_model"] = w.modelWidth();
        configuration["d_k"] = w.dk();
        configuration["d_v"] = w.dv();
        configuration["output_width"] = w.weights()->wO.rows();
        configuration["bias"] = w.weights()->bQ.has_value();
    }
    nlohmann::ordered_json m{
        {"kind", "attention"}, {"num_heads", w.heads()}, {"causal", w.mask.causal}};
    if (const auto* p = std::get_if<PlaygroundSource>(&w.source)) {
        m["source"] = "playground";
        configuration["seed"] = p->settings.seed;
    } else if (const auto* c = std::get_if<CaseSource>(&w.source)) {
        m["source"] = "case";
        m["name"] = c->name;
    } else if (const auto* b = std::get_if<ModelBlockSource>(&w.source)) {
        m["source"] = "model";
        m["model"] = b->model;
        m["layer"] = b->layer;
        m["block"] = engine::blockName(b->block);
    } else if (const auto* i = std::get_if<ImportSource>(&w.source)) {
        m["source"] = "import";
        m["model"] = i->name;
        m["layer"] = i->layer;
        m["block"] = engine::blockName(i->block);
    }
    describeModule(w.description(), configuration);
    m["configuration"] = std::move(configuration);
    m["pass"] = engine::attentionPathName(w.trace->path);
    if (!w.trace->ablatedHeads.empty())
        m["ablated_heads"] = w.trace->ablatedHeads;
    m["query_tokens"] = w.queryTokens;
    m["key_tokens"] = w.keyTokens;
    return m;
}

void writeModelTrace(const std::string& path, const ModelRun& run, bool sidecar)
{
    io::TraceFileWriter writer(path, sidecar, tensorCount(*run.trace));
    run.trace->forEachTensor(
        [&](const std::string& name, const engine::Tensor& t) { writer.add(name, t); });
    writer.commit(modelManifest(run));
}

void writeWalkthroughTrace(const std::string& path, const Walkthrough& w, bool sidecar)
{
    io::TraceFileWriter writer(path, sidecar, engine::kAttentionStepTable.size());
    writer.addAttentionTrace(*w.trace);
    writer.commit(walkthroughManifest(w));
}

} // namespace attnviz::lesson
