#include "lesson/map_selection.h"

#include "engine/input_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz::lesson {
namespace {

// Values and labels a derived map owns (a slice, a mean), with the map it came from kept alive
// for its mask.
struct OwnedMatrix {
    std::shared_ptr<const void> source;
    std::vector<float> values;
};

bool tokenAxis(const std::string& axis)
{
    return axis == "query" || axis == "key";
}

} // namespace

Heatmap tokenSlice(const Heatmap& map, const TokenRange& range)
{
    const auto bounds = [&](const std::string& axis, int size) -> std::pair<int, int> {
        if (!tokenAxis(axis))
            return {0, size};
        if (range.first >= size)
            throw engine::InputError("The tokens from " + std::to_string(range.first) +
                                     " are beyond the " + std::to_string(size) + " " + axis +
                                     " tokens there are (0–" + std::to_string(size - 1) + ").");
        const int end = std::min(range.end.value_or(size), size);
        return {range.first, std::max(end, range.first + 1)};
    };
    const auto [r0, r1] = bounds(map.matrix.rowAxis, map.rows());
    const auto [c0, c1] = bounds(map.matrix.columnAxis, map.cols());
    auto owned = std::make_shared<OwnedMatrix>();
    owned->source = map.owner;
    owned->values.reserve(static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(c1 - c0));
    for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c)
            owned->values.push_back(map.value(r, c));
    Heatmap slice = map;
    slice.owner = owned;
    slice.matrix.values = owned->values.data();
    slice.matrix.rows = r1 - r0;
    slice.matrix.cols = c1 - c0;
    const auto cut = []<typename T>(const std::vector<T>& labels, int from, int to) {
        if (static_cast<int>(labels.size()) < to)
            return labels;
        return std::vector<T>(labels.begin() + from, labels.begin() + to);
    };
    slice.matrix.rowLabels = cut(map.matrix.rowLabels, r0, r1);
    slice.matrix.columnLabels = cut(map.matrix.columnLabels, c0, c1);
    slice.rowDetails = cut(map.rowDetails, r0, r1);
    slice.columnDetails = cut(map.columnDetails, c0, c1);
    slice.maskRowOffset += r0;
    slice.maskColumnOffset += c0;
    slice.columnBands.clear(); // head bands are over feature columns, which a slice keeps whole
    for (Heatmap::Band band : map.columnBands)
        if (!tokenAxis(map.matrix.columnAxis))
            slice.columnBands.push_back(band);
    return slice;
}

Heatmap combinedMap(const std::vector<Heatmap>& maps, Combine how, std::string title,
                    std::string caption)
{
    const Heatmap& first = maps.front();
    auto owned = std::make_shared<OwnedMatrix>();
    owned->source = first.owner;
    const std::size_t n =
        static_cast<std::size_t>(first.rows()) * static_cast<std::size_t>(first.cols());
    owned->values.assign(n, how == Combine::Max ? -std::numeric_limits<float>::infinity() : 0.0f);
    for (const Heatmap& m : maps)
        for (std::size_t i = 0; i < n; ++i) {
            const float v = m.matrix.values[i];
            owned->values[i] =
                how == Combine::Max ? std::max(owned->values[i], v) : owned->values[i] + v;
        }
    if (how == Combine::Mean)
        for (float& v : owned->values)
            v /= static_cast<float>(maps.size());
    Heatmap out = first;
    out.owner = owned;
    out.matrix.values = owned->values.data();
    out.title = std::move(title);
    out.caption = std::move(caption);
    out.head = -1; // no one head's colour
    return out;
}

std::string combineName(Combine how)
{
    return how == Combine::Max ? "max" : "mean";
}

} // namespace attnviz::lesson
