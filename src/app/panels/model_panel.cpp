#include "app/panels/model_panel.h"

#include "app/window/shown_names.h"
#include "io/builtin_models.h"
#include "lesson/field_limits.h"
#include "lesson/image_classes.h"
#include "lesson/memory_budget.h"
#include "lesson/parameter_count.h"
#include "render/display_words.h"
#include "render/model_description.h"
#include "ui_model_panel.h"

#include <QDir>
#include <QFileDialog>

namespace attnviz::app {
namespace {

const QString kOpenFolder = QStringLiteral("<open>");
const QString kOpenAttentions = QStringLiteral("<open attentions>");

// An attention-import file rather than a model folder (docs/attention-import.md).
bool isImport(const QString& source)
{
    return QFileInfo(source).isFile();
}

// Counts as phrases, so that "1 layer" and "12 layers" each read right in every language.
QString layerCount(int layers)
{
    return ModelPanel::tr("%n layer(s)", nullptr, layers);
}

QString headCount(int heads)
{
    return ModelPanel::tr("%n head(s)", nullptr, heads);
}

// What today's decoders add to the head count: shared K/V heads and the cache they save, how
// rotary positions are stretched, a sliding window. Empty for a model without any of these.
QString attentionFacts(const engine::ModelConfig& c)
{
    QStringList facts;
    if (c.keyValueHeads() != c.numHeads)
        facts << ModelPanel::tr("%1 query heads share %2 K/V heads, %3 to each")
                     .arg(c.numHeads)
                     .arg(c.keyValueHeads())
                     .arg(c.numHeads / c.keyValueHeads());
    if (const std::int64_t cached = lesson::keyValueCacheValuesPerToken(c);
        cached && c.architecture == engine::Architecture::DecoderOnly)
        facts << ModelPanel::tr("K/V cache %1 per token in 16-bit floats")
                     .arg(render::displayed(
                         lesson::formatBytes(static_cast<std::uint64_t>(cached) * 2)));
    if (c.positional == engine::PositionalKind::Rotary)
        facts << (c.ropeScaling
                      ? ModelPanel::tr("rotary positions, θ = %1, %2 scaling ×%3")
                            .arg(c.ropeTheta)
                            .arg(QString::fromLatin1(engine::ropeScalingName(c.ropeScaling->kind)))
                            .arg(c.ropeScaling->factor)
                      : ModelPanel::tr("rotary positions, θ = %1").arg(c.ropeTheta));
    if (c.slidingWindow) {
        const auto windowed = std::ranges::count(c.slidingWindowLayers, true);
        facts << (c.slidingWindowLayers.empty()
                      ? ModelPanel::tr("a sliding window of %1 tokens").arg(*c.slidingWindow)
                      : ModelPanel::tr("a sliding window of %1 tokens on %2 of %3 layers")
                            .arg(*c.slidingWindow)
                            .arg(windowed)
                            .arg(c.decoderLayers));
    }
    if (c.image)
        facts << (!c.image->distillationToken
                      ? ModelPanel::tr(
                            "reads %1 × %2 pictures cut into %3 patches of %4 × %4 pixels, "
                            "after a [CLS] token")
                      : ModelPanel::tr(
                            "reads %1 × %2 pictures cut into %3 patches of %4 × %4 pixels, "
                            "after a [CLS] and a [DIST] token"))
                     .arg(c.image->height)
                     .arg(c.image->width)
                     .arg(c.image->patches())
                     .arg(c.image->patchSize);
    return facts.isEmpty() ? QString() : QStringLiteral("<br>") + facts.join(QStringLiteral("; "));
}

} // namespace

QString blockTitle(engine::Block block)
{
    switch (block) {
    case engine::Block::Self:
        return ModelPanel::tr("self-attention");
    case engine::Block::MaskedSelf:
        return ModelPanel::tr("masked self-attention");
    case engine::Block::Cross:
        return ModelPanel::tr("cross-attention");
    default:
        return {};
    }
}

ModelPanel::ModelPanel(QWidget* parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ModelPanel>())
{
    m_ui->setupUi(this);
    // The bounds a lesson file is read against, so that a lesson is never cut to fit a field.
    m_ui->text->setMaxLength(lesson::kMaxModelTextLength);
    m_ui->target->setMaxLength(lesson::kMaxModelTextLength);
    m_ui->picture->setMaxLength(lesson::kMaxPicturePathLength);
    m_ui->generate->setMaximum(lesson::kMaxGenerate);
    m_ui->source->addItem(tr("Random-weights playground"), QString());
    for (const std::string& name : io::builtInModelNames())
        m_ui->source->addItem(tr("Demo: %1").arg(QString::fromStdString(name)),
                              QString::fromStdString(name));
    m_ui->source->addItem(tr("Open model folder…"), kOpenFolder);
    m_ui->source->addItem(tr("Open attention weights file…"), kOpenAttentions);

    connect(m_ui->source, &QComboBox::activated, this, [this](int index) {
        if (const std::optional<int> chosen = chosenSource(index)) {
            m_ablation = {}; // another model (or the same one reopened) starts with every head on
            sourceActivated(*chosen);
        }
    });
    // An edit asks for something new: a notice about what happened before has had its say.
    const auto edited = [this] {
        m_notice.clear();
        emitRequest();
    };
    connect(m_ui->text, &QLineEdit::editingFinished, this, edited);
    connect(m_ui->target, &QLineEdit::editingFinished, this, edited);
    connect(m_ui->picture, &QLineEdit::editingFinished, this, edited);
    connect(m_ui->choosePicture, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Choose a picture for the Vision Transformer"),
            QFileInfo(m_ui->picture->text()).absolutePath(), tr("Pictures (*.png *.jpg *.jpeg)"));
        if (!path.isEmpty())
            setPicture(path);
    });
    connect(m_ui->generate, &QSpinBox::valueChanged, this, edited);
    connect(m_ui->layer, &QComboBox::currentIndexChanged, this, [this] {
        if (m_filling)
            return;
        fillBlocks();
        emit choiceChanged(choice());
    });
    const auto choiceEdited = [this] {
        if (!m_filling)
            emit choiceChanged(choice());
    };
    connect(m_ui->block, &QComboBox::currentIndexChanged, this, choiceEdited);
    connect(m_ui->decodingStep, &QSpinBox::valueChanged, this, choiceEdited);
    connect(m_ui->overview, &QPushButton::toggled, this, &ModelPanel::overviewToggled);
    connect(m_ui->cancel, &QPushButton::clicked, this, &ModelPanel::cancelRequested);
    hideProgress();
    sourceActivated(0);
}

