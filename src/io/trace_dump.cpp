#include "io/trace_dump.h"

#include "io/json.h"

namespace attnviz::io {
namespace {

std::string axesText(const engine::Tensor& t)
{
    std::string axes;
    for (const engine::Axis& a : t.axes())
        axes += (axes.empty() ? "" : ",") + a.name;
    return axes;
}

} // namespace

void addAttentionTrace(SafetensorsWriter& writer, const engine::AttentionTrace& trace,
                       const std::string& prefix)
{
    for (const engine::AttentionStep step : engine::kAttentionSteps) {
        const engine::Tensor& t = trace.step(step);
        const std::string name = prefix + std::string(engine::stepName(step));
        writer.addF32(name, t.shape(), t.values());
        writer.setMetadata("axes." + name, axesText(t));
    }
    std::string rows = "[";
    for (const engine::MaskedRow& r : trace.fullyMaskedRows)
        rows += (rows.size() > 1 ? "," : "") + ("[" + std::to_string(r.batch) + "," +
                                                std::to_string(r.query) + "]");
    writer.setMetadata(prefix + "fully_masked_rows", rows + "]");
}

std::string jsonStringArray(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? "," : "") + jsonQuote(items[i]);
    return out + "]";
}

void addModelTrace(SafetensorsWriter& writer, const engine::ModelTrace& trace)
{
    trace.forEachTensor([&](const std::string& name, const engine::Tensor& t) {
        writer.addF32(name, t.shape(), t.values());
        writer.setMetadata("axes." + name, axesText(t));
    });
    writer.setMetadata("source_tokens", jsonStringArray(trace.sourceTokens));
    writer.setMetadata("target_tokens", jsonStringArray(trace.targetTokens));
}

} // namespace attnviz::io
