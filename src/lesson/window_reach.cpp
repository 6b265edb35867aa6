#include "lesson/window_reach.h"

#include "engine/input_error.h"
#include "engine/transformer_model.h"

#include <memory>

namespace attnviz::lesson {
namespace {

// The map's numbers and the mask that blocks the tokens after the query, kept together: the
// heatmap's ResolvedMask refers to the AttentionMask it was built from.
struct ReachValues {
    std::vector<float> values;
    engine::AttentionMask mask;
    std::optional<engine::ResolvedMask> resolved;
};

} // namespace

std::vector<std::optional<std::int64_t>> layerWindows(const engine::ModelConfig& c)
{
    std::vector<std::optional<std::int64_t>> windows;
    for (int L = 0; L < c.decoderLayers; ++L)
        windows.push_back(
            engine::attentionDescription(c, L, engine::Block::MaskedSelf).mask.slidingWindow);
    return windows;
}

WindowReach windowReach(std::vector<std::optional<std::int64_t>> windows,
                        std::vector<std::string> tokens, int query)
{
    if (windows.empty())
        throw engine::InputError("A stack of no layers reaches nothing; expected at least one.");
    for (const auto& w : windows)
        if (w && *w < 1)
            throw engine::InputError("A sliding window of " + std::to_string(*w) +
                                     " keys sees nothing; expected at least 1.");
    const int n = static_cast<int>(tokens.size());
    if (query < 0 || query >= n)
        throw engine::InputError("Token " + std::to_string(query) + " does not exist; there are " +
                                 std::to_string(n) + ".");
    WindowReach out;
    out.windows = std::move(windows);
    out.query = query;
    const int layers = static_cast<int>(out.windows.size());
    auto m = std::make_shared<ReachValues>();
    m->values.assign(static_cast<std::size_t>(layers) * n, 0.0f);
    std::optional<std::int64_t> reach = 0;
    for (int L = 0; L < layers; ++L) {
        const std::optional<std::int64_t>& w = out.windows[static_cast<std::size_t>(L)];
        if (reach)
            reach = w ? std::optional<std::int64_t>(*reach + *w - 1) : std::nullopt;
        out.reach.push_back(reach);
        for (int j = 0; j <= query; ++j) {
            const std::int64_t back = query - j;
            float& cell = m->values[static_cast<std::size_t>(L) * n + j];
            if (!w || back < *w)
                cell = 2;
            else if (!reach || back <= *reach)
                cell = 1;
        }
    }
    // Every row blocks the keys after the query: rows are layers, each with the query's length.
    m->mask.validLengths = engine::AttentionMask::ValidLengths{
        std::vector<std::int64_t>(static_cast<std::size_t>(layers), query + 1), true};
    m->resolved.emplace(m->mask, 1, layers, n);
    Heatmap& h = out.map;
    h.matrix.values = m->values.data();
    h.matrix.rows = layers;
    h.matrix.cols = n;
    h.matrix.rowAxis = "layer";
    h.matrix.columnAxis = "key";
    for (int L = 0; L < layers; ++L)
        h.matrix.rowLabels.push_back(std::to_string(L));
    h.matrix.columnLabels = std::move(tokens);
    h.mask = std::shared_ptr<const engine::ResolvedMask>(m, &*m->resolved);
    h.owner = m;
    h.caption = "reach of token " + std::to_string(query) + " after each layer";
    h.title = h.caption;
    h.scale = ColourScale::Sequential;
    return out;
}

} // namespace attnviz::lesson