ModelPanel::~ModelPanel() = default;

void ModelPanel::showProgress(int done, int total)
{
    m_ui->progressRow->setVisible(true);
    // A busy bar while the folder loads; layers computed once the model runs.
    m_ui->progress->setRange(0, total);
    m_ui->progress->setValue(done);
    m_ui->progress->setFormat(total ? tr("layer %v of %m") : tr("loading…"));
}

void ModelPanel::hideProgress()
{
    m_ui->progressRow->setVisible(false);
}

bool ModelPanel::playground() const
{
    return m_ui->source->currentData().toString().isEmpty();
}

lesson::ModelSource ModelPanel::request() const
{
    lesson::ModelSource r;
    r.folder = m_ui->source->currentData().toString().toStdString();
    r.text = m_ui->text->text().toStdString();
    if (!m_ui->target->isHidden() && !m_ui->target->text().isEmpty())
        r.target = m_ui->target->text().toStdString();
    r.generate = m_ui->generate->isHidden() ? 0 : m_ui->generate->value();
    if (!m_ui->pictureRow->isHidden())
        r.image = m_ui->picture->text().toStdString();
    r.ablation = m_ablation;
    return r;
}

lesson::BlockChoice ModelPanel::choice() const
{
    lesson::BlockChoice c;
    c.layer = std::max(0, m_ui->layer->currentIndex());
    c.block = static_cast<engine::Block>(m_ui->block->currentData().toInt());
    c.decodingStep = m_ui->decodingStep->value() - 1;
    return c;
}

