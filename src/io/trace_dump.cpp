#include "io/trace_dump.h"

namespace attnviz::io {

void addAttentionTrace(SafetensorsWriter& writer, const engine::AttentionTrace& trace,
                       const std::string& prefix)
{
    for (const engine::AttentionStep step : engine::kAttentionSteps) {
        const engine::Tensor& t = trace.step(step);
        const std::string name = prefix + std::string(engine::stepName(step));
        writer.addF32(name, t.shape(), t.values());
        std::string axes;
        for (const engine::Axis& a : t.axes())
            axes += (axes.empty() ? "" : ",") + a.name;
        writer.setMetadata("axes." + name, axes);
    }
    std::string rows = "[";
    for (const engine::MaskedRow& r : trace.fullyMaskedRows)
        rows += (rows.size() > 1 ? "," : "") + ("[" + std::to_string(r.batch) + "," +
                                                std::to_string(r.query) + "]");
    writer.setMetadata(prefix + "fully_masked_rows", rows + "]");
}

} // namespace attnviz::io
