#include "app/views/step_animation.h"

#include "render/colour_map.h"
#include "render/heatmap_layout.h"

#include <QEvent>
#include <QKeyEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnviz::app {

namespace {

constexpr int kDurationMs = 3600;
constexpr int kMargin = 24;

// The part of `progress` that falls in phase `index` of `count`, as 0 … 1.
double phase(double progress, int index, int count)
{
    return std::clamp(progress * count - index, 0.0, 1.0);
}

double eased(double t)
{
    return t * t * (3 - 2 * t);
}

std::pair<double, double> rangeOf(const std::vector<std::vector<float>>& rows)
{
    double low = 0, high = 0;
    for (const auto& row : rows)
        for (const float v : row)
            if (std::isfinite(v)) {
                low = std::min(low, static_cast<double>(v));
                high = std::max(high, static_cast<double>(v));
            }
    const double extent = std::max({std::abs(low), std::abs(high), 1e-6});
    return {-extent, extent};
}

QString label(const std::vector<std::string>& labels, std::size_t i)
{
    return i < labels.size() ? render::visibleToken(QString::fromStdString(labels[i]))
                             : QString::number(i);
}

} // namespace

StepAnimation::StepAnimation(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("stepAnimation"));
    setAutoFillBackground(true);
    setFocusPolicy(Qt::StrongFocus);
    m_animation.setStartValue(0.0);
    m_animation.setEndValue(1.0);
    m_animation.setDuration(kDurationMs);
    connect(&m_animation, &QVariantAnimation::valueChanged, this, [this](const QVariant& v) {
        m_progress = v.toDouble();
        update();
    });
    if (parent)
        parent->installEventFilter(this);
    hide();
}

