#include "app/views/heatmap_view.h"

#include "render/display_words.h"
#include "render/heatmap_painter.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace attnviz::app {

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(120, 120);
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void HeatmapView::setHeatmap(lesson::Heatmap heatmap, std::pair<double, double> range,
                             bool colourBar)
{
    m_heatmap = std::move(heatmap);
    m_range = range;
    m_colourBar = colourBar;
    m_cells = {};
    m_layout.reset();
    update();
}

void HeatmapView::releaseHeatmap()
{
    m_heatmap = {};
    m_cells = {};
    m_layout.reset();
}

void HeatmapView::setHighlight(std::optional<render::Highlight> highlight)
{
    m_highlight = highlight;
    update();
}

void HeatmapView::setDrawnCells(std::set<std::pair<int, int>> cells, bool drawing)
{
    m_drawnCells = std::move(cells);
    if (drawing)
        setCursor(Qt::CrossCursor);
    else
        unsetCursor();
    update();
}

void HeatmapView::setValuesInCells(bool on)
{
    m_valuesInCells = on;
    update();
}

void HeatmapView::setRowSums(bool on)
{
    if (on == m_rowSums)
        return;
    m_rowSums = on;
    m_layout.reset(); // the sums take room from the cells
    update();
}

render::HeatmapStyle HeatmapView::style() const
{
    render::HeatmapStyle s;
    s.font = font();
    s.colourBar = m_colourBar;
    s.valuesInCells = m_valuesInCells;
    s.rowSums = m_rowSums;
    s.highlight = m_highlight;
    s.drawnCells = m_drawnCells;
    return s;
}

const render::HeatmapLayout& HeatmapView::layout() const
{
    if (!m_layout)
        m_layout.emplace(m_heatmap, m_range, QRectF(rect()), style());
    return *m_layout;
}

const QImage& HeatmapView::cellsAsShown()
{
    const QSizeF shown = layout().cells().size() * (m_zoom * devicePixelRatioF());
    const auto pixels = [](double length, int cells) {
        return std::clamp(static_cast<int>(std::ceil(length)), 1, std::max(cells, 1));
    };
    const QSize wanted(pixels(shown.width(), m_heatmap.cols()),
                       pixels(shown.height(), m_heatmap.rows()));
    if (m_cells.size() != wanted)
        m_cells = render::cellImage(m_heatmap, m_range, wanted);
    return m_cells;
}

void HeatmapView::paintEvent(QPaintEvent*)
{
    const QImage& cells = cellsAsShown();
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.translate(m_offset);
    painter.scale(m_zoom, m_zoom);
    render::paintHeatmap(painter, layout(), m_heatmap, m_range, style(), &cells);
}

QPointF HeatmapView::unzoomed(QPointF position) const
{
    return (position - m_offset) / m_zoom;
}

void HeatmapView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    const double zoom = std::clamp(m_zoom * std::pow(1.25, steps), 1.0, 32.0);
    if (zoom == m_zoom) {
        event->ignore(); // nothing to zoom: the page scrolls
        return;
    }
    // The point under the cursor stays under it; the map always covers the widget.
    const QPointF cursor = event->position();
    const QPointF content = unzoomed(cursor);
    m_zoom = zoom;
    m_offset = cursor - content * zoom;
    m_offset.setX(std::clamp(m_offset.x(), width() * (1 - zoom), 0.0));
    m_offset.setY(std::clamp(m_offset.y(), height() * (1 - zoom), 0.0));
    event->accept();
    update();
}

void HeatmapView::resizeEvent(QResizeEvent* event)
{
    m_layout.reset();
    m_zoom = 1; // a new size, a new whole picture
    m_offset = {};
    QWidget::resizeEvent(event);
}

void HeatmapView::changeEvent(QEvent* event)
{
    // Presentation mode enlarges the window's font; the labels and titles follow it.
    if (event->type() == QEvent::FontChange)
        m_layout.reset();
    QWidget::changeEvent(event);
}

std::optional<std::pair<int, int>> HeatmapView::cellAt(QPoint position) const
{
    return layout().cellAt(unzoomed(position));
}

QPoint HeatmapView::cellCentre(int row, int column) const
{
    return layout().cellCentre(row, column).toPoint();
}

