// The one layout the screen and the exports share: hit-testing lands on the drawn cell, labels
// stay upright while they fit and turn only when they must.
#include "gui_application.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "render/heatmap_layout.h"
#include "render/image_export.h"

#include <QFontMetricsF>

#include <cmath>

#include <gtest/gtest.h>

namespace attnviz::test {
namespace {

class HeatmapLayout : public ::testing::Test {
protected:
    static void SetUpTestSuite() { test::ensureGuiApplication(); }

    static lesson::Heatmap weights(const std::string& sentence)
    {
        lesson::PlaygroundSettings s;
        s.querySentences = {sentence};
        s.tokenUnit = lesson::TokenUnit::Character;
        const auto w = lesson::computePlayground(s);
        return lesson::traceHeatmap(w, engine::AttentionStep::Weights, 0, 0, "head 0 · softmax",
                                    "softmax");
    }

    static render::HeatmapStyle style()
    {
        render::HeatmapStyle s;
        s.font = render::exportFont();
        return s;
    }
};

TEST_F(HeatmapLayout, EveryCellCentreMapsBackToItsCell)
{
    const lesson::Heatmap h = weights("attention");
    const render::HeatmapLayout layout(h, {0, 1}, QRectF(0, 0, 640, 480), style());
    for (int r = 0; r < h.rows(); ++r)
        for (int c = 0; c < h.cols(); ++c)
            EXPECT_EQ(layout.cellAt(layout.cellCentre(r, c)), (std::pair{r, c}));
    EXPECT_EQ(layout.cellAt(QPointF(1, 1)), std::nullopt);
    EXPECT_TRUE(QRectF(0, 0, 640, 480).contains(layout.cells()));
}

// #23: the head's frame (3 px outside the cells, a 2.5 px pen) stays off the title, whose
// descenders it hid ("Q_h K_hᵀ" read "Q h K hᵀ"); a long title wraps instead of being cut.
TEST_F(HeatmapLayout, TheTitleIsNeitherCoveredNorCut)
{
    lesson::Heatmap h = weights("attention");
    h.head = 0;
    h.title = "head 0 · Q_h K_hᵀ";
    const render::HeatmapLayout framed(h, {0, 1}, QRectF(0, 0, 640, 480), style());
    EXPECT_GE(framed.cells().top() - 3 - 1.25, framed.title().bottom());
    h.title = std::string(30, 'w') + " " + std::string(30, 'w') + " " + std::string(30, 'w');
    const render::HeatmapLayout wrapped(h, {0, 1}, QRectF(0, 0, 400, 480), style());
    EXPECT_EQ(wrapped.titleText().toStdString(), h.title) << "nothing elided";
    EXPECT_GT(wrapped.title().height(), 2 * QFontMetricsF(wrapped.titleFont()).height());
}

TEST_F(HeatmapLayout, AllLabelsAreShownOrSaidToBeCrowded)
{
    const lesson::Heatmap h = weights("the quick brown fox jumps over the lazy dog again");
    render::HeatmapStyle all = style();
    all.labels = render::LabelMode::All;
    const render::HeatmapLayout roomy(h, {0, 1}, QRectF(0, 0, 1200, 1200), all);
    EXPECT_EQ(roomy.rowLabels().size(), static_cast<std::size_t>(h.rows()));
    EXPECT_EQ(roomy.columnLabels().size(), static_cast<std::size_t>(h.cols()));
    EXPECT_FALSE(roomy.labelsCrowded());
    const render::HeatmapLayout small(h, {0, 1}, QRectF(0, 0, 300, 300), all);
    EXPECT_TRUE(small.labelsCrowded());
    render::HeatmapStyle none = style();
    none.labels = render::LabelMode::None;
    EXPECT_TRUE(render::HeatmapLayout(h, {0, 1}, QRectF(0, 0, 640, 480), none).rowLabels().empty());
    // Auto never shows fewer than fit: every k-th with the smallest k.
    const render::HeatmapLayout automatic(h, {0, 1}, QRectF(0, 0, 640, 480), style());
    const std::size_t shown = automatic.rowLabels().size();
    ASSERT_GE(shown, 2u);
    const int step = automatic.rowLabels()[1].index - automatic.rowLabels()[0].index;
    const double line = QFontMetricsF(automatic.tickFont()).height() + 1;
    if (step > 1) // one step less would not fit: every (step − 1)-th label overflows the cells
        EXPECT_GT(line * h.rows() / (step - 1), automatic.cells().height());
    else
        EXPECT_LE(line * h.rows(), automatic.cells().height() + line);
}

TEST_F(HeatmapLayout, ShortLabelsStayUprightAndAllShown)
{
    const lesson::Heatmap h = weights("attention");
    const render::HeatmapLayout layout(h, {0, 1}, QRectF(0, 0, 640, 480), style());
    EXPECT_FALSE(layout.columnLabelsTurned()); // single letters turned read as other letters (#13)
    EXPECT_EQ(layout.columnLabels().size(), 9u);
    EXPECT_EQ(layout.rowLabels().size(), 9u);
}

TEST_F(HeatmapLayout, RowSumsTakeAColumnBetweenTheCellsAndTheColourBar)
{
    const lesson::Heatmap h = weights("attention");
    const QRectF area(0, 0, 640, 480);
    const render::HeatmapLayout plain(h, {0, 1}, area, style());
    render::HeatmapStyle withSums = style();
    withSums.rowSums = true;
    const render::HeatmapLayout summed(h, {0, 1}, area, withSums);
    EXPECT_TRUE(plain.rowSums().isNull());
    ASSERT_FALSE(summed.rowSums().isNull());
    EXPECT_GE(summed.rowSums().left(), summed.cells().right());
    EXPECT_GE(summed.colourBar().left(), summed.rowSums().right());
    EXPECT_LT(summed.cells().width(), plain.cells().width());
    const QFontMetricsF tick(summed.tickFont());
    EXPECT_GE(summed.rowSums().width(), tick.horizontalAdvance(QStringLiteral("1.000")));
    EXPECT_TRUE(area.contains(summed.colourBar()));
    for (double sum : lesson::rowSums(h))
        EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(CellValueText, ShortAndReadableFromTheBackOfTheRoom)
{
    EXPECT_EQ(render::cellValueText(1.9e-27), "0");
    EXPECT_EQ(render::cellValueText(-0.004), "0");
    EXPECT_EQ(render::cellValueText(0.987), "0.99");
    EXPECT_EQ(render::cellValueText(-1.354), "−1.35");
    EXPECT_EQ(render::cellValueText(12.46), "12.5");
    EXPECT_EQ(render::cellValueText(-123.4), "−123");
    EXPECT_EQ(render::cellValueText(-std::numeric_limits<double>::infinity()), "−∞");
}

TEST_F(HeatmapLayout, CrowdedLabelsAreThinnedNeverOverlapping)
{
    const lesson::Heatmap h = weights(std::string(200, 'x'));
    const render::HeatmapLayout layout(h, {0, 1}, QRectF(0, 0, 300, 300), style());
    ASSERT_GE(layout.rowLabels().size(), 2u);
    EXPECT_LT(layout.rowLabels().size(), 200u);
    const double spacing = layout.cellRect(layout.rowLabels()[1].index, 0).top() -
        layout.cellRect(layout.rowLabels()[0].index, 0).top();
    EXPECT_GE(spacing, QFontMetricsF(layout.tickFont()).height());
}

// A decoding step's single query is a row of cells under its title, with its labels and a
// readable colour bar, in the middle of the plot: not a bar as tall as the plot (#13).
TEST_F(HeatmapLayout, AOneRowMatrixIsARowInTheMiddleNotABar)
{
    std::vector<float> values(9, 0.1f);
    lesson::Heatmap h;
    h.matrix = {values.data(),
                1,
                9,
                "query",
                "key",
                {"<s>"},
                {"a", "t", "t", "e", "n", "t", "i", "o", "n"}};
    h.title = "head 0 · softmax";
    h.scale = lesson::ColourScale::Sequential;
    const QRectF area(0, 0, 640, 480);
    const render::HeatmapLayout row(h, {0, 1}, area, style());
    const QFontMetricsF tick(row.tickFont());
    EXPECT_LE(row.cells().height(), area.height() / 4 + 1e-9);
    EXPECT_NEAR(row.cells().center().y(), area.center().y(), tick.height() * 3);
    EXPECT_LE(row.title().bottom(), row.cells().top());
    EXPECT_LT(row.cells().top() - row.title().bottom(), tick.height() * 2);
    EXPECT_GE(row.columnAxisTitle().top(), row.cells().bottom());
    EXPECT_LT(row.columnAxisTitle().top() - row.cells().bottom(), tick.height() * 3);
    EXPECT_GE(row.colourBar().height(), tick.height() * 6);
    EXPECT_TRUE(area.contains(row.colourBar()));

    // Four rows and more fill the height as before.
    const lesson::Heatmap square = weights("attention");
    const render::HeatmapLayout full(square, {0, 1}, area, style());
    EXPECT_GT(full.cells().height(), area.height() * 0.6);
}

// Row labels shrink a little before every other one disappears (#13), and no further: when
// even three quarters of the size cannot show them all, they keep their size and are thinned.
TEST_F(HeatmapLayout, RowLabelsShrinkALittleBeforeAnyIsDropped)
{
    const render::HeatmapStyle base = style();
    const double normal =
        QFontMetricsF(
            render::HeatmapLayout(weights("ab"), {0, 1}, QRectF(0, 0, 640, 480), base).tickFont())
            .height();
    const lesson::Heatmap thirteen = weights("and god said ");
    const render::HeatmapLayout tight(thirteen, {0, 1}, QRectF(0, 0, 420, 230), base);
    EXPECT_EQ(tight.rowLabels().size(), 13u);
    const double shrunk = QFontMetricsF(tight.tickFont()).height();
    EXPECT_LT(shrunk, normal);
    EXPECT_GE(shrunk, normal * 0.7);

    const lesson::Heatmap long_ = weights(std::string(60, 'a'));
    const render::HeatmapLayout thinned(long_, {0, 1}, QRectF(0, 0, 420, 230), base);
    EXPECT_LT(thinned.rowLabels().size(), 60u);
    EXPECT_DOUBLE_EQ(QFontMetricsF(thinned.tickFont()).height(), normal);
}

// What rounds to zero prints as zero: a change of weights that cancels, or −0.0, never reads
// "-0.000" or "−0".
TEST_F(HeatmapLayout, NumbersThatRoundToZeroPrintWithoutASign)
{
    EXPECT_EQ(render::formatFixed(-0.0004, 3), QString("0.000"));
    EXPECT_EQ(render::formatFixed(-0.0006, 3), QString("-0.001"));
    EXPECT_EQ(render::formatFixed(-0.00004, 4), QString("0.0000"));
    EXPECT_EQ(render::formatFixed(1.23456, 4), QString("1.2346"));
    EXPECT_EQ(render::formatValue(-0.0), QString("0"));
    EXPECT_EQ(render::formatValue(-0.5), QString("−0.5"));
}

// A range a few ulps wide, or as wide as doubles go, still gives a few increasing ticks: the
// tick loop once added a step too small to move its sum and grew without end (issue #45).
TEST(ColourBarTicks, AreFewAndIncreasingForAnyRange)
{
    const double one = 1.0, next = std::nextafter(1.0, 2.0);
    const std::pair<double, double> ranges[] = {{0, 1},
                                                {one, next},
                                                {std::nextafter(1.0, 0.0), one},
                                                {-1e308, 1e308},
                                                {1e-300, 1},
                                                {5e-324, 1e308},
                                                {0.25, 0.25 + 1e-12},
                                                {-3, -2.999999}};
    for (const auto& range : ranges)
        for (const auto stretch : {lesson::Stretch::Linear, lesson::Stretch::Log}) {
            const std::vector<double> ticks = render::colourBarTicks(range, stretch);
            ASSERT_FALSE(ticks.empty()) << range.first << " " << range.second;
            EXPECT_LE(ticks.size(), static_cast<std::size_t>(render::kMaxColourBarTicks))
                << range.first << " " << range.second;
            for (std::size_t k = 1; k < ticks.size(); ++k)
                EXPECT_GT(ticks[k], ticks[k - 1]) << range.first << " " << range.second;
        }
    const std::vector<double> unit = render::colourBarTicks({0, 1});
    EXPECT_EQ(unit, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
}

} // namespace
} // namespace attnviz::test

namespace attnviz::render {
namespace {

// A label is never blank and never breaks its line (#13: a space token had no visible label).
TEST(VisibleToken, SpacesLineBreaksAndControlCharactersAreShown)
{
    EXPECT_EQ(visibleToken(" ").toStdString(), "␣");
    EXPECT_EQ(visibleToken(" the").toStdString(), "␣the");
    EXPECT_EQ(visibleToken("\n").toStdString(), "↵");
    EXPECT_EQ(visibleToken("a\tb").toStdString(), "a⇥b");
    EXPECT_EQ(visibleToken(QString::fromUtf8("\x1b[31m")).toStdString(), "\\x1b[31m");
    EXPECT_EQ(visibleToken("").toStdString(), "∅");
    EXPECT_EQ(visibleToken("注意力").toStdString(), "注意力");
    EXPECT_EQ(visibleToken("<s>").toStdString(), "<s>");
}

// #22: a name in a title keeps its spaces; what would be invisible, reorder the line (U+202E)
// or make an SVG malformed (ESC, U+FFFE) shows as its code.
TEST(VisibleText, ControlFormattingAndNonCharactersAreShownAsCodes)
{
    EXPECT_EQ(visibleText(QString::fromUtf8("my model\x1b[2J\u202Eevil\uFFFE")).toStdString(),
              "my model\\x1b[2J\\x202eevil\\xfffe");
    EXPECT_EQ(visibleText(QString::fromUtf8("注意力 <b> & 😀")).toStdString(), "注意力 <b> & 😀");
}

} // namespace
} // namespace attnviz::render