bool StepAnimation::eventFilter(QObject* watched, QEvent* event)
{
    // Covers the heatmaps it animates over, whatever their size.
    if (watched == parentWidget() && event->type() == QEvent::Resize)
        setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

bool StepAnimation::play(const std::shared_ptr<const lesson::Walkthrough>& walkthrough, Kind kind,
                         int batch, int head, int query)
{
    m_animation.stop();
    if (kind == Kind::None || !walkthrough || walkthrough->weightsOnly())
        return false;
    const engine::AttentionTrace& t = *walkthrough->trace;
    const engine::Tensor& source = kind == Kind::Concat ? t.concat : t.qProj;
    const bool split = kind == Kind::Split || kind == Kind::Concat;
    if (split && source.rank() == 0)
        return false; // a large run keeps only the weights
    if (batch < 0 || batch >= walkthrough->batch() || head < 0 || head >= walkthrough->heads() ||
        query < 0 || query >= static_cast<int>(t.queryLength()))
        return false;
    m_walkthrough = walkthrough;
    m_kind = kind;
    m_head = head;
    m_query = query;
    m_heads = walkthrough->heads();
    m_rowLabels = walkthrough->queryTokens.at(static_cast<std::size_t>(batch));
    m_keyLabels = walkthrough->keyTokens.at(static_cast<std::size_t>(batch));
    if (split) {
        const auto rows = source.dim(1), cols = source.dim(2);
        m_headWidth = static_cast<int>(cols) / std::max(m_heads, 1);
        m_matrix.assign(static_cast<std::size_t>(rows), std::vector<float>());
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
                m_matrix[static_cast<std::size_t>(r)].push_back(source.at({batch, r, c}));
    } else if (kind == Kind::Softmax) {
        const lesson::CellArithmetic a = lesson::cellArithmetic(
            *walkthrough, engine::AttentionStep::Weights, {batch, head, query, 0});
        const auto* score = std::get_if<lesson::ScoreCellArithmetic>(&a);
        if (!score)
            return false;
        m_softmax = *score;
    } else {
        m_values.clear();
        m_context.clear();
        for (int c = 0; c < walkthrough->dv(); ++c) {
            const lesson::CellArithmetic a = lesson::cellArithmetic(
                *walkthrough, engine::AttentionStep::Context, {batch, head, query, c});
            const auto* cell = std::get_if<lesson::ContextCellArithmetic>(&a);
            if (!cell)
                return false;
            m_weights = cell->weights;
            m_values.resize(cell->values.size());
            for (std::size_t k = 0; k < cell->values.size(); ++k)
                m_values[k].push_back(cell->values[k]);
            m_context.push_back(cell->context);
        }
    }
    if (parentWidget())
        setGeometry(parentWidget()->rect());
    show();
    raise();
    setFocus();
    m_progress = 0;
    m_animation.start();
    return true;
}

void StepAnimation::skip()
{
    m_animation.stop();
    setProgress(1.0);
}

void StepAnimation::release()
{
    m_animation.stop();
    hide();
    m_walkthrough.reset();
}

void StepAnimation::setProgress(double progress)
{
    m_progress = std::clamp(progress, 0.0, 1.0);
    update();
}

QString StepAnimation::caption() const
{
    switch (m_kind) {
    case Kind::None:
        return {};
    case Kind::Split:
        return m_progress < 0.5
            ? tr("Q = X W_qᵀ: one row per token, H·d_k = %1 columns").arg(m_heads * m_headWidth)
            : tr("split: every %1 columns become one head's Q_h; each head sees all tokens, "
                 "but only its own features")
                  .arg(m_headWidth);
    case Kind::Concat:
        return m_progress < 0.5
            ? tr("each head's context: one row per query, d_v = %1 columns").arg(m_headWidth)
            : tr("concat: the heads' columns side by side again, H·d_v = %1 columns, ready for W_o")
                  .arg(m_heads * m_headWidth);
    case Kind::Softmax:
        if (m_progress < 1.0 / 3)
            return tr("1. The masked scores of query %1 in head %2; the largest is %3")
                .arg(m_query)
                .arg(m_head)
                .arg(render::formatValue(m_softmax.rowMax, 4));
        if (m_progress < 2.0 / 3)
            return tr("2. exp(score − max): every bar positive, the largest exactly 1, blocked "
                      "keys 0");
        return tr("3. ÷ Σ = %1: the weights, which sum to 1")
            .arg(render::formatValue(m_softmax.expSum, 4));
    case Kind::WeightedSum:
        if (m_progress < 1.0 / 3)
            return tr("1. The value rows V_h of head %1, and query %2's weight for each key")
                .arg(m_head)
                .arg(m_query);
        if (m_progress < 2.0 / 3)
            return tr("2. Each value row times its weight: rows with little weight fade");
        return tr("3. Their sum is query %1's context row").arg(m_query);
    }
    return {};
}

std::vector<double> StepAnimation::shownRow() const
{
    std::vector<double> row;
    if (m_kind == Kind::Softmax) {
        const double a = eased(phase(m_progress, 1, 3)), b = eased(phase(m_progress, 2, 3));
        for (std::size_t k = 0; k < m_softmax.maskedRow.size(); ++k) {
            // A blocked key (−∞) is drawn at 0 and labelled −∞ until it becomes exp = 0.
            const double score = std::isinf(m_softmax.maskedRow[k])
                ? 0.0
                : static_cast<double>(m_softmax.maskedRow[k]);
            const double e = m_softmax.exps[k];
            const double w = m_softmax.weightRow[k];
            row.push_back((1 - a) * score + a * ((1 - b) * e + b * w));
        }
    } else if (m_kind == Kind::WeightedSum) {
        const double sum = eased(phase(m_progress, 2, 3));
        for (std::size_t c = 0; c < m_context.size(); ++c)
            row.push_back(sum * m_context[c]);
    }
    return row;
}

void StepAnimation::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().window());
    QFont title = font();
    title.setPointSizeF(font().pointSizeF() * 1.15);
    title.setBold(true);
    p.setFont(title);
    p.setPen(palette().windowText().color());
    p.drawText(QRect(kMargin, 8, width() - 2 * kMargin, 48), Qt::AlignLeft | Qt::TextWordWrap,
               caption());
    p.setFont(font());
    p.drawText(QRect(kMargin, height() - 28, width() - 2 * kMargin, 24), Qt::AlignRight,
               tr("click or press a key to skip · Esc closes"));
    switch (m_kind) {
    case Kind::None:
        break;
    case Kind::Split:
        paintSplit(p, false);
        break;
    case Kind::Concat:
        paintSplit(p, true);
        break;
    case Kind::Softmax:
        paintSoftmax(p);
        break;
    case Kind::WeightedSum:
        paintWeightedSum(p);
        break;
    }
}

