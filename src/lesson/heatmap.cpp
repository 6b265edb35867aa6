#include "lesson/heatmap.h"

#include <algorithm>
#include <cmath>

namespace attnviz::lesson {

bool Heatmap::blocked(int row, int col) const
{
    return mask && mask->blocked(maskBatch, row + maskRowOffset, col + maskColumnOffset);
}

double rowSum(const Heatmap& map, int row)
{
    double sum = 0;
    for (int c = 0; c < map.cols(); ++c)
        if (std::isfinite(map.value(row, c)))
            sum += map.value(row, c);
    return sum;
}

std::vector<double> rowSums(const Heatmap& map)
{
    std::vector<double> sums(static_cast<std::size_t>(map.rows()));
    for (int r = 0; r < map.rows(); ++r)
        sums[static_cast<std::size_t>(r)] = rowSum(map, r);
    return sums;
}

std::pair<double, double> colourRange(const std::vector<Heatmap>& maps)
{
    double largest = 0;
    bool sequential = true;
    for (const Heatmap& m : maps) {
        sequential = sequential && m.scale == ColourScale::Sequential;
        const std::size_t n =
            static_cast<std::size_t>(m.rows()) * static_cast<std::size_t>(m.cols());
        for (std::size_t i = 0; i < n; ++i)
            if (std::isfinite(m.matrix.values[i]))
                largest = std::max(largest, static_cast<double>(std::abs(m.matrix.values[i])));
    }
    if (largest == 0)
        largest = 1;
    return sequential ? std::pair{0.0, largest} : std::pair{-largest, largest};
}

std::optional<std::string> wholeWord(const std::vector<std::string>& labels, int index)
{
    const auto piece = [&](int i) {
        return i >= 0 && i < static_cast<int>(labels.size()) &&
            labels[static_cast<std::size_t>(i)].starts_with("##");
    };
    if (index < 0 || index >= static_cast<int>(labels.size()))
        return std::nullopt;
    int first = index, last = index;
    while (piece(first) && first > 0)
        --first;
    while (piece(last + 1))
        ++last;
    if (first == last)
        return std::nullopt;
    std::string word = labels[static_cast<std::size_t>(first)];
    for (int i = first + 1; i <= last; ++i)
        word += labels[static_cast<std::size_t>(i)].substr(2);
    return word;
}

Heatmap layersByHeads(std::shared_ptr<const std::vector<float>> values, int layers, int heads)
{
    Heatmap map;
    map.matrix.values = values->data();
    map.matrix.rows = layers;
    map.matrix.cols = heads;
    map.matrix.rowAxis = "layer";
    map.matrix.columnAxis = "head";
    for (int l = 0; l < layers; ++l)
        map.matrix.rowLabels.push_back("layer " + std::to_string(l));
    for (int h = 0; h < heads; ++h)
        map.matrix.columnLabels.push_back("head " + std::to_string(h));
    map.owner = std::move(values);
    return map;
}

} // namespace attnviz::lesson
