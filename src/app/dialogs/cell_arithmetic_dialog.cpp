#include "app/dialogs/cell_arithmetic_dialog.h"

#include "render/display_words.h"
#include "render/heatmap_layout.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnviz::app {
namespace {

// More rows than fit on a projector page are cut: the first terms of a long dot product, the
// largest weights of a long row (always with the cell asked about).
constexpr std::size_t kMaxTerms = 64;
constexpr std::size_t kMaxKeys = 24;
constexpr std::size_t kLargestKeys = 16;

// Six significant digits: enough to check a sum by hand against the trace.
QString number(double v)
{
    return render::formatValue(v, 6);
}

QString token(const std::vector<std::vector<std::string>>& tokens, int batch, int index)
{
    const auto b = static_cast<std::size_t>(batch), i = static_cast<std::size_t>(index);
    if (b >= tokens.size() || i >= tokens[b].size())
        return QString::number(index);
    return QStringLiteral("%1 “%2”").arg(index).arg(
        QString::fromStdString(tokens[b][i]).toHtmlEscaped());
}

QString row(const QStringList& cells, bool marked = false)
{
    QString html = marked ? QStringLiteral("<tr style='background:#fff3b0'>") : "<tr>";
    for (const QString& c : cells)
        html += "<td align='right'>&nbsp;" + c + "&nbsp;</td>";
    return html + "</tr>";
}

QString header(const QStringList& cells)
{
    QString html = "<tr>";
    for (const QString& c : cells)
        html += "<th>&nbsp;" + c + "&nbsp;</th>";
    return html + "</tr>";
}

QString table(const QString& rows)
{
    return "<table cellspacing='0' border='1' style='border-collapse:collapse'>" + rows +
        "</table>";
}

QString heading(const QString& text)
{
    return "<h3>" + text + "</h3>";
}

// Keys to list for a row of Nk: all of a short row, else the largest weights and the cell.
std::vector<std::size_t> keysToList(const std::vector<float>& weights, std::size_t cell)
{
    if (weights.size() <= kMaxKeys) {
        std::vector<std::size_t> all(weights.size());
        for (std::size_t j = 0; j < all.size(); ++j)
            all[j] = j;
        return all;
    }
    std::vector<std::size_t> keys = lesson::largestEntries(weights, kLargestKeys, cell);
    std::sort(keys.begin(), keys.end());
    return keys;
}

QString scoreHtml(const lesson::Walkthrough& w, const lesson::ScoreCellArithmetic& a)
{
    const lesson::CellAddress& c = a.cell;
    const QString q = token(w.queryTokens, c.batch, c.query);
    const QString k = token(w.keyTokens, c.batch, c.column);
    QString html =
        CellArithmeticDialog::tr("<p><b>Head %1 · query %2 · key %3</b>%4</p>")
            .arg(c.head)
            .arg(q, k,
                 w.batch() > 1 ? CellArithmeticDialog::tr(" · batch item %1").arg(c.batch)
                               : QString());

    html += heading(
        CellArithmeticDialog::tr("1. Score: q_%1 · k_%2, term by term").arg(c.query).arg(c.column));
    // Which q and k the scores multiplied: normalised, turned, of the group's K/V head.
    const QString q_from = QString::fromLatin1(engine::stepName(a.queryStep).data());
    const QString k_from = QString::fromLatin1(engine::stepName(a.keyStep).data());
    html += CellArithmeticDialog::tr("<p>q from %1 of head %2, k from %3 of K/V head %4.</p>")
                .arg(q_from)
                .arg(c.head)
                .arg(k_from)
                .arg(a.keyValueHead);
    QString rows =
        header({CellArithmeticDialog::tr("t"), CellArithmeticDialog::tr("q[t]"),
                CellArithmeticDialog::tr("k[t]"), CellArithmeticDialog::tr("q[t] × k[t]")});
    for (std::size_t t = 0; t < std::min(a.products.size(), kMaxTerms); ++t)
        rows +=
            row({QString::number(t), number(a.query[t]), number(a.key[t]), number(a.products[t])});
    html += table(rows);
    if (a.products.size() > kMaxTerms)
        html += CellArithmeticDialog::tr("<p>… and %n more terms, included in the sum.</p>",
                                         nullptr, static_cast<int>(a.products.size() - kMaxTerms));
    html += CellArithmeticDialog::tr(
                "<p>Sum of the %n products = <b>%1</b> (the trace's score: %2)</p>", nullptr,
                static_cast<int>(a.products.size()))
                .arg(number(a.productSum), number(a.score));

    const bool ownScale = w.description().scoreScale.has_value();
    html += heading(ownScale ? CellArithmeticDialog::tr("2. Scaled: × the module's scale")
                             : CellArithmeticDialog::tr("2. Scaled: ÷ √d_k"));
    if (ownScale)
        html += CellArithmeticDialog::tr("<p>%1 × %2 = <b>%3</b></p>")
                    .arg(number(a.score), number(a.scale), number(a.scaled));
    else
        html += CellArithmeticDialog::tr("<p>%1 ÷ √%2 = %1 ÷ %3 = <b>%4</b></p>")
                    .arg(number(a.score))
                    .arg(a.query.size())
                    .arg(number(1.0 / a.scale), number(a.scaled));
    int section = 3;
    float beforeMask = a.scaled;
    if (a.cap) {
        html +=
            heading(CellArithmeticDialog::tr("%1. Capped: c · tanh(scaled / c)").arg(section++));
        html += CellArithmeticDialog::tr("<p>%1 · tanh(%2 ÷ %1) = <b>%3</b></p>")
                    .arg(number(*a.cap), number(a.scaled), number(a.capped));
        beforeMask = a.capped;
    }
    if (a.bias) {
        html += heading(CellArithmeticDialog::tr("%1. Biased by distance (ALiBi)").arg(section++));
        html += CellArithmeticDialog::tr("<p>%1 + (%2) = <b>%3</b></p>")
                    .arg(number(beforeMask), number(*a.bias), number(a.biased));
        beforeMask = a.biased;
    }

    html += heading(CellArithmeticDialog::tr("%1. Masked").arg(section++));
    if (a.rowFullyMasked)
        html += CellArithmeticDialog::tr(
            "<p>Every key is blocked for this query. The softmax of a row of −∞ "
            "would be 0/0 (NaN); AttnViz gives the row zero weights, so the query "
            "attends to nothing and its context is zero.</p>");
    else if (a.blocked)
        html += CellArithmeticDialog::tr(
                    "<p>Key %1 is <b>blocked</b> for this query: the masked score is −∞, "
                    "so exp gives 0 and its weight is exactly 0.</p>")
                    .arg(k);
    else
        html += CellArithmeticDialog::tr(
                    "<p>Key %1 is allowed: the masked score is the score before the mask, %2.</p>")
                    .arg(k, number(beforeMask));
    if (a.rowFullyMasked && !a.sink)
        return html;

    html += heading(
        CellArithmeticDialog::tr("%1. Softmax over the keys of row %2").arg(section).arg(q));
    if (a.sink)
        html += CellArithmeticDialog::tr(
                    "<p>The head's sink, a learned logit of %1, joins the row as one more key: "
                    "it counts in the maximum and in the sum, then it is dropped, so the "
                    "weights on the keys add up to 1 − %2.</p>")
                    .arg(number(*a.sink), number(a.sinkWeight));
    html += CellArithmeticDialog::tr(
                "<p>The row's largest masked score, %1, is subtracted before exp (the "
                "result is the same; the exps cannot overflow).</p>")
                .arg(number(a.rowMax));
    const std::vector<std::size_t> keys =
        keysToList(a.weightRow, static_cast<std::size_t>(c.column));
    rows =
        header({CellArithmeticDialog::tr("key"), CellArithmeticDialog::tr("masked"),
                CellArithmeticDialog::tr("exp(masked − max)"), CellArithmeticDialog::tr("weight")});
    for (std::size_t j : keys)
        rows += row({token(w.keyTokens, c.batch, static_cast<int>(j)), number(a.maskedRow[j]),
                     number(a.exps[j]), number(a.weightRow[j])},
                    j == static_cast<std::size_t>(c.column));
    html += table(rows);
    if (keys.size() < a.weightRow.size())
        html += CellArithmeticDialog::tr(
                    "<p>Showing %1 of %2 keys: the largest weights and key %3.</p>")
                    .arg(keys.size())
                    .arg(a.weightRow.size())
                    .arg(c.column);
    const double exp = a.exps[static_cast<std::size_t>(c.column)];
    if (a.sink)
        html += CellArithmeticDialog::tr(
                    "<p>Row sum of the exps, the sink's exp(%1 − max) = %2 included: %3<br>weight "
                    "= %4 ÷ %3 = <b>%5</b> (the trace's weight: %6); the sink takes %7.</p>")
                    .arg(number(*a.sink), number(a.sinkExp), number(a.expSum), number(exp),
                         number(a.expSum > 0 ? exp / a.expSum : 0), number(a.weight),
                         number(a.sinkWeight));
    else
        html += CellArithmeticDialog::tr(
                    "<p>Row sum of the exps = %1<br>weight = %2 ÷ %1 = <b>%3</b> (the "
                    "trace's weight: %4). The row's weights add up to 1.</p>")
                    .arg(number(a.expSum), number(exp), number(a.expSum > 0 ? exp / a.expSum : 0),
                         number(a.weight));
    return html;
}

QString contextHtml(const lesson::Walkthrough& w, const lesson::ContextCellArithmetic& a)
{
    const lesson::CellAddress& c = a.cell;
    QString html =
        CellArithmeticDialog::tr("<p><b>Head %1 · query %2 · feature %3 of the context</b></p>")
            .arg(c.head)
            .arg(token(w.queryTokens, c.batch, c.query))
            .arg(c.column);
    html += heading(CellArithmeticDialog::tr("The weighted sum of column %1 of V of K/V head %2")
                        .arg(c.column)
                        .arg(a.keyValueHead));
    html += CellArithmeticDialog::tr(
                "<p>Each key's value in that column, times the weight query %1 gives "
                "the key:</p>")
                .arg(c.query);
    const std::vector<std::size_t> keys = keysToList(a.weights, static_cast<std::size_t>(c.column));
    QString rows = header({CellArithmeticDialog::tr("key"), CellArithmeticDialog::tr("weight"),
                           CellArithmeticDialog::tr("v[%1]").arg(c.column),
                           CellArithmeticDialog::tr("weight × v")});
    for (std::size_t j : keys)
        rows += row({token(w.keyTokens, c.batch, static_cast<int>(j)), number(a.weights[j]),
                     number(a.values[j]), number(a.products[j])});
    html += table(rows);
    if (keys.size() < a.weights.size())
        html += CellArithmeticDialog::tr(
                    "<p>Showing the %1 largest weights of %2 keys; the sum has every "
                    "key.</p>")
                    .arg(keys.size())
                    .arg(a.weights.size());
    html += CellArithmeticDialog::tr("<p>Sum = <b>%1</b> (the trace's context: %2)</p>")
                .arg(number(a.productSum), number(a.context));
    return html;
}

// The output o is shown by its first features: enough to follow the rescale by hand.
constexpr std::size_t kOutputFeatures = 4;

QString outputText(const std::vector<double>& o)
{
    QStringList parts;
    for (std::size_t c = 0; c < std::min(o.size(), kOutputFeatures); ++c)
        parts << number(o[c]);
    return "(" + parts.join(", ") + (o.size() > kOutputFeatures ? ", …)" : ")");
}

QString onlineHtml(const lesson::Walkthrough& w, const lesson::OnlineCellArithmetic& a)
{
    const lesson::CellAddress& c = a.cell;
    const engine::OnlineSoftmaxTile& tile = a.tiles[static_cast<std::size_t>(c.column)];
    QString html = CellArithmeticDialog::tr("<p><b>Head %1 · query %2 · after tile %3 (keys %4–%5)"
                                            "</b></p>")
                       .arg(c.head)
                       .arg(token(w.queryTokens, c.batch, c.query))
                       .arg(c.column)
                       .arg(tile.firstKey)
                       .arg(tile.firstKey + tile.keys - 1);
    html += heading(CellArithmeticDialog::tr("The row read tile by tile"));
    html += CellArithmeticDialog::tr(
        "<p>m is the largest score so far, ℓ the sum of exp(s − m) so far and o the values "
        "weighted by exp(s − m). When a tile raises m, the earlier ℓ and o are multiplied by "
        "exp(m<sub>old</sub> − m<sub>new</sub>) first.</p>");
    QString rows = header({CellArithmeticDialog::tr("tile"), CellArithmeticDialog::tr("keys"),
                           CellArithmeticDialog::tr("tile's max"), CellArithmeticDialog::tr("m"),
                           CellArithmeticDialog::tr("rescale"), CellArithmeticDialog::tr("ℓ"),
                           CellArithmeticDialog::tr("o")});
    for (std::size_t k = 0; k < a.tiles.size(); ++k) {
        const engine::OnlineSoftmaxTile& t = a.tiles[k];
        rows += row({QString::number(k),
                     QStringLiteral("%1–%2").arg(t.firstKey).arg(t.firstKey + t.keys - 1),
                     number(t.tileMax), number(t.max), number(t.rescale), number(t.sum),
                     outputText(t.accumulated)},
                    static_cast<int>(k) == c.column);
    }
    html += table(rows);
    html += heading(CellArithmeticDialog::tr("Tile %1").arg(c.column));
    const float before =
        c.column > 0 ? a.tiles[static_cast<std::size_t>(c.column) - 1].max : -INFINITY;
    const double sumBefore = c.column > 0 ? a.tiles[static_cast<std::size_t>(c.column) - 1].sum : 0;
    QStringList scores, terms;
    for (std::size_t j = 0; j < a.tileScores.size(); ++j) {
        scores << number(a.tileScores[j]);
        terms << number(a.tileExps[j]);
    }
    if (std::isinf(tile.tileMax))
        html += CellArithmeticDialog::tr("<p>Every key of this tile is blocked: m and ℓ stay as "
                                         "they were (m = %1, ℓ = %2).</p>")
                    .arg(number(tile.max), number(tile.sum));
    else
        html += CellArithmeticDialog::tr(
                    "<p>Scores: %1<br>m = max(%2, %3) = <b>%4</b> (the trace's online_max: %5)<br>"
                    "rescale = exp(%2 − %4) = %6<br>exp(s − m): %7<br>"
                    "ℓ = %8 × %6 + %9 = <b>%10</b> (the trace's online_sum: %11)</p>")
                    .arg(scores.join(", "), number(before), number(tile.tileMax), number(tile.max),
                         number(a.max), number(tile.rescale), terms.join(", "), number(sumBefore),
                         number(a.tileExpSum))
                    .arg(number(tile.sum), number(a.sum));
    QStringList context, divided;
    for (std::size_t f = 0; f < std::min(a.context.size(), kOutputFeatures); ++f) {
        divided << number(a.outputOverSum[f]);
        context << number(a.context[f]);
    }
    html += heading(CellArithmeticDialog::tr("After the last tile"));
    html += CellArithmeticDialog::tr("<p>o ÷ ℓ = (%1%3) — the trace's context row: (%2%3), the "
                                     "same as softmax · V without ever holding the row whole.</p>")
                .arg(divided.join(", "), context.join(", "),
                     a.context.size() > kOutputFeatures ? QStringLiteral(", …") : QString());
    return html;
}

} // namespace