void ModelPanel::setRequest(const lesson::ModelSource& request)
{
    const QString folder = QString::fromStdString(request.folder);
    int index = m_ui->source->findData(folder);
    if (index < 0) {
        index = m_ui->source->findData(kOpenFolder);
        // cleanPath: "models/gpt2/" is listed as "gpt2", not as an empty entry.
        m_ui->source->insertItem(index, shownFileName(folder), folder);
    }
    m_ui->source->setCurrentIndex(index);
    {
        const QSignalBlocker blockGenerate(m_ui->generate);
        m_ablation = request.ablation;
        m_ui->text->setText(QString::fromStdString(request.text));
        m_ui->target->setText(QString::fromStdString(request.target.value_or(std::string())));
        m_ui->generate->setValue(request.generate);
        m_ui->picture->setText(QString::fromStdString(request.image));
    }
    sourceActivated(index);
}

std::optional<int> ModelPanel::chosenSource(int index)
{
    const QString choice = m_ui->source->itemData(index).toString();
    if (choice != kOpenFolder && choice != kOpenAttentions)
        return index;
    const QString path = choice == kOpenFolder
        ? QFileDialog::getExistingDirectory(this,
                                            tr("Open a model folder (AttnViz's own, or Hugging "
                                               "Face GPT-2, BERT, Llama, Mistral or Qwen2)"))
        : QFileDialog::getOpenFileName(this, tr("Open attention weights computed elsewhere"),
                                       QString(), tr("Attention weights (*.safetensors)"));
    if (path.isEmpty()) {
        // Cancelled: what is shown stays, and the list names it again.
        m_ui->source->setCurrentIndex(
            m_shownSource.isEmpty() ? 0 : std::max(m_ui->source->findData(m_shownSource), 0));
        return std::nullopt;
    }
    int at = m_ui->source->findData(path); // opened before: not listed twice
    if (at < 0) {
        at = m_ui->source->findData(kOpenFolder);
        m_ui->source->insertItem(at, shownFileName(path), path);
    }
    m_ui->source->setCurrentIndex(at);
    return at;
}

void ModelPanel::sourceActivated(int index)
{
    const QString folder = m_ui->source->itemData(index).toString();
    m_shownSource = folder;
    // Whatever the panel said about the source before belongs to that source.
    m_notice.clear();
    showProblem({});
    m_ui->output->clear();
    showSourceWidgets(folder);
    if (folder.isEmpty()) {
        m_ui->overview->setChecked(false);
        emit playgroundChosen();
        return;
    }
    m_ui->description->setText(tr("Loading…"));
    emitRequest();
}

void ModelPanel::setHeadSwitchedOff(const engine::Ablation::Head& head, bool off)
{
    auto& heads = m_ablation.heads;
    const auto at = std::find(heads.begin(), heads.end(), head);
    if (off == (at != heads.end()))
        return;
    if (off)
        heads.push_back(head);
    else
        heads.erase(at);
    emitRequest();
}

bool ModelPanel::setPicture(const QString& path)
{
    if (m_ui->pictureRow->isHidden())
        return false;
    m_ui->picture->setText(path);
    m_notice.clear();
    emitRequest();
    return true;
}

void ModelPanel::switchAllHeadsOn()
{
    if (m_ablation.empty())
        return;
    m_ablation = {};
    emitRequest();
}

