#pragma once

#include <string>
#include <vector>

namespace attnviz::io {

/// A matrix with what its rows and columns stand for: the numbers behind a heatmap, as the CSV
/// and .npy writers take it. Points into memory someone else keeps alive (a trace).
struct LabelledMatrix {
    const float* values = nullptr; ///< row-major rows × cols
    int rows = 0;
    int cols = 0;
    std::string rowAxis; ///< "query", "token"
    std::string columnAxis; ///< "key", "feature"
    std::vector<std::string> rowLabels;
    std::vector<std::string> columnLabels;

    float value(int row, int col) const
    {
        return values[static_cast<std::size_t>(row) * cols + col];
    }
};

/// The matrix as CSV: a header row with the column labels (tokens or feature indices) after a
/// "row\column" corner cell, then one row per query/token with its label first. Values keep
/// float precision (9 significant digits); −∞ is written `-inf`. No cell is quoted, so
/// numpy.genfromtxt reads it as spreadsheets do: a comma, quote or # in a label (and a control
/// character, or a blank at either end) is written \xNN, and a label a spreadsheet would run as
/// a formula (`=1+1`, `@SUM(…)`, `-x`) starts with a quote mark; a number (`-0.5`) stays one.
std::string csvBytes(const LabelledMatrix& matrix);

/// What the rows and columns of an .npy file stand for, as JSON beside it (`<name>.labels.json`):
/// {"rows": {"axis": "query", "labels": [...]}, "columns": {...}}, the labels spelled as in the
/// CSV and the trace manifest.
std::string labelsJson(const LabelledMatrix& matrix);

/// The matrix as a NumPy .npy file (format 1.0, little-endian float32, C order, rows × cols):
/// `numpy.load` reads it without AttnViz.
std::string npyBytes(const LabelledMatrix& matrix);

} // namespace attnviz::io
