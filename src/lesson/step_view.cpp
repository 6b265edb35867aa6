#include "lesson/step_view.h"

#include "engine/key_value_cache.h"
#include "lesson/memory_budget.h"
#include "lesson/parameter_count.h"
#include "lesson/rotary_shift.h"
#include "lesson/scaling_experiment.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <type_traits>

namespace attnviz::lesson {
namespace {

std::vector<std::string> indexLabels(std::int64_t count)
{
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < count; ++i)
        out.push_back(std::to_string(i));
    return out;
}

// The tooltip lines of the tokens along `axis` ("query", "key") of batch item `batch`; empty for
// other axes and for tokens no tokenizer made.
std::vector<io::TokenDetail> tokenDetailsAlong(const Walkthrough& w, const std::string& axis,
                                               int batch)
{
    static const std::vector<std::vector<io::TokenDetail>> none;
    const auto& details = axis == "query" ? w.queryTokenDetails
        : axis == "key"                   ? w.keyTokenDetails
                                          : none;
    const auto b = static_cast<std::size_t>(batch);
    return b < details.size() ? details[b] : std::vector<io::TokenDetail>{};
}

Heatmap tokenHeatmap(const std::shared_ptr<const Walkthrough>& w, const engine::Tensor& t,
                     int batch, std::string title, const std::vector<std::string>& tokens,
                     const std::string& rowAxis)
{
    Heatmap h;
    h.owner = w;
    const auto m = t.matrix({batch});
    h.matrix = {
        m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), rowAxis, "feature",
        tokens,   indexLabels(m.cols())};
    h.rowDetails = tokenDetailsAlong(*w, rowAxis, batch);
    h.caption = title;
    h.title = std::move(title);
    return h;
}

std::string shapeOf(std::string_view symbol, const engine::Tensor& t)
{
    return std::string(symbol) + " " + t.shapeString();
}

// The input step: what X is made of in the playground, or where a model block's X came from.
std::vector<Heatmap> inputHeatmaps(const std::shared_ptr<const Walkthrough>& w, int batch)
{
    std::vector<Heatmap> maps;
    const auto b = static_cast<std::size_t>(batch);
    std::visit(
        [&](const auto& source) {
            using Source = std::decay_t<decltype(source)>;
            if constexpr (std::is_same_v<Source, PlaygroundSource>) {
                maps.push_back(tokenHeatmap(w, source.embedding, batch, "token embedding",
                                            w->queryTokens[b], "query"));
                Heatmap pe;
                pe.owner = w;
                const auto rows = static_cast<int>(w->trace->queryLength());
                const auto cols = static_cast<int>(source.positional.dim(1));
                pe.matrix = {
                    source.positional.data(), rows, cols, "position", "feature", indexLabels(rows),
                    indexLabels(cols)};
                pe.title = pe.caption = source.settings.positions == PositionKind::Sinusoidal
                    ? "+ positional encoding"
                    : source.settings.positions == PositionKind::Rotary
                    ? "no positions added (rotary: q and k turn by position)"
                    : "positional encoding (off)";
                maps.push_back(std::move(pe));
                maps.push_back(tokenHeatmap(w, *w->queryInput, batch, "= X (queries)",
                                            w->queryTokens[b], "query"));
                if (w->crossAttention)
                    maps.push_back(tokenHeatmap(w, *w->keyValueInput, batch, "X (keys, values)",
                                                w->keyTokens[b], "key"));
            } else if constexpr (std::is_same_v<Source, ImportSource>) {
                // An import holds no X: the step panel says so instead of drawing.
            } else if constexpr (std::is_same_v<Source, ModelBlockSource>) {
                if (w->queryInput)
                    maps.push_back(tokenHeatmap(w, *w->queryInput, batch, source.queryInputOrigin,
                                                w->queryTokens[b], "query"));
                if (w->crossAttention && w->keyValueInput)
                    maps.push_back(tokenHeatmap(w, *w->keyValueInput, batch,
                                                source.keyValueInputOrigin, w->keyTokens[b],
                                                "key"));
            } else {
                maps.push_back(tokenHeatmap(w, *w->queryInput, batch, "X (queries)",
                                            w->queryTokens[b], "query"));
                if (w->crossAttention)
                    maps.push_back(tokenHeatmap(w, *w->keyValueInput, batch, "X (keys, values)",
                                                w->keyTokens[b], "key"));
            }
        },
        w->source);
    return maps;
}