void ModelPanel::showSourceWidgets(const QString& folder)
{
    const bool isModel = !folder.isEmpty();
    for (QWidget* w :
         {static_cast<QWidget*>(m_ui->description), static_cast<QWidget*>(m_ui->textLabel),
          static_cast<QWidget*>(m_ui->text), static_cast<QWidget*>(m_ui->output),
          static_cast<QWidget*>(m_ui->problem), static_cast<QWidget*>(m_ui->layerLabel),
          static_cast<QWidget*>(m_ui->layer), static_cast<QWidget*>(m_ui->blockLabel),
          static_cast<QWidget*>(m_ui->block), static_cast<QWidget*>(m_ui->overview),
          static_cast<QWidget*>(m_ui->countingNote)})
        w->setVisible(isModel);
    for (QWidget* w :
         {static_cast<QWidget*>(m_ui->targetLabel), static_cast<QWidget*>(m_ui->target),
          static_cast<QWidget*>(m_ui->generateLabel), static_cast<QWidget*>(m_ui->generate),
          static_cast<QWidget*>(m_ui->pictureLabel), static_cast<QWidget*>(m_ui->pictureRow),
          static_cast<QWidget*>(m_ui->decodingLabel), static_cast<QWidget*>(m_ui->decodingStep)})
        w->setVisible(false);
    // An import's tokens come with its weights: there is no text to type.
    m_ui->textLabel->setVisible(isModel && !isImport(folder));
    m_ui->text->setVisible(isModel && !isImport(folder));
}

void ModelPanel::emitRequest()
{
    if (!playground())
        emit requestChanged(request());
}

void ModelPanel::setNotice(const QString& notice)
{
    m_notice = notice;
    showProblem(m_error);
}

void ModelPanel::showProblem(const QString& error)
{
    m_error = error;
    QStringList lines;
    for (const QString& line : {m_notice, error})
        if (!line.isEmpty() && !lines.contains(line))
            lines << line;
    m_ui->problem->setText(lines.join(QLatin1Char('\n')));
    // A notice is shown in the playground too (a folder that did not open from there).
    if (!lines.isEmpty())
        m_ui->problem->setVisible(true);
}

bool ModelPanel::forgetSource(const QString& folder)
{
    const int index = m_ui->source->findData(folder);
    if (index < 0 || folder.isEmpty() || folder == kOpenFolder || folder == kOpenAttentions)
        return false;
    for (const std::string& name : io::builtInModelNames())
        if (folder == QString::fromStdString(name))
            return false;
    m_ui->source->removeItem(index);
    return true;
}

void ModelPanel::restore(const ModelResult& shown)
{
    const QString folder = QString::fromStdString(shown.request.folder);
    const int index = m_ui->source->findData(folder);
    if (folder.isEmpty() || index < 0) {
        m_ui->source->setCurrentIndex(0);
        sourceActivated(0);
        return;
    }
    {
        const QSignalBlocker blockGenerate(m_ui->generate);
        m_ui->source->setCurrentIndex(index);
        m_ui->text->setText(QString::fromStdString(shown.request.text));
        m_ui->target->setText(QString::fromStdString(shown.request.target.value_or(std::string())));
        m_ui->generate->setValue(shown.request.generate);
        m_ui->picture->setText(QString::fromStdString(shown.request.image));
        m_ablation = shown.request.ablation;
    }
    m_notice.clear();
    showSourceWidgets(folder);
    showResult(shown);
}

void ModelPanel::clearRun()
{
    m_run.reset();
    m_filling = true;
    m_ui->layer->clear();
    m_ui->block->clear();
    m_filling = false;
    m_ui->decodingLabel->setVisible(false);
    m_ui->decodingStep->setVisible(false);
    m_ui->overview->setChecked(false);
    m_ui->overview->setEnabled(false);
}

