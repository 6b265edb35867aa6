#include "cli/trace_command.h"

#include "cli/arguments.h"
#include "cli/exit_codes.h"
#include "cli/model_arguments.h"
#include "engine/input_error.h"
#include "engine/model_run.h"
#include "engine/thread_count.h"
#include "io/atomic_file.h"
#include "io/trace_dump.h"

#include <cstdio>
#include <iostream>

namespace attnviz::cli {
namespace {

const char* const kTraceUsage = R"(Usage: attnviz-cli trace --model DIR --text "..." [--target "..."] --dump OUT.safetensors
                         [--generate N] [--threads N] [--quiet]

Runs a Transformer model on a text and writes every activation to OUT as F32 tensors named
  encoder.embedding  encoder.positional  encoder.input  encoder.final_norm
  layer{L}.{block}.{step}    e.g. layer1.cross.weights, layer0.self.scores
  decoder.embedding ... decoder.final_norm  decoder.logits
where block is self (encoder self-attention), masked_self (decoder self-attention), cross
(decoder attention over the encoder), enc_ffn or dec_ffn (feed-forward), and step is one of
q_proj k_proj v_proj q_heads k_heads v_heads scores scaled masked weights context concat output
norm residual (attention blocks) or hidden_pre hidden output norm residual (feed-forward). The
metadata holds each tensor's axes (axes.<name>), source_tokens, target_tokens and the model.

  --model DIR    a model folder (docs/model-format.md) or a bundled model's name (reverse, genesis)
  --text T       the input text: the encoder's for encoder-decoder and encoder-only models, the
                 decoder's for decoder-only models
  --target T     encoder-decoder only: the decoder reads the start token and T; without it the
                 model decodes greedily and the trace covers its own output
  --generate N   decoder-only: continue the text greedily by N tokens first
  --dump OUT     where to write the trace (atomically: never a partial file)
  --threads N    threads for the computation (default: all cores)
  --quiet        print nothing on success

Exit status: 0 on success; 2 on bad arguments, a model that cannot be loaded or a text it cannot
read, with one sentence on stderr and nothing written; 1 when OUT could not be written.
)";

} // namespace

int runTraceCommand(const std::vector<std::string>& args)
{
    if (wantsHelp(args)) {
        std::cout << kTraceUsage;
        return kExitOk;
    }
    Arguments parsed;
    std::string modelName, text, dump;
    int threads = 0, generate = 0;
    try {
        parsed = parseArguments(args, "trace", {"--model", "--text", "--target", "--dump", "--threads", "--generate"},
                                {"--quiet"});
        if (!parsed.positional.empty())
            throw UsageError("unexpected argument '" + parsed.positional.front() + "'; give the text with --text");
        modelName = parsed.required("--model", "trace");
        text = parsed.required("--text", "trace");
        dump = parsed.required("--dump", "trace");
        threads = parsed.positiveInteger("--threads", 0);
        generate = parsed.positiveInteger("--generate", 0);
    } catch (const UsageError& e) {
        std::cerr << "attnviz-cli trace: " << e.what() << "\n";
        return kExitBadInput;
    }

    ModelOnText loaded;
    try {
        engine::setThreadCount(threads);
        loaded = runModelOnArguments(modelName, text, parsed.value("--target"), generate);
    } catch (const engine::InputError& e) {
        std::cerr << "attnviz-cli trace: " << e.what() << "\n";
        return kExitBadInput;
    }
    const auto& model = loaded.model;
    const engine::ModelRun& run = loaded.run;

    std::size_t count = 0;
    try {
        io::SafetensorsWriter writer;
        writer.setMetadata("format", "attnviz-model-trace");
        writer.setMetadata("model", model->config().name);
        writer.setMetadata("architecture", engine::architectureName(model->config().architecture));
        writer.setMetadata("num_heads", std::to_string(model->config().numHeads));
        writer.setMetadata("layers", std::to_string(model->config().layerCount()));
        writer.setMetadata("text", text);
        if (const auto target = parsed.value("--target"))
            writer.setMetadata("target", *target);
        if (!run.decoding.empty())
            writer.setMetadata("generated", run.generated);
        io::addModelTrace(writer, *run.trace);
        run.trace->forEachTensor([&](const std::string&, const engine::Tensor&) { ++count; });
        writer.write(dump);
    } catch (const io::FileError& e) {
        std::cerr << "attnviz-cli trace: " << e.what() << "\n";
        return kExitWriteFailed;
    }
    if (!parsed.has("--quiet")) {
        const auto& c = model->config();
        std::printf("%s: %s, %d layer(s), %d heads, d_model %d\n", c.name.c_str(), engine::architectureName(c.architecture),
                    c.layerCount(), c.numHeads, c.modelWidth);
        if (!run.decoding.empty())
            std::printf("generated: %s\n", run.generated.c_str());
        std::printf("wrote %zu tensors to %s\n", count, dump.c_str());
    }
    return kExitOk;
}

} // namespace attnviz::cli
