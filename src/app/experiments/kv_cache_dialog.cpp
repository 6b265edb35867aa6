#include "app/experiments/kv_cache_dialog.h"

#include "app/views/heatmap_view.h"
#include "app/window/job_failure.h"
#include "app/window/session.h"
#include "engine/key_value_cache.h"
#include "lesson/memory_budget.h"
#include "render/display_words.h"
#include "render/text_resource.h"
#include "ui_kv_cache_dialog.h"

#include <QLocale>
#include <QShowEvent>
#include <qcustomplot.h>

namespace attnviz::app {
namespace {

QString count(std::int64_t n)
{
    return QLocale().toString(static_cast<qlonglong>(n));
}

QString bytes(std::int64_t n)
{
    return render::displayed(lesson::formatBytes(static_cast<std::uint64_t>(n)));
}

// The cache of this model for 1,024 tokens beside the same width with a K/V head per query head
// (MHA) and with one K/V head for all (MQA).
QString sharedHeads(const engine::ModelConfig& c)
{
    const engine::AttentionDescription d =
        engine::attentionDescription(c, 0, engine::Block::MaskedSelf);
    const auto cache = [&](std::int64_t kvHeads) {
        return bytes(
            engine::kvCacheBytes(1024, c.decoderLayers, kvHeads, d.queryKeySize, d.valueSize, 4));
    };
    return KvCacheDialog::tr("<p>For 1,024 tokens this model's cache takes <b>%1</b> (2 · %2 "
                             "layers · %3 K/V heads · %4 · 4 bytes a token); with a K/V head per "
                             "query head (MHA) it would take %5, with one K/V head for all (MQA) "
                             "%6.</p>")
        .arg(cache(d.keyValueHeads))
        .arg(c.decoderLayers)
        .arg(d.keyValueHeads)
        .arg(d.queryKeySize)
        .arg(cache(d.queryHeads))
        .arg(cache(1));
}

QString token(const lesson::KvCacheDecoding& d, int id)
{
    return QString::fromStdString(d.model->tokenizer->displayToken(id)).toHtmlEscaped();
}

} // namespace

KvCacheDialog::KvCacheDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::KvCacheDialog>())
    , m_work(
          [this](const Request& r) -> Job {
              return [r](const std::atomic<bool>& stop) {
                  Outcome outcome;
                  try {
                      const engine::ModelTrace& trace = *r.run->trace;
                      const bool encoderDecoder = r.run->config.hasEncoder();
                      std::vector<int> prompt = trace.targetIds;
                      if (encoderDecoder && r.run->config.bosTokenId)
                          prompt = {*r.run->config.bosTokenId};
                      outcome.decoding =
                          std::make_shared<const lesson::KvCacheDecoding>(lesson::decodeWithKvCache(
                              r.run->model, encoderDecoder ? trace.sourceIds : std::vector<int>{},
                              prompt, r.tokens, r.maxMemory, &stop));
                  } catch (...) {
                      outcome.error =
                          jobFailure(std::current_exception(),
                                     KvCacheDialog::tr("There was not enough memory to decode."));
                  }
                  return outcome;
              };
          },
          [this](Outcome outcome, JobFate fate) { finish(std::move(outcome), fate); }, [] {})
{
    m_ui->setupUi(this);
    m_ui->explanation->setHtml(
        render::readTextResource({QStringLiteral(":/experiments/kv_cache.txt")}).body);
    for (HeatmapView* view : {m_ui->weights, m_ui->keys, m_ui->values})
        view->setValuesInCells(false);
    connect(m_ui->tokens, &QSpinBox::valueChanged, this, &KvCacheDialog::decode);
    connect(m_ui->layer, &QComboBox::currentIndexChanged, this, &KvCacheDialog::redraw);
    connect(m_ui->head, &QComboBox::currentIndexChanged, this, &KvCacheDialog::redraw);
    connect(m_ui->step, &QSlider::valueChanged, this, &KvCacheDialog::redraw);
    connect(m_ui->previous, &QPushButton::clicked, this,
            [this] { m_ui->step->setValue(m_ui->step->value() - 1); });
    connect(m_ui->next, &QPushButton::clicked, this,
            [this] { m_ui->step->setValue(m_ui->step->value() + 1); });
    clear(tr("Open a model: the playground's module writes no text."));
}

KvCacheDialog::~KvCacheDialog() = default;

void KvCacheDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    const std::optional<std::uint64_t> maxMemory = session.memoryLimit();
    if (run == m_run && maxMemory == m_maxMemory && !m_stale)
        return;
    m_run = run;
    m_maxMemory = maxMemory;
    m_stale = !isVisible();
    if (!m_stale)
        decode();
}

