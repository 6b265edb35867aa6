#include "render/handout.h"

#include "lesson/step_view.h"
#include "render/display_words.h"
#include "render/heatmap_grid.h"
#include "render/heatmap_layout.h"
#include "render/image_export.h"
#include "render/step_texts.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>

namespace attnviz::render {

QByteArray renderHandout(const std::shared_ptr<const lesson::Walkthrough>& w,
                         const QString& subtitle)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(96);
    // In the interface's language, as the body is; attnviz-cli installs no translator and writes
    // English.
    pdf.setTitle(
        QCoreApplication::translate("Handout", "AttnViz — multi-head attention, step by step"));
    pdf.setCreator(QStringLiteral("AttnViz"));
    QPainter painter(&pdf);
    painter.setRenderHint(QPainter::LosslessImageRendering); // not JPEG (image_export.cpp)
    const QRect page = painter.viewport();
    const int width = page.width();
    QFont font = exportFont();
    font.setPixelSize(12);
    HeatmapStyle style;
    style.font = exportFont();

    const std::vector<lesson::LessonStepIndex> shown = lesson::shownLessonSteps(*w->trace);
    for (std::size_t at = 0; at < shown.size(); ++at) {
        if (at > 0)
            pdf.newPage();
        const lesson::LessonStep& step = lesson::kLessonSteps[shown[at]];
        const StepText text = stepText(step, w.get());
        QTextDocument header;
        header.setDefaultFont(font);
        header.setTextWidth(width);
        // The formula comes translated from the step's text, except a model's input step, which
        // the lesson layer writes (as the step panel shows it).
        const std::string formula = lesson::stepFormula(step, *w, text.formula.toStdString());
        const QString heading = QCoreApplication::translate("Handout", "Step %1 of %2 — %3")
                                    .arg(at + 1)
                                    .arg(shown.size())
                                    .arg(text.title);
        header.setHtml(
            QStringLiteral("<h2>%1</h2><p style='color:#555'>%2</p><p><tt>%3</tt></p><p>%4</p>%5")
                .arg(heading.toHtmlEscaped(), visibleText(subtitle).toHtmlEscaped(),
                     (step.views.empty() ? displayed(formula) : QString::fromStdString(formula))
                         .toHtmlEscaped(),
                     displayed(lesson::stepShapes(step, *w)).toHtmlEscaped(), text.explanation));
        header.drawContents(&painter);
        const int top = static_cast<int>(header.size().height()) + 10;

        const std::vector<lesson::Heatmap> maps = lesson::stepHeatmaps(step, w, 0);
        // Heads share one range, as in the app; the few whole matrices of the other steps have
        // their own.
        const auto shared = lesson::colourRange(maps);
        std::vector<std::pair<double, double>> ranges;
        for (const lesson::Heatmap& m : maps)
            ranges.push_back(step.perHead() ? shared : lesson::colourRange({m}));
        // A printed page is narrower than a screen: two matrices a row, cells no taller than wide.
        paintGrid(painter, QRectF(0, top, width, page.height() - top), maps, ranges, style,
                  {.maxSingleRow = 2, .squareCells = true});
    }
    painter.end();
    return bytes;
}

} // namespace attnviz::render