// Every occurrence of `placeholder` in `text` replaced by `value`.
void replaceAll(std::string& text, std::string_view placeholder, const std::string& value)
{
    for (std::size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
}

// "0–3", "4–7", …: the keys each tile of the online softmax reads.
std::vector<std::string> tileLabels(const engine::AttentionTrace& t)
{
    const std::int64_t tile = t.description.onlineSoftmaxTile.value_or(1);
    std::vector<std::string> labels;
    for (std::int64_t k0 = 0; k0 < t.keyLength(); k0 += tile) {
        const std::int64_t last = std::min(k0 + tile, t.keyLength()) - 1;
        labels.push_back(last == k0 ? std::to_string(k0)
                                    : std::to_string(k0) + "–" + std::to_string(last));
    }
    return labels;
}

} // namespace

std::string formatNumber(double v)
{
    std::ostringstream s;
    s << std::setprecision(7) << v;
    return s.str();
}

// "Q 0–1 → KV 0; Q 2–3 → KV 1": which query heads read which K/V head, in symbols that need no
// translation (it sits inside the formula line of either language).
std::string keyValueHeadMap(const engine::AttentionDescription& d)
{
    if (!d.groupedKeyValues())
        return "Q h → KV h";
    std::string out;
    for (int g = 0; g < d.keyValueHeads && g < 8; ++g) {
        const int first = g * d.groupSize(), last = first + d.groupSize() - 1;
        out += (out.empty() ? "Q " : "; Q ") + std::to_string(first) +
            (first == last ? "" : "–" + std::to_string(last)) + " → KV " + std::to_string(g);
    }
    return out + (d.keyValueHeads > 8 ? "; …" : "");
}

std::string fillSizes(std::string_view text, const Walkthrough& w)
{
    const auto& t = *w.trace;
    const engine::AttentionDescription& d = t.description;
    const std::pair<const char*, std::int64_t> sizes[] = {
        {"{Hkvdk}", t.numKeyValueHeads() * w.dk()},
        {"{Hkv}", t.numKeyValueHeads()},
        {"{G}", d.groupSize()},
        {"{tiles}", t.tileCount()},
        {"{tile}", d.onlineSoftmaxTile.value_or(0)},
        {"{NqNk}", t.queryLength() * t.keyLength()},
        // A sliding window's reach: W − 1 keys back per layer, L · (W − 1) after L layers.
        {"{W}", w.mask.window.value_or(0)},
        {"{reach2}", 2 * (w.mask.window.value_or(1) - 1)},
        {"{reach4}", 4 * (w.mask.window.value_or(1) - 1)},
        {"{reach32}", 32 * (w.mask.window.value_or(1) - 1)},
        {"{kvTokenBytes}", engine::kvCacheBytes(1, 1, t.numKeyValueHeads(), w.dk(), w.dk(), 4)},
        {"{NqTile}", t.queryLength() * std::min(d.onlineSoftmaxTile.value_or(0), t.keyLength())},
        {"{rot}", d.rotatedSize()},
        {"{B}", t.batchSize()},
        {"{Hlast}", t.numHeads() - 1},
        {"{H}", t.numHeads()},
        {"{Nq}", t.queryLength()},
        {"{Nk}", t.keyLength()},
        {"{D}", w.modelWidth()},
        {"{dk}", w.dk()},
        {"{dv}", w.dv()},
        {"{Hdk}", t.numHeads() * w.dk()},
        {"{Hdv}", t.numHeads() * w.dv()},
        {"{Po}", w.weights() ? w.weights()->wO.rows() : 0}};
    std::string out(text);
    for (const auto& [placeholder, value] : sizes)
        replaceAll(out, placeholder, std::to_string(value));
    const auto rotated = [&](std::string symbol) {
        return d.rotary ? "RoPE(" + symbol + ")" : symbol;
    };
    // The KV cache of this block in float32: 2 (K and V) · H_kv · d · 4 bytes per token, and the
    // same width with one K/V head per query head (MHA) or one for all (MQA).
    const auto cache = [&](std::int64_t kvHeads, std::int64_t tokens) {
        return formatBytes(static_cast<std::uint64_t>(
            engine::kvCacheBytes(tokens, 1, kvHeads, w.dk(), w.dk(), 4)));
    };
    const std::pair<const char*, std::string> words[] = {
        {"{kv1024}", cache(t.numKeyValueHeads(), 1024)},
        {"{kvMha1024}", cache(t.numHeads(), 1024)},
        {"{kvMqa1024}", cache(1, 1024)},
        {"{Qh}", rotated("Q_h")},
        {"{Kh}", rotated(d.groupedKeyValues() ? "K_g(h)" : "K_h")},
        {"{kvmap}", keyValueHeadMap(d)},
        {"{theta}", d.rotary ? formatNumber(d.rotary->theta) : std::string("–")},
        // What the scores are multiplied by: 1/√d_k unless the module states its own number.
        {"{scaleCaption}", d.scoreScale ? "× " + formatNumber(*d.scoreScale) : "÷ √d_k"},
        {"{scale}", formatNumber(d.scale())},
        {"{cap}", d.logitSoftCap ? formatNumber(*d.logitSoftCap) : std::string("–")},
        {"{eps}", d.queryKeyNorm ? formatNumber(d.queryKeyNorm->epsilon) : std::string("–")}};
    // The scaled step's own numbers, computed only for a text that asks for them.
    if (out.find("{scaled") != std::string::npos) {
        const std::optional<ScaledSpread> spread = scaledScoreSpread(w);
        const auto shown = [&](double ScaledSpread::*field) {
            if (!spread)
                return std::string("–");
            const double v = (*spread).*field;
            std::ostringstream s;
            // Two significant digits: "0.94", "37"; no exponent for the hundreds.
            if (v >= 10)
                s << std::llround(v);
            else
                s << std::setprecision(2) << v;
            return s.str();
        };
        for (const auto& [placeholder, value] :
             {std::pair<const char*, std::string>{"{scaledVariance}",
                                                  shown(&ScaledSpread::variance)},
              std::pair<const char*, std::string>{"{scaledLargest}",
                                                  shown(&ScaledSpread::largest)}})
            replaceAll(out, placeholder, value);
    }
    // The rotary step's proof, computed only for a text that asks for it: the module run again
    // with every position moved on by kRotaryShift.
    if (out.find("{shift") != std::string::npos) {
        constexpr std::int64_t kRotaryShift = 1000;
        const std::optional<RotaryShift> shift = rotaryShift(w, kRotaryShift);
        const auto shown = [&](double RotaryShift::*field) {
            if (!shift)
                return std::string("–");
            std::ostringstream s;
            s << std::setprecision(2) << (*shift).*field;
            return s.str();
        };
        for (const auto& [placeholder, value] :
             {std::pair<const char*, std::string>{"{shift}", std::to_string(kRotaryShift)},
              std::pair<const char*, std::string>{"{shiftQueryChange}",
                                                  shown(&RotaryShift::queryChange)},
              std::pair<const char*, std::string>{"{shiftScoreChange}",
                                                  shown(&RotaryShift::scoreChange)},
              std::pair<const char*, std::string>{"{shiftLargestScore}",
                                                  shown(&RotaryShift::largestScore)}})
            replaceAll(out, placeholder, value);
    }
    for (const auto& [placeholder, value] : words)
        replaceAll(out, placeholder, value);
    return out;
}