QString cellArithmeticHtml(const lesson::Walkthrough& w, engine::AttentionStep step,
                           const lesson::CellArithmetic& arithmetic)
{
    const QString stepName = render::displayed(engine::stepName(step));
    if (const auto* none = std::get_if<lesson::CellArithmeticUnavailable>(&arithmetic))
        return CellArithmeticDialog::tr("<p>No arithmetic to show: %1.</p>")
            .arg(QString::fromStdString(none->reason).toHtmlEscaped());
    if (const auto* score = std::get_if<lesson::ScoreCellArithmetic>(&arithmetic))
        return CellArithmeticDialog::tr(
                   "<p>Cell of <i>%1</i>: every number below is the trace's.</p>")
                   .arg(stepName) +
            scoreHtml(w, *score);
    if (const auto* online = std::get_if<lesson::OnlineCellArithmetic>(&arithmetic))
        return onlineHtml(w, *online);
    return contextHtml(w, std::get<lesson::ContextCellArithmetic>(arithmetic));
}

CellArithmeticDialog::CellArithmeticDialog(QWidget* parent)
    : QDialog(parent)
    , m_text(new QTextBrowser(this))
{
    setWindowTitle(tr("The arithmetic of one cell"));
    setObjectName(QStringLiteral("cellArithmetic"));
    m_text->setObjectName(QStringLiteral("cellArithmeticText"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addWidget(buttons);
    resize(560, 640);
}

void CellArithmeticDialog::showCell(std::shared_ptr<const lesson::Walkthrough> walkthrough,
                                    engine::AttentionStep step, const lesson::CellAddress& cell)
{
    m_walkthrough = std::move(walkthrough);
    m_step = step;
    m_cell = cell;
    refresh();
}

void CellArithmeticDialog::setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough)
{
    m_walkthrough = std::move(walkthrough);
    refresh();
}

void CellArithmeticDialog::setStep(engine::AttentionStep step)
{
    m_step = step;
    refresh();
}

QString CellArithmeticDialog::text() const
{
    return m_text->toPlainText();
}

void CellArithmeticDialog::refresh()
{
    if (!m_walkthrough) {
        m_text->setHtml(tr("<p>Nothing is computed, so there is no cell to explain.</p>"));
        return;
    }
    m_text->setHtml(cellArithmeticHtml(*m_walkthrough, m_step,
                                       lesson::cellArithmetic(*m_walkthrough, m_step, m_cell)));
}

} // namespace attnviz::app
