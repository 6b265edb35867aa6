#include "app/experiments/scaling_dialog.h"

#include "app/views/heatmap_view.h"
#include "lesson/step_view.h"
#include "render/text_resource.h"
#include "ui_scaling_dialog.h"

#include <cmath>

namespace attnviz::app {
namespace {

// Head sizes for the variance chart: every power of two a model is likely to use.
constexpr int kHeadSizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
constexpr int kVarianceSamples = 2000;

// Three significant digits, but a large variance as a whole number (4260, not 4.26e+03).
QString number(double v)
{
    return std::abs(v) >= 1000 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
}

} // namespace

ScalingDialog::ScalingDialog(QWidget* parent)
    : WalkthroughDialog(parent)
    , m_ui(std::make_unique<Ui::ScalingDialog>())
{
    m_ui->setupUi(this);
    const render::TextResource text =
        render::readTextResource({QStringLiteral(":/experiments/scaling.txt")});
    m_ui->explanation->setHtml(text.body);
    m_ui->weights->setRowSums(true);
    for (QAbstractButton* b :
         {static_cast<QAbstractButton*>(m_ui->bySqrtDk), static_cast<QAbstractButton*>(m_ui->byOne),
          static_cast<QAbstractButton*>(m_ui->byTemperature)})
        connect(b, &QAbstractButton::toggled, this, [this](bool on) {
            if (on)
                recompute();
        });
    connect(m_ui->temperature, &QDoubleSpinBox::valueChanged, this, [this] {
        if (m_ui->byTemperature->isChecked())
            recompute();
    });
    connect(m_ui->head, &QSpinBox::valueChanged, this, &ScalingDialog::redraw);
    plotVariance();
}

ScalingDialog::~ScalingDialog() = default;

double ScalingDialog::divisor() const
{
    if (m_ui->byOne->isChecked())
        return 1.0;
    if (m_ui->byTemperature->isChecked())
        return m_ui->temperature->value();
    return walkthrough() ? std::sqrt(double(walkthrough()->dk())) : 1.0;
}

void ScalingDialog::recompute()
{
    m_ui->bySqrtDk->setText(walkthrough() ? tr("√d_k = √%1 = %2")
                                                .arg(walkthrough()->dk())
                                                .arg(number(std::sqrt(double(walkthrough()->dk()))))
                                          : tr("√d_k"));
    if (deferWhileClosed())
        return;
    m_rescaled.reset();
    if (!walkthrough()) {
        m_ui->statistics->setText(tr("Nothing is computed in the main window."));
    } else {
        auto made = lesson::rescaledWalkthrough(*walkthrough(), divisor());
        if (auto* reason = std::get_if<std::string>(&made))
            m_ui->statistics->setText(
                tr("Cannot run it again here: %1.").arg(QString::fromStdString(*reason)));
        else
            m_rescaled = std::get<std::shared_ptr<const lesson::Walkthrough>>(std::move(made));
    }
    m_ui->head->setMaximum(walkthrough() ? std::max(0, walkthrough()->heads() - 1) : 0);
    redraw();
}

void ScalingDialog::redraw()
{
    if (!m_rescaled) {
        m_ui->weights->setHeatmap({}, {0, 1}, false);
        m_statistics = {};
        plotHistogram();
        return;
    }
    const int head = m_ui->head->value();
    const lesson::Heatmap map = lesson::traceHeatmap(
        m_rescaled, engine::AttentionStep::Weights, batch(), head,
        tr("head %1 · softmax(scores ÷ %2)").arg(head).arg(number(divisor())).toStdString(),
        "softmax");
    m_ui->weights->setHeatmap(map, {0, 1}, true);
    m_statistics = lesson::softmaxStatistics(*m_rescaled, batch(), head);
    const lesson::SoftmaxStatistics& s = m_statistics;
    // Far above d_k, the random-vector argument does not describe this head: say why.
    const double ratio = s.scoreVariance / m_rescaled->dk();
    const QString trained = ratio > 4
        ? tr(" That is %1 × d_k: trained weights, not random ones (see below).")
              .arg(QString::number(ratio, 'f', 0))
        : QString();
    m_ui->statistics->setText(
        tr("<p>Scores Q_h K_hᵀ of head %1: variance <b>%2</b>, next to d_k = %3.%9<br>"
           "Divided by %4: variance <b>%5</b>.</p>"
           "<p>Entropy of a row of weights: <b>%6</b> nats on average, of at most %7 (every key "
           "weighed alike).<br>Largest weight in a row: <b>%8</b> on average (1 would be "
           "one-hot).</p>")
            .arg(head)
            .arg(number(s.scoreVariance))
            .arg(m_rescaled->dk())
            .arg(number(divisor()))
            .arg(number(s.scaledVariance))
            .arg(number(s.meanEntropy))
            .arg(number(s.meanUniformEntropy))
            .arg(number(s.meanLargestWeight))
            .arg(trained));
    plotHistogram();
}

void ScalingDialog::plotHistogram()
{
    QCustomPlot* plot = m_ui->histogram;
    plot->clearPlottables();
    plot->plotLayout()->setAutoMargins(QCP::msAll);
    plot->xAxis->setLabel(tr("scores ÷ %1 (the head's unblocked cells)").arg(number(divisor())));
    plot->yAxis->setLabel(tr("cells"));
    const lesson::SoftmaxStatistics& s = m_statistics;
    if (!s.counts.empty()) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        const double width = s.edges[1] - s.edges[0];
        bars->setWidth(width * 0.9);
        bars->setBrush(QColor(59, 82, 139));
        bars->setPen(Qt::NoPen);
        QVector<double> centres, counts;
        for (std::size_t b = 0; b < s.counts.size(); ++b) {
            centres << s.edges[b] + width / 2;
            counts << s.counts[b];
        }
        bars->setData(centres, counts);
        plot->rescaleAxes();
        plot->yAxis->setRangeLower(0);
        plot->xAxis->scaleRange(1.05);
    }
    plot->replot();
}

void ScalingDialog::plotVariance()
{
    QCustomPlot* plot = m_ui->variance;
    const auto points = lesson::dotProductVariance(kHeadSizes, kVarianceSamples, 1);
    QVector<double> dk, raw, scaled;
    for (const lesson::VariancePoint& p : points) {
        dk << p.dk;
        raw << p.variance;
        scaled << p.scaledVariance;
    }
    QSharedPointer<QCPAxisTickerLog> log(new QCPAxisTickerLog);
    log->setLogBase(2);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(log);
    }
    plot->xAxis->setLabel(tr("d_k (random q, k: independent entries, mean 0, variance 1)"));
    plot->yAxis->setLabel(tr("variance of q · k"));
    QCPGraph* unscaled = plot->addGraph();
    unscaled->setData(dk, raw);
    unscaled->setName(tr("q · k: about d_k"));
    unscaled->setPen(QPen(QColor(200, 60, 40), 2));
    unscaled->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    QCPGraph* divided = plot->addGraph();
    divided->setData(dk, scaled);
    divided->setName(tr("q · k ÷ √d_k: about 1"));
    divided->setPen(QPen(QColor(59, 82, 139), 2));
    divided->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    plot->xAxis->setRange(0.8, 640);
    plot->yAxis->setRange(0.25, 1024);
    plot->replot();
}

} // namespace attnviz::app
