#include "io/trace_file.h"

#include "io/atomic_file.h"

#include <filesystem>

namespace attnviz::io {
namespace {

std::string axesText(const engine::Tensor& t)
{
    std::string axes;
    for (const engine::Axis& a : t.axes())
        axes += (axes.empty() ? "" : ",") + a.name;
    return axes;
}

std::string jsonText(const nlohmann::ordered_json& value)
{
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace

TraceFileWriter::TraceFileWriter(std::string path, bool sidecar, std::size_t expectedTensors)
    : m_path(std::move(path))
    , m_sidecar(sidecar)
    // A tensor's header entry and its axes metadata take about 200 bytes; tokens and text more.
    , m_writer(SafetensorsWriter::toFile(m_path, 16 * 1024 + 256 * expectedTensors))
{
}

std::string TraceFileWriter::sidecarPath(const std::string& path)
{
    return std::filesystem::path(path).replace_extension(".json").string();
}

void TraceFileWriter::add(const std::string& name, const engine::Tensor& t)
{
    m_writer.addF32(name, t.shape(), t.values());
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const engine::Axis& a : t.axes())
        axes.push_back(a.name);
    m_tensors.push_back(
        {{"name", name}, {"dtype", "F32"}, {"shape", t.shape()}, {"axes", std::move(axes)}});
    m_writer.setMetadata("axes." + name, axesText(t));
}

void TraceFileWriter::addAttentionTrace(const engine::AttentionTrace& trace,
                                        const std::string& prefix)
{
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        if (trace.has(info.step))
            add(prefix + std::string(info.name), trace.step(info.step));
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const engine::MaskedRow& r : trace.fullyMaskedRows)
        rows.push_back({r.batch, r.query});
    m_maskedRows = std::move(rows);
}

void TraceFileWriter::commit(nlohmann::ordered_json manifest)
{
    const bool model = manifest.value("kind", "") == "model";
    if (!m_maskedRows.is_null())
        manifest["fully_masked_rows"] = m_maskedRows;
    m_writer.setMetadata("format", model ? "attnviz-model-trace" : "attnviz-trace");
    for (const auto& [key, value] : manifest.items())
        m_writer.setMetadata(key, value.is_string() ? value.get<std::string>() : jsonText(value));

    nlohmann::ordered_json full{{"format", "attnviz-trace-manifest"},
                                {"version", 2},
                                {"data", std::filesystem::path(m_path).filename().string()}};
    for (const auto& [key, value] : manifest.items())
        full[key] = value;
    full["tensors"] = m_tensors;
    m_writer.setMetadata("manifest_version", "2");
    // The sidecar first: a failure there leaves neither file, and the data file's rename is last.
    std::optional<AtomicFile> sidecar;
    if (m_sidecar) {
        sidecar.emplace(sidecarPath(m_path));
        sidecar->write(full.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                       "\n");
    }
    m_writer.finish();
    if (sidecar)
        sidecar->commit();
}

} // namespace attnviz::io
