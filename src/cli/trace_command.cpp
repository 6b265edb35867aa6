#include "cli/arguments.h"
#include "cli/command.h"
#include "cli/model_loading.h"
#include "engine/thread_count.h"
#include "io/builtin_models.h"
#include "io/trace_file.h"
#include "lesson/image_classes.h"
#include "lesson/memory_budget.h"
#include "lesson/parameter_count.h"
#include "lesson/trace_export.h"

#include <cstdio>

namespace attnviz::cli {
namespace {

std::string builtInNames()
{
    std::string out;
    for (const std::string& name : io::builtInModelNames())
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

CommandSpec traceSpec()
{
    return {
        "trace",
        "Usage: attnviz-cli trace --model DIR (--text \"...\" | --image FILE) [--target \"...\"]\n"
        "                         --dump OUT.safetensors\n"
        "                         [--generate N] [--steps LIST] [--ablate L:H,...] [--threads N]\n"
        "                         [--max-memory S] [--quiet]",
        "Runs a Transformer model on a text and writes every activation to OUT as F32 tensors "
        "named\n"
        "  encoder.embedding  encoder.positional  encoder.token_type  encoder.input  "
        "encoder.final_norm\n"
        "  layer{L}.{block}.{step}    e.g. layer1.cross.weights, layer0.self.scores\n"
        "  decoder.embedding ... decoder.final_norm  decoder.logits\n"
        "  pixels [channels, height, width] and logits [1, classes]   (a Vision Transformer)\n"
        "where block is self (encoder self-attention), masked_self (decoder self-attention), "
        "cross\n"
        "(decoder attention over the encoder), enc_ffn or dec_ffn (feed-forward), and step is one "
        "of\n" +
            stepNames() +
            ",\n"
            "norm, residual (attention blocks) or [gate_pre,] hidden_pre, hidden, output, norm, "
            "residual\n"
            "(feed-forward; gate_pre only in gated blocks).\n"
            "The metadata holds each tensor's axes (axes.<name>), the tokens and their ids "
            "(source_tokens,\n"
            "source_ids, target_tokens, target_ids), the text and the model; the same fields form "
            "the\n"
            "manifest (docs/model-format.md). Tensors stream to disk as the model computes them, "
            "so a long\n"
            "input never holds the whole trace in memory.",
        {
            {"--model", "DIR",
             "a model folder (AttnViz's own, or Hugging Face GPT-2, BERT, Llama, Mistral or "
             "Qwen2;\n"
             "docs/model-format.md)\n"
             "or a bundled model's name (" +
                 builtInNames() + ")"},
            {"--text", "T",
             "the input text: the encoder's for encoder-decoder and encoder-only models, the\n"
             "decoder's for decoder-only models",
             false, true},
            {"--image", "FILE",
             "a PNG or JPEG picture, for a Vision Transformer (ViT, DeiT): prepared as its\n"
             "preprocessor_config.json says; the dump's pixels hold it as the model read it"},
            {"--target", "T",
             "encoder-decoder only: the decoder reads the start token and T; without it the\n"
             "model decodes greedily and the trace covers its own output",
             false, true},
            {"--generate", "N", "decoder-only: continue the text greedily by N tokens first"},
            {"--steps", "LIST",
             "write only these attention steps of every block (e.g. weights), comma-separated"},
            {"--dump", "OUT", "where to write the trace (atomically: never a partial file)"},
            modelAblateOption(),
            threadsOption(),
            maxMemoryOption(),
            {"--quiet", "", "print nothing on success"},
        },
        "Exit status: 0 on success; 2 on bad arguments, a model that cannot be loaded or a text it "
        "cannot\n"
        "read, with one sentence on stderr and nothing written; 1 when OUT could not be written.",
    };
}

// Whether a dump name is one of the chosen attention steps (`layer1.cross.weights`).
bool chosen(const std::string& name, const std::vector<engine::AttentionStep>& steps)
{
    const auto dot = name.rfind('.');
    const auto step = engine::stepFromName(std::string_view(name).substr(dot + 1));
    return name.starts_with("layer") && step &&
        std::find(steps.begin(), steps.end(), *step) != steps.end();
}

int run(const std::vector<std::string>& args)
{
    const CommandSpec spec = traceSpec();
    if (wantsHelp(args)) {
        std::printf("%s", helpText(spec).c_str());
        return kExitOk;
    }
    const Arguments parsed = parseArguments(args, spec);
    if (!parsed.positional.empty())
        throw UsageError("unexpected argument '" + io::printable(parsed.positional.front(), 60) +
                         "'; give the text with --text");
    const std::string modelName = parsed.required("--model", "trace");
    lesson::RunRequest request;
    const std::optional<std::string> text = parsed.value("--text");
    const std::optional<std::string> image = parsed.value("--image");
    if (text && image)
        throw UsageError("give --text or --image, not both");
    if (!text && !image)
        throw UsageError("trace needs --text (or --image for a Vision Transformer)");
    request.text = text.value_or("");
    request.image = image.value_or("");
    request.target = parsed.value("--target");
    const std::string dump = parsed.required("--dump", "trace");
    const int threads = parsed.integer("--threads", 0, 1, engine::kMaxThreads);
    request.generate = parsed.integer("--generate", 0, 1, engine::ConfigLimits::kLength);
    request.maxMemory = maxMemory(parsed);
    const std::optional<std::vector<engine::AttentionStep>> steps = parsed.value("--steps")
        ? std::optional(stepList(parsed.value("--steps"), {}))
        : std::nullopt;

    engine::setThreadCount(threads);
    const auto model = loadModelArgument(modelName, request.maxMemory);
    const engine::ModelConfig& c = model->model->config();
    if (const auto ablate = parsed.value("--ablate"))
        request.ablation = modelAblation(*ablate, c);

    // The dump streams: every tensor goes to disk as it is computed and only what the run itself
    // needs stays in memory.
    std::optional<io::TraceFileWriter> writer;
    std::size_t count = 0;
    try {
        const std::size_t blocks = static_cast<std::size_t>(c.encoderLayers) * 2 +
            static_cast<std::size_t>(c.decoderLayers) * 3;
        writer.emplace(dump, false, blocks * 16 + 16);
    } catch (const io::FileError& e) {
        throw WriteFailed(e.what());
    }
    engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    policy.attention = engine::AttentionKeep();
    // Every position's logits only when they are dumped: with --steps they are not, and at
    // GPT-2 size they are a third of the work.
    policy.allLogits = !steps;
    std::optional<std::string> writeError;
    policy.observer = [&](const std::string& name, const engine::Tensor& t) {
        if (writeError || (steps && !chosen(name, *steps)))
            return;
        try {
            writer->add(name, t);
            ++count;
        } catch (const io::FileError& e) {
            writeError =
                e.what(); // reported after the run: the engine is not to be unwound mid-layer
        }
    };
    const lesson::ModelRun run = runModelArguments(model, request, policy);
    try {
        if (writeError)
            throw io::FileError(*writeError);
        writer->commit(lesson::modelManifest(run));
    } catch (const io::FileError& e) {
        throw WriteFailed(e.what());
    }
    if (!parsed.has("--quiet")) {
        std::printf("%s: %s, %d layer%s, %d head%s, d_model %d, %s parameters\n",
                    io::printable(c.name).c_str(), engine::architectureName(c.architecture),
                    c.layerCount(), c.layerCount() == 1 ? "" : "s", c.numHeads,
                    c.numHeads == 1 ? "" : "s", c.modelWidth,
                    lesson::groupedNumber(lesson::modelParameters(*model->model).total()).c_str());
        if (const std::int64_t cached = lesson::keyValueCacheValuesPerToken(c))
            std::printf("K/V cache: %s values per token (%s in 16-bit floats); %d query heads "
                        "read %d K/V heads\n",
                        lesson::groupedNumber(cached).c_str(),
                        lesson::formatBytes(static_cast<std::uint64_t>(cached) * 2).c_str(),
                        c.numHeads, c.keyValueHeads());
        if (!request.ablation.empty()) {
            std::printf("heads switched off:");
            for (const engine::Ablation::Head& h : request.ablation.heads)
                std::printf(" layer%d.%s:%d", h.layer, engine::blockName(h.block), h.head);
            std::printf("\n");
        }
        if (!run.decoding.empty())
            std::printf("generated: %s\n", io::printable(run.generated).c_str());
        for (const lesson::ClassScore& top : lesson::topClasses(*run.trace, c, 5))
            std::printf("%6.2f %%  %s\n", 100 * top.probability, io::printable(top.label).c_str());
        std::printf("wrote %zu tensors to %s\n", count, io::printable(dump).c_str());
    }
    return kExitOk;
}

} // namespace

int runTraceCommand(const std::vector<std::string>& args)
{
    return runGuarded("trace", [&] { return run(args); });
}

} // namespace attnviz::cli
