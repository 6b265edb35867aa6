// The one layout the screen and the exports share: hit-testing lands on the drawn cell, labels
// stay upright while they fit and turn only when they must.
#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "render/heatmap_layout.h"
#include "render/image_export.h"

#include <QFontMetricsF>
#include <QGuiApplication>

#include <gtest/gtest.h>

namespace attnviz::test {
namespace {

class HeatmapLayout : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        static int argc = 1;
        static char name[] = "render_tests";
        static char* argv[] = {name, nullptr};
        static QGuiApplication app(argc, argv);
    }

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

TEST_F(HeatmapLayout, ShortLabelsStayUprightAndAllShown)
{
    const lesson::Heatmap h = weights("attention");
    const render::HeatmapLayout layout(h, {0, 1}, QRectF(0, 0, 640, 480), style());
    EXPECT_FALSE(layout.columnLabelsTurned()); // single letters turned read as other letters (#13)
    EXPECT_EQ(layout.columnLabels().size(), 9u);
    EXPECT_EQ(layout.rowLabels().size(), 9u);
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

} // namespace
} // namespace attnviz::test