Heatmap traceHeatmap(const std::shared_ptr<const Walkthrough>& w, engine::AttentionStep step,
                     int batch, int head, std::string title, std::string caption)
{
    const engine::AttentionStepInfo& info = engine::stepInfo(step);
    const engine::Tensor& t = w->trace->step(step);
    const auto m = info.perHead ? t.matrix({batch, head}) : t.matrix({batch});
    const auto b = static_cast<std::size_t>(batch);
    const auto labelsAlong = [&](const std::string& axis, std::int64_t size) {
        if (axis == "query")
            return w->queryTokens[b];
        if (axis == "key")
            return w->keyTokens[b];
        if (axis == "tile")
            return tileLabels(*w->trace);
        return indexLabels(size);
    };
    const auto& axes = t.axes();
    const std::string& rowAxis = axes[axes.size() - 2].name;
    const std::string& columnAxis = axes.back().name;

    Heatmap h;
    h.owner = w;
    h.matrix = {
        m.data(),   static_cast<int>(m.rows()),     static_cast<int>(m.cols()),       rowAxis,
        columnAxis, labelsAlong(rowAxis, m.rows()), labelsAlong(columnAxis, m.cols())};
    h.rowDetails = tokenDetailsAlong(*w, rowAxis, batch);
    h.columnDetails = tokenDetailsAlong(*w, columnAxis, batch);
    h.title = std::move(title);
    h.caption = std::move(caption);
    h.scale = step == engine::AttentionStep::Weights && !w->difference ? ColourScale::Sequential
                                                                       : ColourScale::Diverging;
    if (w->difference) {
        h.title = "Δ " + h.title;
        h.caption = "Δ " + h.caption;
    }
    if (step == engine::AttentionStep::Weights || step == engine::AttentionStep::Masked) {
        h.mask = std::make_shared<const engine::ResolvedMask>(
            w->mask, w->trace->batchSize(), w->trace->queryLength(), w->trace->keyLength());
        h.maskBatch = batch;
    }
    // A K/V head shared by a group belongs to no single query head: no frame, no head menu.
    const int sharedBy = info.keyValueHeads && w->description().groupedKeyValues()
        ? w->description().groupSize()
        : 0;
    if (info.perHead && sharedBy == 0)
        h.head = head;
    if (info.headColumns != engine::HeadColumns::None) {
        const int width = info.headColumns == engine::HeadColumns::QueryKey ? w->dk() : w->dv();
        for (int k = 0; k * width < h.matrix.cols; ++k)
            h.columnBands.push_back({k * width, width, k, sharedBy});
    }
    return h;
}