QString HeatmapView::toolTipForCell(int row, int column) const
{
    // A position and its token ("3 “cat”"); a feature index alone, not repeated as its label.
    const auto label = [](const std::vector<std::string>& labels, int i) {
        if (i >= static_cast<int>(labels.size()) ||
            labels[static_cast<std::size_t>(i)] == std::to_string(i))
            return QString::number(i);
        const QString token =
            render::visibleToken(QString::fromStdString(labels[static_cast<std::size_t>(i)]));
        const std::optional<std::string> word = lesson::wholeWord(labels, i);
        return QStringLiteral("%1 “%2”").arg(i).arg(
            word ? tr("%1” in “%2").arg(token, QString::fromStdString(*word)) : token);
    };
    const io::LabelledMatrix& m = m_heatmap.matrix;
    const float v = m_heatmap.value(row, column);
    QString value = render::formatValue(v, 7);
    if (m_heatmap.blocked(row, column))
        value += std::isinf(v) ? tr(" (blocked)") : tr(" (blocked: −∞ before the softmax)");
    const QString head = m_heatmap.head >= 0 ? tr("head %1 · ").arg(m_heatmap.head) : QString();
    //: A cell's tooltip: [head h · ]row-axis index “token” → column-axis index “token”: value
    //: (a feature index has no “token”).
    //: The axis names (query, key, …) are translated in the DisplayWords context.
    QString text = tr("%1%2 %3 → %4 %5: %6")
                       .arg(head, render::displayed(m.rowAxis), label(m.rowLabels, row),
                            render::displayed(m.columnAxis), label(m.columnLabels, column), value);
    // What the tokenizer knows about the two tokens: spelling, id, the bytes of a piece.
    const auto detail = [](const std::vector<io::TokenDetail>& details, int i) {
        if (i >= static_cast<int>(details.size()))
            return QString();
        const io::TokenDetail& d = details[static_cast<std::size_t>(i)];
        //: A token in a cell's tooltip: its spelling in the vocabulary and its id
        QString line = tr("“%1” · id %2").arg(QString::fromStdString(d.spelling)).arg(d.id);
        if (!d.bytes.empty())
            line += tr(" · bytes %1").arg(QString::fromStdString(d.bytes));
        if (d.parts > 0)
            //: A byte piece: part 1 of 3 of the character “猫” (U+732B)
            line += tr(" · part %1 of %2 of “%3” (%4)")
                        .arg(d.part)
                        .arg(d.parts)
                        .arg(QString::fromStdString(d.whole), QString::fromStdString(d.codePoints));
        return line;
    };
    for (const QString& line :
         {detail(m_heatmap.rowDetails, row), detail(m_heatmap.columnDetails, column)})
        if (!line.isEmpty())
            text += QLatin1Char('\n') + line;
    return text;
}

namespace {

// Always rich text with the content escaped: a token such as <s> must never be read as markup
// (plain text that merely looks like HTML would be rendered as HTML by QToolTip).
void showToolTip(QPoint globalPosition, const QString& text, QWidget* owner)
{
    QToolTip::showText(
        globalPosition,
        QStringLiteral("<p style='white-space:pre'>%1</p>").arg(text.toHtmlEscaped()), owner);
}

} // namespace

bool HeatmapView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const auto cell = cellAt(help->pos())) {
            m_lastToolTip = toolTipForCell(cell->first, cell->second);
            showToolTip(help->globalPos(), m_lastToolTip, this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event)
{
    if (const auto cell = cellAt(event->position().toPoint())) {
        m_lastToolTip = toolTipForCell(cell->first, cell->second);
        showToolTip(event->globalPosition().toPoint(), m_lastToolTip, this);
    }
    QWidget::mouseMoveEvent(event);
}

void HeatmapView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        if (const auto cell = cellAt(event->position().toPoint()))
            emit cellClicked(cell->first, cell->second);
        emit clicked();
    }
    QWidget::mouseReleaseEvent(event);
}

void HeatmapView::contextMenuEvent(QContextMenuEvent* event)
{
    emit contextMenuRequested(event->globalPos(), cellAt(event->pos()));
}

} // namespace attnviz::app
