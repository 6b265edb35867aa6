#include "app/heatmap_view.h"

#include "app/colour_gradients.h"

#include <qcustomplot.h>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace attnviz::app {
namespace {

void setTickLabels(QCPAxis* axis, const QStringList& labels, int maxLabels)
{
    auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker) {
        ticker = QSharedPointer<QCPAxisTickerText>::create();
        axis->setTicker(ticker);
    }
    ticker->clear();
    const int step = std::max(1, static_cast<int>((labels.size() + maxLabels - 1) / maxLabels));
    for (int i = 0; i < labels.size(); i += step)
        ticker->addTick(i, labels[i]);
}

QString formatValue(float v)
{
    if (std::isinf(v))
        return v < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(static_cast<double>(v), 'g', 7);
}

} // namespace

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_map(new QCPColorMap(m_plot->xAxis, m_plot->yAxis))
    , m_scale(new QCPColorScale(m_plot))
    , m_title(new QCPTextElement(m_plot))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumSize(120, 120);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    applyWidgetFont();
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(10);
    m_map->setColorScale(m_scale);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->xAxis->setTickLabelRotation(-45);
    m_plot->xAxis->setSubTicks(false);
    m_plot->yAxis->setSubTicks(false);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
}

void HeatmapView::setData(HeatmapData data, std::pair<double, double> range, bool showScale)
{
    const bool newColumns = data.columnLabels != m_data.columnLabels;
    const bool newRows = data.rowLabels != m_data.rowLabels;
    m_data = std::move(data);
    updateTickLabels(newColumns, newRows);
    const int rows = m_data.rows, cols = m_data.cols;
    m_map->data()->setSize(cols, rows);
    m_map->data()->setRange(QCPRange(0, std::max(cols - 1, 1)), QCPRange(0, std::max(rows - 1, 1)));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m_map->data()->setCell(c, r, m_data.blocked(r, c) ? std::numeric_limits<double>::quiet_NaN()
                                                              : static_cast<double>(m_data.value(r, c)));
    m_map->setGradient(m_data.scale == ColourScale::Sequential ? sequentialGradient() : divergingGradient());
    m_map->setDataRange(QCPRange(range.first, range.second));
    m_plot->xAxis->setRange(-0.5, cols - 0.5);
    m_plot->yAxis->setRange(-0.5, rows - 0.5);
    m_plot->xAxis->setLabel(m_data.columnAxis);
    m_plot->yAxis->setLabel(m_data.rowAxis);
    m_scale->setVisible(showScale);
    m_plot->plotLayout()->setColumnStretchFactor(1, showScale ? 0.05 : 0.0001);

    // A coloured title, so a head keeps its identity across steps.
    m_title->setText(m_data.title);
    m_title->setTextColor(m_data.frame.isValid() ? m_data.frame.darker(140) : QColor(Qt::black));
    m_plot->clearItems();
    for (const HeatmapData::Band& band : m_data.columnBands) {
        auto* rect = new QCPItemRect(m_plot);
        rect->setClipToAxisRect(false);
        rect->topLeft->setCoords(band.first - 0.5, -0.5);
        rect->bottomRight->setCoords(band.first + band.count - 0.5, rows - 0.5);
        QColor fill = band.colour;
        fill.setAlpha(0);
        rect->setBrush(fill);
        rect->setPen(QPen(band.colour, 3));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int HeatmapView::labelLimit(int pixels) const
{
    // Every label gets a line of the tick font plus a little air; a 64-token axis in a small
    // multiple shows every 4th label instead of a smear.
    const int line = QFontMetrics(m_plot->xAxis->tickLabelFont()).height() + 3;
    return std::max(2, pixels * 3 / 4 / std::max(line, 1));
}

void HeatmapView::fitLabels(QSize room)
{
    m_labelRoom = room;
    updateTickLabels(false, false);
}

void HeatmapView::updateTickLabels(bool newColumns, bool newRows)
{
    // Tick labels are laid out text; rebuild them only when the tokens or the room changed.
    const int columnLimit = labelLimit(m_labelRoom.width()), rowLimit = labelLimit(m_labelRoom.height());
    if (newColumns || columnLimit != m_columnLimit || m_plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>().isNull())
        setTickLabels(m_plot->xAxis, m_data.columnLabels, columnLimit);
    if (newRows || rowLimit != m_rowLimit || m_plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>().isNull())
        setTickLabels(m_plot->yAxis, m_data.rowLabels, rowLimit);
    m_columnLimit = columnLimit;
    m_rowLimit = rowLimit;
}

void HeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLabels(size());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::applyWidgetFont()
{
    const QFont base = font();
    QFont small = base;
    // Fonts are sized in points on screen and in pixels in exports; shrink whichever is set.
    if (base.pixelSize() > 0)
        small.setPixelSize(std::max(1, static_cast<int>(base.pixelSize() * 0.85)));
    else
        small.setPointSizeF(base.pointSizeF() * 0.85);
    QFont bold = base;
    bold.setBold(true);
    m_title->setFont(bold);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis, m_scale->axis()}) {
        axis->setTickLabelFont(small);
        axis->setLabelFont(base);
    }
    updateTickLabels(false, false);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        applyWidgetFont();
    QWidget::changeEvent(event);
}

std::optional<std::pair<int, int>> HeatmapView::cellAt(QPoint position) const
{
    if (m_data.rows == 0 || !m_plot->axisRect()->rect().contains(position))
        return std::nullopt;
    const int col = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(position.x())));
    const int row = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(position.y())));
    if (row < 0 || row >= m_data.rows || col < 0 || col >= m_data.cols)
        return std::nullopt;
    return std::pair{row, col};
}

QPoint HeatmapView::cellCentre(int row, int column) const
{
    return {static_cast<int>(m_plot->xAxis->coordToPixel(column)),
            static_cast<int>(m_plot->yAxis->coordToPixel(row))};
}

QString HeatmapView::toolTipForCell(int row, int column) const
{
    const auto label = [](const QStringList& labels, int i) {
        return i < labels.size() ? labels[i] : QString::number(i);
    };
    QString value = formatValue(m_data.value(row, column));
    if (m_data.blocked(row, column) && !std::isinf(m_data.value(row, column)))
        value += QStringLiteral(" (blocked: −∞ before the softmax)");
    else if (m_data.blocked(row, column))
        value += QStringLiteral(" (blocked)");
    return QStringLiteral("%1 %2 “%3” → %4 %5 “%6”: %7")
        .arg(m_data.rowAxis, QString::number(row), label(m_data.rowLabels, row), m_data.columnAxis,
             QString::number(column), label(m_data.columnLabels, column), value);
}

bool HeatmapView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot) {
        if (event->type() == QEvent::MouseMove || event->type() == QEvent::ToolTip) {
            const QPoint pos = event->type() == QEvent::MouseMove
                                   ? static_cast<QMouseEvent*>(event)->position().toPoint()
                                   : static_cast<QHelpEvent*>(event)->pos();
            if (const auto cell = cellAt(pos)) {
                m_lastToolTip = toolTipForCell(cell->first, cell->second);
                QToolTip::showText(m_plot->mapToGlobal(pos), m_lastToolTip, m_plot);
            } else {
                QToolTip::hideText();
            }
        } else if (event->type() == QEvent::MouseButtonRelease) {
            const QPoint pos = static_cast<QMouseEvent*>(event)->position().toPoint();
            if (const auto cell = cellAt(pos))
                emit cellClicked(cell->first, cell->second);
            emit clicked();
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace attnviz::app