void StepAnimation::paintSplit(QPainter& p, bool reverse) const
{
    if (m_matrix.empty() || m_headWidth <= 0)
        return;
    // Split: the columns move apart into heads; concat: the heads move together.
    const double t = eased(reverse ? 1 - m_progress : m_progress);
    const int rows = static_cast<int>(m_matrix.size());
    const int columns = m_heads * m_headWidth;
    const double gap = 28;
    const QRectF area(kMargin + 40, 64, width() - 2 * kMargin - 40, height() - 64 - 44);
    const double cell =
        std::min((area.width() - gap * (m_heads - 1)) / columns, area.height() / (rows + 1.5));
    const auto range = rangeOf(m_matrix);
    for (int r = 0; r < rows; ++r)
        p.drawText(QRectF(kMargin, area.top() + 20 + r * cell, 36, cell),
                   Qt::AlignRight | Qt::AlignVCenter,
                   label(m_rowLabels, static_cast<std::size_t>(r)));
    for (int h = 0; h < m_heads; ++h) {
        const double x0 = area.left() + h * m_headWidth * cell + t * h * gap;
        const double y0 = area.top() + 20 + t * 0;
        const QColor colour = render::headColour(h);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < m_headWidth; ++c) {
                const float v = m_matrix[static_cast<std::size_t>(r)]
                                        [static_cast<std::size_t>(h * m_headWidth + c)];
                p.fillRect(
                    QRectF(x0 + c * cell, y0 + r * cell, cell, cell),
                    QColor::fromRgb(render::colourOf(v, range, lesson::ColourScale::Diverging)));
            }
        const QRectF block(x0, y0, m_headWidth * cell, rows * cell);
        QPen frame(colour, 1 + 2 * t);
        p.setPen(frame);
        p.drawRect(block);
        QColor text = colour;
        text.setAlphaF(std::clamp(t * 1.5, 0.0, 1.0));
        p.setPen(text);
        p.drawText(QRectF(x0, y0 - 20, m_headWidth * cell, 18), Qt::AlignCenter,
                   tr("head %1").arg(h));
    }
    p.setPen(palette().windowText().color());
}

void StepAnimation::paintSoftmax(QPainter& p) const
{
    const std::vector<double> row = shownRow();
    if (row.empty())
        return;
    const QRectF area(kMargin + 50, 80, width() - 2 * kMargin - 60, height() - 80 - 80);
    // The scores' scale while they are scores, then 0 … 1 for exp and the weights.
    double low = 0, high = 1;
    for (std::size_t k = 0; k < m_softmax.maskedRow.size(); ++k)
        if (std::isfinite(m_softmax.maskedRow[k])) {
            low = std::min(low, static_cast<double>(m_softmax.maskedRow[k]));
            high = std::max(high, static_cast<double>(m_softmax.maskedRow[k]));
        }
    const double a = eased(phase(m_progress, 1, 3));
    low = (1 - a) * low;
    high = (1 - a) * high + a * 1.0;
    const double span = std::max(high - low, 1e-9);
    const auto y = [&](double v) { return area.bottom() - (v - low) / span * area.height(); };
    p.setPen(QPen(palette().mid().color(), 1));
    p.drawLine(QPointF(area.left(), y(0)), QPointF(area.right(), y(0)));
    const double slot = area.width() / static_cast<double>(row.size());
    const double bar = std::max(2.0, slot * 0.7);
    for (std::size_t k = 0; k < row.size(); ++k) {
        const double x = area.left() + k * slot + (slot - bar) / 2;
        const bool blocked = std::isinf(m_softmax.maskedRow[k]);
        const QColor colour = blocked ? render::blockedColour() : render::headColour(m_head);
        const double top = y(std::max(row[k], 0.0)), bottom = y(std::min(row[k], 0.0));
        p.fillRect(QRectF(x, top, bar, std::max(1.0, bottom - top)), colour);
        p.setPen(palette().windowText().color());
        if (slot > 28) {
            const QString value =
                blocked && a < 1e-3 ? QStringLiteral("−∞") : render::formatValue(row[k], 2);
            p.drawText(QRectF(x - 8, top - 18, bar + 16, 16), Qt::AlignCenter, value);
        }
        p.drawText(QRectF(x - 8, area.bottom() + 4, bar + 16, 18), Qt::AlignCenter,
                   label(m_keyLabels, k));
    }
}