std::vector<Heatmap> weightHeatmaps(const LessonStep& step, const Walkthrough& w)
{
    std::vector<Heatmap> maps;
    if (!w.weights())
        return maps;
    const engine::AttentionWeights& weights = *w.weights();
    const bool grouped = w.description().groupedKeyValues();
    const auto add = [&](const engine::RowMatrix& stored, bool transposed, const std::string& name,
                         int headWidth, const std::string& rowsName, const std::string& colsName,
                         int sharedBy = 0) {
        auto m = std::make_shared<engine::RowMatrix>(
            transposed ? engine::RowMatrix(stored.transpose()) : stored);
        Heatmap h;
        h.owner = m;
        h.matrix = {m->data(), static_cast<int>(m->rows()), static_cast<int>(m->cols()), "feature",
                    "feature", indexLabels(m->rows()),      indexLabels(m->cols())};
        h.caption = name + " (" + rowsName + " × " + colsName + " = " + std::to_string(m->rows()) +
            " × " + std::to_string(m->cols()) + ")";
        h.title = h.caption;
        h.scale = ColourScale::Diverging;
        for (int k = 0; headWidth > 0 && k * headWidth < h.matrix.cols; ++k)
            h.columnBands.push_back({k * headWidth, headWidth, k, sharedBy});
        maps.push_back(std::move(h));
    };
    for (const std::string_view name : step.weights) {
        if (name == "W_q")
            add(weights.wQ, true, "W_qᵀ", w.dk(), "D", "H·d_k");
        else if (name == "W_k")
            add(weights.wK, true, "W_kᵀ", w.dk(), "D", grouped ? "H_kv·d_k" : "H·d_k",
                grouped ? w.description().groupSize() : 0);
        else if (name == "W_v")
            add(weights.wV, true, "W_vᵀ", w.dv(), "D", grouped ? "H_kv·d_v" : "H·d_v",
                grouped ? w.description().groupSize() : 0);
        else if (name == "W_o")
            add(weights.wO, false, "W_o", w.dv(), "Po", "H·d_v");
    }
    return maps;
}

std::vector<Heatmap> stepHeatmaps(const LessonStep& step,
                                  const std::shared_ptr<const Walkthrough>& w, int batch,
                                  std::size_t alternative)
{
    if (step.views.empty())
        return inputHeatmaps(w, batch);
    std::vector<Heatmap> maps;
    for (std::size_t v = 0; v < step.views.size(); ++v) {
        if (step.alternatives && v != std::min(alternative, step.views.size() - 1))
            continue;
        const TraceView& view = step.views[v];
        if (!w->trace->has(view.step))
            continue; // an import's steps before the weights
        const std::string caption = fillSizes(view.caption, *w);
        if (!engine::stepInfo(view.step).perHead) {
            maps.push_back(traceHeatmap(w, view.step, batch, 0, caption, caption));
            continue;
        }
        // Heads count from 0, as layers do and as the dumps and exported file names index them.
        // K/V steps of grouped-query attention have fewer heads, each read by a group.
        const engine::AttentionDescription& d = w->description();
        if (engine::stepInfo(view.step).keyValueHeads && d.groupedKeyValues()) {
            for (int g = 0; g < d.keyValueHeads; ++g) {
                const int first = g * d.groupSize(), last = first + d.groupSize() - 1;
                const std::string readers = first == last
                    ? "head " + std::to_string(first)
                    : "heads " + std::to_string(first) + "–" + std::to_string(last);
                maps.push_back(traceHeatmap(
                    w, view.step, batch, g,
                    "K/V head " + std::to_string(g) + " (" + readers + ") · " + caption, caption));
            }
            continue;
        }
        // A query head of grouped-query attention says which K/V head it reads.
        for (int h = 0; h < w->heads(); ++h)
            maps.push_back(traceHeatmap(w, view.step, batch, h,
                                        "head " + std::to_string(h) +
                                            (d.groupedKeyValues() ? " (K/V head " +
                                                     std::to_string(d.keyValueHeadOf(h)) + ")"
                                                                  : "") +
                                            " · " + caption,
                                        caption));
    }
    return maps;
}

