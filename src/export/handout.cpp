#include "export/handout.h"

#include "app/heatmap_view.h"
#include "app/walkthrough_step.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QPdfWriter>
#include <QTextDocument>

#include <cmath>

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
    app::HeatmapView view;
    view.setFont(font);

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
        const auto range = app::colourRange(matrices.maps);
        const int count = static_cast<int>(matrices.maps.size());
        const int columns = app::gridColumns(count, 2); // a printed page is narrower than a screen
        const int rows = (count + columns - 1) / columns;
        const int cellWidth = width / columns;
        const int cellHeight = std::min(cellWidth, (page.height() - top) / std::max(rows, 1));
        for (int i = 0; i < count; ++i) {
            const bool shared = matrices.perHead;
            const auto& m = matrices.maps[static_cast<std::size_t>(i)];
            view.setData(m, shared ? range : app::colourRange({m}), !shared || i + 1 == count);
            view.fitLabels(QSize(cellWidth, cellHeight));
            painter.save();
            painter.translate((i % columns) * cellWidth, top + (i / columns) * cellHeight);
            view.plot()->toPainter(&painter, cellWidth, cellHeight);
            painter.restore();
        }
    }
    painter.end();
    return bytes;
}

} // namespace attnviz::exporting
