#include "lesson/memory_budget.h"

#include "engine/input_error.h"
#include "engine/model_weights.h"
#include "engine/transformer_model.h"
#include "lesson/parameter_count.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace attnviz::lesson {
namespace {

constexpr std::uint64_t kFloat = sizeof(float);

// Saturating arithmetic: a hostile size must give "too much", never wrap around to little.
std::uint64_t times(std::uint64_t a, std::uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}
std::uint64_t plus(std::uint64_t a, std::uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

std::uint64_t size(std::int64_t n)
{
    return static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0));
}

// Elements of one step, from its axis names in the step table.
std::uint64_t stepElements(const engine::AttentionStepInfo& info,
                           const engine::AttentionTrace::Sizes& s, std::int64_t outputWidth)
{
    const std::int64_t heads = info.keyValueHeads ? s.keyValueHeads : s.heads;
    std::uint64_t n = 1;
    std::string_view axes = info.axes;
    while (!axes.empty()) {
        const std::size_t comma = axes.find(',');
        const std::string_view axis = axes.substr(0, comma);
        axes = comma == std::string_view::npos ? std::string_view() : axes.substr(comma + 1);
        std::int64_t extent = 0;
        if (axis == "batch")
            extent = s.batch;
        else if (axis == "head")
            extent = heads;
        else if (axis == "query")
            extent = s.queries;
        else if (axis == "key")
            extent = s.keys;
        else if (axis == "d_k")
            extent = s.queryKey;
        else if (axis == "d_v")
            extent = s.value;
        else if (axis == "tile")
            extent = s.tiles;
        else if (info.headColumns == engine::HeadColumns::QueryKey)
            extent = heads * s.queryKey;
        else if (info.headColumns == engine::HeadColumns::Value)
            extent = heads * s.value;
        else
            extent = outputWidth;
        n = times(n, size(extent));
    }
    return n;
}

} // namespace

std::optional<std::uint64_t> availableMemoryBytes()
{
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        std::uint64_t kib = 0;
        if (!(meminfo >> kib))
            return std::nullopt;
        if (key == "MemAvailable:")
            return times(kib, 1024);
        meminfo.ignore(64, '\n');
    }
    return std::nullopt;
}

MemoryBudget MemoryBudget::forThisMachine(std::optional<std::uint64_t> userLimit)
{
    // Leave a fifth of what is free to the rest of the system and to what the estimate misses.
    const std::uint64_t machine = availableMemoryBytes().value_or(8ull << 30) / 5 * 4;
    if (userLimit && *userLimit <= machine)
        return {*userLimit, "the memory limit you set"};
    return {machine,
            "the memory this machine has available (80 % of " +
                formatBytes(availableMemoryBytes().value_or(10ull << 30)) + ")"};
}

void MemoryBudget::check(std::uint64_t bytes, std::string_view what) const
{
    if (bytes <= limit)
        return;
    // "needs about 4.0 MiB …; … allows 4.0 MiB" would read as no reason at all.
    const std::string need = formatBytes(bytes) == formatBytes(limit)
        ? "a little more than " + formatBytes(limit)
        : "about " + formatBytes(bytes);
    throw engine::InputError(std::string(what) + " needs " + need + " of memory; " + source +
                             " allows " + formatBytes(limit) + ".");
}

BudgetedJsonReading::BudgetedJsonReading(std::optional<std::uint64_t> maxMemory)
    : io::JsonMemoryScope([budget = MemoryBudget::forThisMachine(maxMemory)](
                              std::uint64_t bytes, const std::string& what) {
        budget.check(bytes, "Reading " + what);
    })
{
}

std::string formatBytes(std::uint64_t bytes)
{
    // Binary units, as --max-memory reads "2G".
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return text;
}

std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    double number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc() || !std::isfinite(number) || number <= 0)
        return std::nullopt;
    std::string unit(end, text.data() + text.size());
    std::transform(unit.begin(), unit.end(), unit.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    double scale = 0;
    if (unit.empty() || unit == "B")
        scale = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB")
        scale = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MIB")
        scale = 1024.0 * 1024;
    else if (unit == "G" || unit == "GB" || unit == "GIB")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "TB" || unit == "TIB")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else
        return std::nullopt;
    const double bytes = number * scale;
    if (bytes < 1 || bytes >= 1.8e19)
        return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
}