void KvCacheDialog::showEvent(QShowEvent* event)
{
    ExperimentDialog::showEvent(event);
    if (std::exchange(m_stale, false))
        decode();
}

void KvCacheDialog::decode()
{
    m_decoding.reset();
    if (!m_run || !m_run->trace) {
        m_work.discard();
        clear(tr("Open a model: the playground's module writes no text."));
        return;
    }
    if (!m_run->model) {
        m_work.discard();
        clear(tr("An imported attention file holds no model to write with."));
        return;
    }
    if (!m_run->config.hasDecoder()) {
        m_work.discard();
        clear(tr("An encoder-only model writes no text, so it keeps no KV cache."));
        return;
    }
    clear(tr("Decoding %n token(s) with a KV cache…", nullptr, m_ui->tokens->value()));
    m_work.request({m_run, m_ui->tokens->value(), m_maxMemory});
}

void KvCacheDialog::finish(Outcome outcome, JobFate fate)
{
    if (fate != JobFate::Current)
        return;
    if (!outcome.decoding) {
        clear(outcome.error);
        emit decoded();
        return;
    }
    if (outcome.decoding->steps.empty()) {
        clear(tr("The text already fills the model's context: there is no room to write."));
        emit decoded();
        return;
    }
    m_decoding = std::move(outcome.decoding);
    fillChoices();
    const int steps = static_cast<int>(m_decoding->steps.size());
    const QSignalBlocker block(m_ui->step);
    m_ui->step->setRange(0, steps - 1);
    m_ui->step->setValue(steps - 1);
    plotWork();
    redraw();
    emit decoded();
}

void KvCacheDialog::fillChoices()
{
    const engine::ModelConfig& c = m_decoding->model->model->config();
    const QSignalBlocker layers(m_ui->layer);
    const QSignalBlocker heads(m_ui->head);
    const int layer = std::max(m_ui->layer->currentIndex(), 0);
    const int head = std::max(m_ui->head->currentIndex(), 0);
    m_ui->layer->clear();
    for (int L = 0; L < c.decoderLayers; ++L) {
        const engine::AttentionDescription d =
            engine::attentionDescription(c, L, engine::Block::MaskedSelf);
        m_ui->layer->addItem(d.mask.slidingWindow
                                 ? tr("%1 (window of %2)").arg(L).arg(*d.mask.slidingWindow)
                                 : QString::number(L));
    }
    m_ui->layer->setCurrentIndex(std::min(layer, c.decoderLayers - 1));
    m_ui->head->clear();
    const engine::AttentionDescription d =
        engine::attentionDescription(c, 0, engine::Block::MaskedSelf);
    for (int h = 0; h < d.queryHeads; ++h)
        m_ui->head->addItem(d.groupedKeyValues()
                                ? tr("%1 (K/V head %2)").arg(h).arg(d.keyValueHeadOf(h))
                                : QString::number(h));
    m_ui->head->setCurrentIndex(std::min(head, d.queryHeads - 1));
}

void KvCacheDialog::clear(const QString& message)
{
    m_ui->numbers->setText(message.toHtmlEscaped());
    for (HeatmapView* view : {m_ui->weights, m_ui->keys, m_ui->values})
        view->setHeatmap({}, {0.0, 1.0}, false);
    m_ui->work->clearPlottables();
    m_ui->work->clearItems();
    m_ui->work->replot();
    for (QWidget* w : std::initializer_list<QWidget*>{m_ui->step, m_ui->previous, m_ui->next,
                                                      m_ui->layer, m_ui->head})
        w->setEnabled(false);
}