std::string stepShapes(const LessonStep& step, const Walkthrough& w)
{
    std::string out;
    const auto append = [&](const std::string& part) { out += (out.empty() ? "" : "   ") + part; };
    if (step.views.empty()) {
        if (w.queryInput)
            append(shapeOf("X_q", *w.queryInput));
        if (w.keyValueInput)
            append(shapeOf("X_kv", *w.keyValueInput));
        return out;
    }
    for (const TraceView& view : step.views)
        if (w.trace->has(view.step))
            append(shapeOf(view.symbol, w.trace->step(view.step)));
    if (!step.weights.empty() && w.weights()) {
        // What the step learns: each matrix's shape and count, and for the last one the module's
        // total as PyTorch's sum(p.numel()) gives it.
        const std::vector<MatrixParameters> all = attentionParameters(*w.weights());
        std::string line;
        std::int64_t total = 0;
        for (const MatrixParameters& m : all) {
            if (std::find(step.weights.begin(), step.weights.end(), m.name) == step.weights.end())
                continue;
            line += (line.empty() ? "" : ", ") + m.name + " " + std::to_string(m.rows) + "×" +
                std::to_string(m.cols) + (m.biases ? " + " + std::to_string(m.biases) : "");
            total += m.total();
        }
        line += " = " + groupedNumber(total) + " parameters";
        if (step.weights.back() == all.back().name)
            line += "; the module: " + groupedNumber(totalParameters(all)) + " (" +
                groupedNumber(totalWeights(all)) + " without biases)";
        out += "\n" + line;
    }
    return out;
}

std::string stepFormula(const LessonStep& step, const Walkthrough& w,
                        std::string_view formulaTemplate)
{
    if (const auto* model = std::get_if<ModelBlockSource>(&w.source); model && step.views.empty())
        return model->queryInputOrigin +
            (w.crossAttention ? ",   " + model->keyValueInputOrigin : "");
    return fillSizes(formulaTemplate, w);
}

std::vector<std::string> maskNotes(const Walkthrough& w)
{
    std::vector<std::string> notes;
    const engine::AttentionMask& m = w.mask;
    if (m.window)
        notes.push_back("Sliding window of " + std::to_string(*m.window) +
                        " keys: query i sees keys " + "i − " + std::to_string(*m.window - 1) +
                        " … i only, so each row's allowed cells are a band along the diagonal; "
                        "information from further back reaches it through the layers below.");
    if (w.crossAttention && m.causal)
        notes.push_back("A causal mask on cross-attention compares positions of two different "
                        "sequences by their index: query i loses the source positions after i "
                        "for no reason. Cross-attention needs no causal mask.");
    if (m.validLengths && !m.validLengths->perQuery) {
        const auto& lengths = m.validLengths->lengths;
        std::string list, seen;
        for (std::size_t b = 0; b < lengths.size(); ++b) {
            list += (b ? ", " : "") + std::to_string(lengths[b]);
            if (b < 4)
                seen += std::string(b ? "; " : "") + "item " + std::to_string(b) + " sees " +
                    (lengths[b] == 0       ? std::string("no key")
                         : lengths[b] == 1 ? std::string("key 0")
                                           : "keys 0–" + std::to_string(lengths[b] - 1));
        }
        notes.push_back("Valid lengths [" + list + "]: " + seen +
                        (lengths.size() > 4 ? "; …" : "") +
                        ". Keys at or after an item's length "
                        "are blocked.");
    } else if (m.validLengths) {
        const auto& lengths = m.validLengths->lengths;
        const std::size_t perItem = w.queryTokens.empty() ? 0 : w.queryTokens.front().size();
        std::string rows;
        for (std::size_t b = 0; perItem && b * perItem < lengths.size() && b < 4; ++b) {
            rows += b ? ", [" : "[";
            for (std::size_t i = 0; i < perItem; ++i)
                rows += (i ? ", " : "") + std::to_string(lengths[b * perItem + i]);
            rows += "]";
        }
        notes.push_back("Valid lengths per query [" + rows +
                        (lengths.size() > 4 * perItem ? ", …" : "") +
                        "]: query i of an item sees the keys before its own length; each row "
                        "of the mask has its own cut.");
    }
    return notes;
}

} // namespace attnviz::lesson