std::uint64_t attentionTraceBytes(const engine::AttentionTrace::Sizes& s,
                                  const engine::AttentionDescription& description,
                                  std::int64_t outputWidth, const engine::AttentionKeep& keep)
{
    std::uint64_t elements = 0, working = 0;
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable) {
        if (!engine::stepPresent(info.step, description))
            continue;
        const std::uint64_t n = stepElements(info, s, outputWidth);
        if (keep.has(info.step))
            elements = plus(elements, n);
        else if (!info.scoreShaped)
            working = plus(working, n); // projections and contexts exist while computing
    }
    return times(plus(elements, working), kFloat);
}

std::uint64_t modelWeightBytes(const engine::TransformerModel& model)
{
    const ModelParameters p = modelParameters(model);
    if (!model.streamsLayers())
        return times(size(p.total()), kFloat);
    // Streamed: what stays (embeddings, norms, output) and the one layer a pass holds.
    std::int64_t layers = 0, largest = 0;
    for (const auto* stack : {&p.encoderLayers, &p.decoderLayers})
        for (const std::int64_t n : *stack) {
            layers += n;
            largest = std::max(largest, n);
        }
    return times(size(p.total() - layers + largest), kFloat);
}

std::uint64_t modelRunBytes(const engine::ModelConfig& c, std::int64_t tokens,
                            const engine::CapturePolicy& policy)
{
    const std::uint64_t n = size(tokens), D = size(c.modelWidth), F = size(c.feedForwardWidth);
    const engine::AttentionDescription d = engine::attentionDescription(
        c, 0, c.hasDecoder() ? engine::Block::MaskedSelf : engine::Block::Self);
    engine::AttentionTrace::Sizes s;
    s.batch = 1;
    s.heads = d.queryHeads;
    s.keyValueHeads = d.keyValueHeads;
    s.queries = s.keys = tokens;
    s.queryKey = d.queryKeySize;
    s.value = d.valueSize;
    const std::uint64_t fullAttention =
        plus(attentionTraceBytes(s, d, c.modelWidth, engine::AttentionKeep::all()),
             times(times(2, times(n, D)), kFloat)); // norm, residual
    const std::uint64_t keptAttention = attentionTraceBytes(s, d, c.modelWidth, policy.attention);
    // hidden_pre and hidden, and a gated block's gate_pre.
    const std::uint64_t hiddenTensors = c.feedForwardKind == engine::FeedForwardKind::Gated ? 3 : 2;
    const std::uint64_t feedForward =
        times(plus(times(hiddenTensors, times(n, F)), times(3, times(n, D))), kFloat);
    const std::uint64_t attentionBlocksPerDecoderLayer =
        c.architecture == engine::Architecture::EncoderDecoder ? 2 : 1;
    const std::uint64_t layers = size(c.encoderLayers) + size(c.decoderLayers);
    const std::uint64_t blocks =
        plus(size(c.encoderLayers), times(attentionBlocksPerDecoderLayer, size(c.decoderLayers)));
    const bool everything = policy.attention.keepsAll() && policy.layerTensors;
    std::uint64_t bytes = 0;
    if (everything) {
        bytes = plus(times(blocks, fullAttention), times(layers, feedForward));
    } else {
        // Every block keeps what the policy asks for, every layer its input, and one layer (the
        // full one, or the one being computed) everything.
        bytes = plus(times(blocks, keptAttention), times(layers, times(times(n, D), kFloat)));
        bytes =
            plus(bytes, plus(times(attentionBlocksPerDecoderLayer, fullAttention), feedForward));
    }
    const std::uint64_t logitRows = policy.allLogits ? n : 1;
    if (c.hasDecoder())
        bytes = plus(bytes, times(times(logitRows, size(c.vocabSize)), kFloat));
    return plus(bytes, times(times(8, times(n, D)), kFloat)); // embeddings and stack outputs
}

} // namespace attnviz::lesson