void StepAnimation::paintWeightedSum(QPainter& p) const
{
    if (m_values.empty())
        return;
    const int keys = static_cast<int>(m_values.size());
    const int dv = static_cast<int>(m_context.size());
    const QRectF area(kMargin + 100, 70, width() - 2 * kMargin - 120, height() - 70 - 50);
    const double cell = std::min(area.width() / dv, area.height() / (keys + 2.5));
    std::vector<std::vector<float>> all = m_values;
    all.emplace_back(m_context.begin(), m_context.end());
    const auto range = rangeOf(all);
    const double fade = eased(phase(m_progress, 1, 3)), merge = eased(phase(m_progress, 2, 3));
    const double sumTop = area.top() + (keys + 1) * cell;
    for (int k = 0; k < keys; ++k) {
        const double weight = m_weights[static_cast<std::size_t>(k)];
        const double rowTop = area.top() + k * cell;
        // The row stays in place, faded by its weight; a copy of it slides into the sum.
        const double opacity = (1 - fade) + fade * std::clamp(weight, 0.08, 1.0);
        const auto drawRow = [&](double top) {
            for (int c = 0; c < dv; ++c) {
                const double v =
                    m_values[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)] *
                    ((1 - fade) + fade * weight);
                p.fillRect(
                    QRectF(area.left() + c * cell, top, cell, cell),
                    QColor::fromRgb(render::colourOf(v, range, lesson::ColourScale::Diverging)));
            }
        };
        p.setOpacity(opacity);
        drawRow(rowTop);
        if (merge > 0 && merge < 1) {
            p.setOpacity(opacity * (1 - merge));
            drawRow((1 - merge) * rowTop + merge * sumTop);
        }
        p.setOpacity(1);
        p.setPen(palette().windowText().color());
        p.drawText(QRectF(kMargin, rowTop, 96, cell), Qt::AlignRight | Qt::AlignVCenter,
                   tr("%1 × %2").arg(render::formatValue(weight, 2),
                                     label(m_keyLabels, static_cast<std::size_t>(k))));
    }
    p.setOpacity(merge);
    for (int c = 0; c < dv; ++c)
        p.fillRect(QRectF(area.left() + c * cell, sumTop, cell, cell),
                   QColor::fromRgb(render::colourOf(m_context[static_cast<std::size_t>(c)], range,
                                                    lesson::ColourScale::Diverging)));
    p.setPen(QPen(render::headColour(m_head), 2));
    p.drawRect(QRectF(area.left(), sumTop, dv * cell, cell));
    p.drawText(QRectF(kMargin, sumTop, 96, cell), Qt::AlignRight | Qt::AlignVCenter,
               tr("context %1").arg(m_query));
    p.setOpacity(1);
}

void StepAnimation::mouseReleaseEvent(QMouseEvent*)
{
    if (running())
        skip();
    else
        hide();
}

void StepAnimation::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape || !running()) {
        m_animation.stop();
        hide();
        return;
    }
    skip();
}

} // namespace attnviz::app