void ModelPanel::showResult(const ModelResult& result)
{
    // Nothing the panel showed for an earlier run may stay beside this one: not its output, nor
    // its layers when this one did not run.
    m_ui->output->clear();
    if (!result.model) {
        m_ui->description->clear();
        clearRun();
        showProblem(result.error);
        return;
    }
    // An import has no model, only the sizes its run implies.
    const engine::ModelConfig& c = result.run ? result.run->config : result.model->model->config();
    if (!result.model->model) {
        m_ui->description->setText(
            tr("<b>%1</b> — attention weights computed elsewhere: %2, %3, %4. Only the softmax "
               "step has data.")
                .arg(QString::fromStdString(c.name).toHtmlEscaped(), layerCount(c.layerCount()),
                     headCount(c.numHeads),
                     tr("%n token(s)", nullptr,
                        static_cast<int>(
                            result.run->trace
                                ->queryIds(result.run->trace->attentionBlocks(0).front())
                                .size()))));
        showProblem({});
        m_run = result.run;
        m_ui->overview->setEnabled(true);
        m_filling = true;
        m_ui->decodingStep->setValue(0); // an import has no decoding steps
        m_ui->layer->clear();
        for (int L = 0; L < m_run->trace->layerCount(); ++L)
            m_ui->layer->addItem(tr("layer %1").arg(L), L);
        fillBlocks();
        m_filling = false;
        emit choiceChanged(choice());
        return;
    }
    const lesson::ModelParameters parameters = lesson::modelParameters(*result.model->model);
    QStringList perLayer;
    for (const auto* stack : {&parameters.encoderLayers, &parameters.decoderLayers})
        if (!stack->empty())
            perLayer << QString::fromStdString(lesson::groupedNumber(stack->front()));
    // Encoder–decoder models have a count for each stack; the others, one.
    const QString perLayerText = perLayer.size() > 1
        ? tr("%1 encoder, %2 decoder").arg(perLayer[0], perLayer[1])
        : perLayer.value(0);
    m_ui->description->setText(
        tr("<b>%1</b> — %2 %3, %4, %5, d_model %6, %7, %8; %9 parameters "
           "(per layer: %10).<br>%11")
            .arg(QString::fromStdString(c.name).toHtmlEscaped(),
                 render::displayed(engine::architectureName(c.architecture)), tr("Transformer"),
                 layerCount(c.layerCount()), headCount(c.numHeads))
            .arg(c.modelWidth)
            .arg(render::displayed(std::string(engine::normName(c.norm)) + "-norm"),
                 QString::fromLatin1(engine::activationName(c.activation)),
                 QString::fromStdString(lesson::groupedNumber(parameters.total())), perLayerText,
                 render::localisedModelDescription(c.description).toHtmlEscaped()) +
        attentionFacts(c));
    const bool encDec = c.architecture == engine::Architecture::EncoderDecoder;
    const bool decOnly = c.architecture == engine::Architecture::DecoderOnly;
    m_ui->targetLabel->setVisible(encDec);
    m_ui->target->setVisible(encDec);
    m_ui->generateLabel->setVisible(decOnly);
    m_ui->generate->setVisible(decOnly);
    // A Vision Transformer reads a picture instead of text: the bundled examples give it one.
    const bool picture = c.image.has_value();
    m_ui->pictureLabel->setVisible(picture);
    m_ui->pictureRow->setVisible(picture);
    m_ui->textLabel->setVisible(!picture);
    m_ui->text->setVisible(!picture);
    if (picture && m_ui->picture->text().isEmpty())
        m_ui->picture->setText(QString::fromStdString(lesson::examplePicture(*result.model)));
    if (m_ui->text->text().isEmpty() && !c.exampleText.empty())
        m_ui->text->setText(QString::fromStdString(c.exampleText));
    // The target and continuation fields count only once the model says it has them: run again
    // when showing them changed what to run.
    if (request() != result.request) {
        emitRequest();
        return;
    }
    showProblem(result.error);
    if (!result.run) {
        clearRun();
        return;
    }
    m_run = result.run;
    m_ui->overview->setEnabled(true);

    m_filling = true;
    const int layer = m_ui->layer->currentIndex();
    m_ui->layer->clear();
    for (int L = 0; L < m_run->trace->layerCount(); ++L)
        m_ui->layer->addItem(tr("layer %1").arg(L), L);
    m_ui->layer->setCurrentIndex(
        layer >= 0 && layer < m_ui->layer->count() ? layer : m_ui->layer->count() - 1);
    fillBlocks();
    const int steps = static_cast<int>(m_run->decoding.size());
    m_ui->decodingLabel->setVisible(steps > 0);
    m_ui->decodingStep->setVisible(steps > 0);
    m_ui->decodingStep->setMaximum(steps);
    m_ui->decodingStep->setSuffix(tr(" of %1").arg(steps));
    if (m_ui->decodingStep->value() > steps)
        m_ui->decodingStep->setValue(0);
    m_filling = false;

    QStringList lines;
    QStringList classes;
    for (const lesson::ClassScore& k : lesson::topClasses(*m_run->trace, m_run->config, 3))
        classes << tr("%1 %2 %")
                       .arg(QString::fromStdString(k.label).toHtmlEscaped())
                       .arg(100 * k.probability, 0, 'f', 1);
    if (!classes.isEmpty())
        lines << tr("Classified as: <b>%1</b>").arg(classes.join(QStringLiteral(", ")));
    if (!m_run->decoding.empty())
        lines << tr("Output: <b>%1</b> (greedy decoding, %n steps)", nullptr,
                    static_cast<int>(m_run->decoding.size()))
                     .arg(QString::fromStdString(m_run->generated).toHtmlEscaped());
    // Which heads this run went without, wherever they are: the step panel names only its block's.
    QStringList off;
    for (const engine::Ablation::Head& h : m_run->request.ablation.heads)
        off << tr("layer %1 · %2 · head %3").arg(h.layer).arg(blockTitle(h.block)).arg(h.head);
    if (!off.isEmpty())
        lines << tr("Heads switched off: %1")
                     .arg(off.join(tr("; ", "between the heads switched off")))
                     .toHtmlEscaped();
    m_ui->output->setText(lines.join(QStringLiteral("<br>")));
    emit choiceChanged(choice());
}

