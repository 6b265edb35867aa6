#include "export/trace_files.h"

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "io/trace_dump.h"

#include <filesystem>

namespace attnviz::exporting {
namespace {

std::string tensorEntry(const std::string& name, const engine::Tensor& t)
{
    std::string shape, axes;
    for (const engine::Axis& a : t.axes()) {
        shape += (shape.empty() ? "" : ", ") + std::to_string(a.size);
        axes += (axes.empty() ? "" : ", ") + io::jsonQuote(a.name);
    }
    return "    {\"name\": " + io::jsonQuote(name) + ", \"dtype\": \"F32\", \"shape\": [" + shape + "], \"axes\": [" + axes + "]}";
}

void writeBoth(const std::string& base, const io::SafetensorsWriter& writer, const std::string& manifest)
{
    // The manifest names the data file by its file name, so the pair can be moved together.
    writer.write(base + ".safetensors");
    io::writeFileAtomically(base + ".json", manifest);
}

std::string tokenLists(const std::vector<std::vector<std::string>>& lists)
{
    std::string out = "[";
    for (std::size_t i = 0; i < lists.size(); ++i)
        out += (i ? ", " : "") + io::jsonStringArray(lists[i]);
    return out + "]";
}

} // namespace

void writeModelTrace(const std::string& base, const engine::TransformerModel& model, const engine::ModelTrace& trace)
{
    io::SafetensorsWriter writer;
    writer.setMetadata("format", "attnviz-model-trace");
    writer.setMetadata("model", model.config().name);
    io::addModelTrace(writer, trace);
    const engine::ModelConfig& c = model.config();
    std::string tensors;
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& t) {
        tensors += (tensors.empty() ? "" : ",\n") + tensorEntry(name, t);
    });
    const std::string manifest =
        "{\n  \"format\": \"attnviz-trace-manifest\",\n  \"version\": 1,\n  \"data\": " +
        io::jsonQuote(std::filesystem::path(base + ".safetensors").filename().string()) +
        ",\n  \"model\": {\"name\": " + io::jsonQuote(c.name) + ", \"architecture\": \"" + engine::architectureName(c.architecture) +
        "\", \"d_model\": " + std::to_string(c.modelWidth) + ", \"num_heads\": " + std::to_string(c.numHeads) +
        ", \"d_ff\": " + std::to_string(c.feedForwardWidth) + ", \"encoder_layers\": " + std::to_string(c.encoderLayers) +
        ", \"decoder_layers\": " + std::to_string(c.decoderLayers) + ", \"norm\": \"" + engine::normName(c.norm) +
        "\", \"activation\": \"" + engine::activationName(c.activation) + "\", \"positional\": \"" +
        engine::positionalName(c.positional) + "\"},\n  \"source_tokens\": " + io::jsonStringArray(trace.sourceTokens) +
        ",\n  \"target_tokens\": " + io::jsonStringArray(trace.targetTokens) + ",\n  \"tensors\": [\n" + tensors + "\n  ]\n}\n";
    writeBoth(base, writer, manifest);
}

void writeAttentionTrace(const std::string& base, const engine::AttentionTrace& trace,
                         const std::vector<std::vector<std::string>>& queryTokens,
                         const std::vector<std::vector<std::string>>& keyTokens, const std::string& configurationJson)
{
    io::SafetensorsWriter writer;
    writer.setMetadata("format", "attnviz-trace");
    io::addAttentionTrace(writer, trace);
    std::string tensors;
    for (const engine::AttentionStep step : engine::kAttentionSteps)
        tensors += (tensors.empty() ? "" : ",\n") + tensorEntry(std::string(engine::stepName(step)), trace.step(step));
    const std::string manifest = "{\n  \"format\": \"attnviz-trace-manifest\",\n  \"version\": 1,\n  \"data\": " +
                                 io::jsonQuote(std::filesystem::path(base + ".safetensors").filename().string()) +
                                 ",\n  \"configuration\": " + configurationJson + ",\n  \"query_tokens\": " +
                                 tokenLists(queryTokens) + ",\n  \"key_tokens\": " + tokenLists(keyTokens) +
                                 ",\n  \"tensors\": [\n" + tensors + "\n  ]\n}\n";
    writeBoth(base, writer, manifest);
}

} // namespace attnviz::exporting