void KvCacheDialog::redraw()
{
    if (!m_decoding)
        return;
    const lesson::KvCacheDecoding& d = *m_decoding;
    const int s = m_ui->step->value();
    const int layer = m_ui->layer->currentIndex();
    const int head = m_ui->head->currentIndex();
    for (QWidget* w : std::initializer_list<QWidget*>{m_ui->step, m_ui->layer, m_ui->head})
        w->setEnabled(true);
    m_ui->previous->setEnabled(s > 0);
    m_ui->next->setEnabled(s + 1 < static_cast<int>(d.steps.size()));
    const engine::AttentionDescription description =
        engine::attentionDescription(d.model->model->config(), layer, engine::Block::MaskedSelf);
    const int kvHead = description.keyValueHeadOf(head);

    lesson::Heatmap weights = lesson::weightsSoFar(d, s, layer, head);
    lesson::Heatmap keys = lesson::cachedKeysOrValues(d, s, layer, kvHead, false);
    lesson::Heatmap values = lesson::cachedKeysOrValues(d, s, layer, kvHead, true);
    for (lesson::Heatmap* h : {&weights, &keys, &values}) {
        h->caption = render::displayed(h->caption).toStdString();
        h->title = render::displayed(h->title).toStdString();
    }
    m_ui->weights->setHeatmap(weights, lesson::colourRange({weights}), true);
    // Keys and values share no scale with the weights; each its own, symmetric about 0.
    m_ui->keys->setHeatmap(keys, lesson::colourRange({keys}), true);
    m_ui->values->setHeatmap(values, lesson::colourRange({values}), true);

    const lesson::KvCacheStep& step = d.steps[static_cast<std::size_t>(s)];
    const std::int64_t read = d.tokensAfter(s);
    const QString what = step.firstPosition == 0
        ? tr("the prefill read the whole text, %n token(s),", nullptr,
             static_cast<int>(step.tokensRead))
        : tr("read “%1” at position %2")
              .arg(token(d, d.ids[static_cast<std::size_t>(step.firstPosition)]))
              .arg(step.firstPosition);
    const double ratio = static_cast<double>(step.multiplyAddsWithout) /
        static_cast<double>(std::max<std::int64_t>(step.multiplyAddsWithCache, 1));
    std::int64_t withCache = 0, without = 0;
    for (const lesson::KvCacheStep& k : d.steps) {
        withCache += k.multiplyAddsWithCache;
        without += k.multiplyAddsWithout;
    }
    m_ui->numbers->setText(
        tr("<p><b>Step %1 of %2</b>: %3 and chose “%4” (p = %5).</p>"
           "<p>It computed q, k and v for %6 and read the keys and values of %7 "
           "from the cache.<br>Multiply-adds: <b>%8</b> with the cache, %9 without "
           "(%10 ×).</p>"
           "<p>The cache now holds %11 tokens × %12 = <b>%13</b> (float32, K and V of all %14 "
           "layers).</p>"
           "<p>Largest difference from one full causal pass over the same %15 tokens (weights "
           "and logits): <b>%16</b>.</p>"
           "<p>All %2 steps: %17 multiply-adds with the cache, %18 without.</p>%19")
            .arg(s)
            .arg(d.steps.size())
            .arg(what)
            .arg(token(d, step.chosen))
            .arg(step.probability, 0, 'f', 2)
            .arg(tr("%n token(s)", nullptr, static_cast<int>(step.tokensRead)))
            .arg(step.firstPosition)
            .arg(count(step.multiplyAddsWithCache))
            .arg(count(step.multiplyAddsWithout))
            .arg(ratio, 0, 'f', 1)
            .arg(read)
            .arg(bytes(d.bytesPerToken))
            .arg(bytes(step.cacheBytes))
            .arg(d.model->model->config().decoderLayers)
            .arg(read)
            .arg(step.largestDifference, 0, 'g', 2)
            .arg(count(withCache))
            .arg(count(without))
            .arg(sharedHeads(d.model->model->config())));

    // The current step on the work chart.
    m_ui->work->clearItems();
    auto* line = new QCPItemStraightLine(m_ui->work);
    line->point1->setCoords(s, 0);
    line->point2->setCoords(s, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    m_ui->work->replot();
}

void KvCacheDialog::plotWork()
{
    QCustomPlot* plot = m_ui->work;
    plot->clearPlottables();
    const lesson::KvCacheDecoding& d = *m_decoding;
    QVector<double> x, cached, uncached;
    for (std::size_t s = 0; s < d.steps.size(); ++s) {
        x << static_cast<double>(s);
        cached << static_cast<double>(d.steps[s].multiplyAddsWithCache);
        uncached << static_cast<double>(d.steps[s].multiplyAddsWithout);
    }
    QCPGraph* without = plot->addGraph();
    without->setData(x, uncached);
    without->setName(tr("without a cache: every token read again"));
    without->setPen(QPen(QColor(200, 60, 40), 2));
    without->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    QCPGraph* with = plot->addGraph();
    with->setData(x, cached);
    with->setName(tr("with the KV cache: the new token only"));
    with->setPen(QPen(QColor(59, 82, 139), 2));
    with->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    plot->xAxis->setLabel(tr("decoding step (0: the prefill)"));
    plot->yAxis->setLabel(tr("multiply-adds of the step"));
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    // Room above the lines for the legend; whole steps on the x axis.
    double top = 0;
    for (const double v : uncached)
        top = std::max(top, v);
    plot->yAxis->setRange(0, top * 1.6);
    QSharedPointer<QCPAxisTickerFixed> steps(new QCPAxisTickerFixed);
    steps->setTickStep(1.0);
    steps->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->xAxis->setTicker(steps);
    plot->xAxis->setRange(-0.5, static_cast<double>(d.steps.size()) - 0.5);
    plot->replot();
}

} // namespace attnviz::app