void ModelPanel::fillBlocks()
{
    if (!m_run)
        return;
    const bool wasFilling = m_filling;
    m_filling = true;
    const QVariant previous = m_ui->block->currentData();
    m_ui->block->clear();
    for (const engine::Block b :
         m_run->trace->attentionBlocks(std::max(0, m_ui->layer->currentIndex()))) {
        // The short title fits the panel at 1280 × 720; the name the CLI and the trace files
        // use is in the item's tooltip.
        m_ui->block->addItem(blockTitle(b), static_cast<int>(b));
        m_ui->block->setItemData(m_ui->block->count() - 1,
                                 tr("%1 — called \"%2\" by attnviz-cli and in trace files")
                                     .arg(blockTitle(b), QString::fromLatin1(engine::blockName(b))),
                                 Qt::ToolTipRole);
    }
    const int keep = m_ui->block->findData(previous);
    // A new model opens on its most telling block: cross-attention when there is one.
    m_ui->block->setCurrentIndex(keep >= 0 ? keep : m_ui->block->count() - 1);
    m_filling = wasFilling;
}

void ModelPanel::leaveOverview()
{
    m_ui->overview->setChecked(false);
}

void ModelPanel::setChoice(const lesson::BlockChoice& c)
{
    m_filling = true;
    m_ui->layer->setCurrentIndex(c.layer);
    if (m_ui->decodingStep->isVisibleTo(this))
        m_ui->decodingStep->setValue(c.decodingStep + 1); // clamped to the run's steps
    fillBlocks();
    const int index = m_ui->block->findData(static_cast<int>(c.block));
    if (index >= 0)
        m_ui->block->setCurrentIndex(index);
    m_filling = false;
    emit choiceChanged(choice());
}

} // namespace attnviz::app
