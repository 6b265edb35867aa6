#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace attnviz::app {

struct Walkthrough;

/// How values map to colours: weights are non-negative (a perceptually uniform sequential map),
/// everything else is signed (a diverging map centred on zero).
enum class ColourScale { Sequential, Diverging };

/// One matrix to draw, pointing into a walkthrough's trace (which `owner` keeps alive).
struct HeatmapData {
    std::shared_ptr<const Walkthrough> owner;
    const float* values = nullptr; ///< row-major rows × cols
    int rows = 0;
    int cols = 0;
    /// Optional: the `masked` matrix of the same head, whose −∞ cells are drawn as blocked.
    const float* blockedSource = nullptr;
    QString title;
    QString rowAxis;       ///< "query", "token"
    QString columnAxis;    ///< "key", "feature"
    QStringList rowLabels;
    QStringList columnLabels;
    ColourScale scale = ColourScale::Diverging;
    QColor frame;          ///< the head's colour, or invalid
    /// Column ranges owned by heads, drawn as coloured bands above the matrix: (first, count, colour).
    struct Band {
        int first;
        int count;
        QColor colour;
    };
    std::vector<Band> columnBands;

    float value(int row, int col) const { return values[static_cast<std::size_t>(row) * cols + col]; }
    bool blocked(int row, int col) const;
};

/// The colour range of a set of matrices: [0, max] for sequential, ±max|v| for diverging;
/// −∞ cells are ignored.
std::pair<double, double> colourRange(const std::vector<HeatmapData>& maps);

/// How many columns a grid of `count` matrices uses: one row up to `maxSingleRow`, then a
/// near-square arrangement. The head grid, exported grids and handout pages share it.
int gridColumns(int count, int maxSingleRow = 3);

/// One colour per head, the same everywhere in the app, so "head 3" can be followed across steps.
QColor headColour(int head);

} // namespace attnviz::app
