#include "export/handout.h"

#include "app/walkthrough_step.h"
#include "export/heatmap_image.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QPdfWriter>
#include <QTextDocument>

namespace attnviz::exporting {

QByteArray renderHandout(const std::shared_ptr<const app::Walkthrough>& w, const QString& subtitle)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(96);
    pdf.setTitle(QStringLiteral("AttnViz — multi-head attention, step by step"));
    pdf.setCreator(QStringLiteral("AttnViz"));
    QCPPainter painter(&pdf);
    const QRect page = painter.viewport();
    const int width = page.width();
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(12);

    bool first = true;
    for (const app::WalkthroughStep step : app::kWalkthroughSteps) {
        if (!first)
            pdf.newPage();
        first = false;
        const app::StepText text = app::stepText(step, w.get());
        const int index = static_cast<int>(step) + 1;
        QTextDocument header;
        header.setDefaultFont(font);
        header.setTextWidth(width);
        header.setHtml(QStringLiteral("<h2>Step %1 of %2 — %3</h2><p style='color:#555'>%4</p>"
                                      "<p><tt>%5</tt></p><p>%6</p>%7")
                           .arg(index)
                           .arg(app::kWalkthroughSteps.size())
                           .arg(text.title.toHtmlEscaped(), subtitle.toHtmlEscaped(),
                                app::formulaFor(step, *w).toHtmlEscaped(), app::shapesFor(step, *w).toHtmlEscaped(),
                                text.explanation));
        header.drawContents(&painter);
        const int top = static_cast<int>(header.size().height()) + 10;

        const app::StepMatrices matrices = app::matricesFor(step, w, 0);
        // Heads share one range, as in the app; the few whole matrices of the other steps have
        // their own.
        const auto shared = app::colourRange(matrices.maps);
        std::vector<std::pair<double, double>> ranges;
        for (const app::HeatmapData& m : matrices.maps)
            ranges.push_back(matrices.perHead ? shared : app::colourRange({m}));
        paintMatrices(painter, QRect(0, top, width, page.height() - top), matrices.maps, ranges,
                      {.maxSingleRow = 2, .squareCells = true}); // a printed page is narrower than a screen
    }
    painter.end();
    return bytes;
}

} // namespace attnviz::exporting
