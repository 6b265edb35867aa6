#include "app/experiments/picture_attention_dialog.h"

#include "app/export/map_export.h"
#include "app/window/session.h"
#include "lesson/image_classes.h"
#include "lesson/picture_attention.h"
#include "render/text_resource.h"
#include "ui_picture_attention_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include <stdexcept>

namespace attnviz::app {
namespace {

// Exports are drawn at twice the screen's scale: 1200 × 1040 pixels at 192 dpi.
render::FigureOptions exportOptions()
{
    render::FigureOptions figure;
    figure.size = {1200, 1040, 192};
    return figure;
}

} // namespace

PictureAttentionDialog::PictureAttentionDialog(QWidget* parent)
    : ExperimentDialog(parent)
    , m_ui(std::make_unique<Ui::PictureAttentionDialog>())
{
    m_ui->setupUi(this);
    m_ui->explanation->setText(
        render::readTextResource({QStringLiteral(":/experiments/picture_attention.txt")}).body);
    m_ui->source->addItem(tr("one layer's weights"),
                          static_cast<int>(lesson::PictureSource::Weights));
    m_ui->source->addItem(tr("rollout of every layer"),
                          static_cast<int>(lesson::PictureSource::Rollout));
    for (const render::ColourMap& map : render::colourMaps())
        if (!map.diverging)
            m_ui->colourMap->addItem(
                QString::fromLatin1(map.name.data(), static_cast<qsizetype>(map.name.size())));
    for (QComboBox* box : {m_ui->source, m_ui->layer, m_ui->head, m_ui->query, m_ui->colourMap})
        connect(box, &QComboBox::currentIndexChanged, this, &PictureAttentionDialog::redraw);
    connect(m_ui->opacity, &QSlider::valueChanged, this, &PictureAttentionDialog::redraw);
    connect(m_ui->picture, &PictureView::patchClicked, this, &PictureAttentionDialog::choosePatch);
    connect(m_ui->exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the attention on the picture"),
            QStringLiteral("attention_on_picture.png"),
            tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (path.isEmpty())
            return;
        try {
            exportTo(path);
        } catch (const std::exception& e) {
            QMessageBox::warning(this, tr("Export"), QString::fromStdString(e.what()));
        }
    });
    redraw();
}

PictureAttentionDialog::~PictureAttentionDialog() = default;

const std::optional<render::PictureOverlay>& PictureAttentionDialog::overlay() const
{
    return m_ui->picture->overlay();
}

void PictureAttentionDialog::follow(const Session& session)
{
    const std::shared_ptr<const lesson::ModelRun> run = session.run();
    if (run == m_run)
        return;
    const bool sameModel = run && m_run && run->model == m_run->model;
    m_run = run;
    if (!sameModel)
        fillChoices();
    redraw();
}

void PictureAttentionDialog::fillChoices()
{
    const QSignalBlocker blockLayer(m_ui->layer), blockHead(m_ui->head), blockQuery(m_ui->query);
    m_ui->layer->clear();
    m_ui->head->clear();
    m_ui->query->clear();
    if (!m_run || !m_run->config.image)
        return;
    for (int L = 0; L < m_run->config.encoderLayers; ++L)
        m_ui->layer->addItem(tr("layer %1").arg(L), L);
    // The last layer first: it is the one the classifier reads.
    m_ui->layer->setCurrentIndex(m_ui->layer->count() - 1);
    m_ui->head->addItem(tr("mean of the heads"), -1);
    for (int h = 0; h < m_run->config.numHeads; ++h)
        m_ui->head->addItem(tr("head %1").arg(h), h);
    const engine::ImageInput& image = *m_run->config.image;
    for (int t = 0; t < image.extraTokens(); ++t)
        m_ui->query->addItem(QString::fromStdString(lesson::pictureTokenName(image, t)), t);
}

void PictureAttentionDialog::choosePatch(int patch)
{
    if (!m_run || !m_run->config.image)
        return;
    const engine::ImageInput& image = *m_run->config.image;
    const int token = image.extraTokens() + patch;
    // One entry stands for the patch clicked last.
    if (m_ui->query->count() > image.extraTokens())
        m_ui->query->removeItem(image.extraTokens());
    m_ui->query->addItem(
        tr("patch %1").arg(QString::fromStdString(lesson::pictureTokenName(image, token))), token);
    m_ui->query->setCurrentIndex(m_ui->query->count() - 1);
}

void PictureAttentionDialog::redraw()
{
    const bool rollout =
        m_ui->source->currentData().toInt() == static_cast<int>(lesson::PictureSource::Rollout);
    m_ui->layer->setEnabled(!rollout);
    m_ui->head->setEnabled(!rollout);
    m_ui->exportButton->setEnabled(false);
    if (!m_run || !m_run->config.image || !m_run->picture) {
        m_ui->picture->setOverlay(std::nullopt);
        m_ui->classes->setText(
            tr("Open a Vision Transformer (the demo shapes, or a Hugging Face ViT or DeiT folder) "
               "and choose a picture: its attention is drawn over the picture here."));
        return;
    }
    lesson::PictureQuery query;
    query.source = rollout ? lesson::PictureSource::Rollout : lesson::PictureSource::Weights;
    query.layer = m_ui->layer->currentData().toInt();
    query.head = m_ui->head->currentData().toInt();
    query.token = m_ui->query->currentData().toInt();
    const engine::ImageInput& image = *m_run->config.image;
    try {
        render::PictureOverlay o;
        o.picture = render::pictureImage(*m_run->picture);
        o.attention = lesson::pictureAttention(*m_run->trace, m_run->config, query);
        o.colourMap = render::colourMap(m_ui->colourMap->currentText().toStdString());
        o.opacity = m_ui->opacity->value() / 100.0;
        o.queryPatch = query.token >= image.extraTokens() ? query.token - image.extraTokens() : -1;
        const QString from = m_ui->query->currentText();
        o.title = rollout
            ? tr("Rollout of %n layer(s), heads fused by their mean, from %1", nullptr,
                 m_run->config.encoderLayers)
                  .arg(from)
            : (query.head < 0
                   ? tr("Layer %1, mean of %2 heads, from %3")
                         .arg(query.layer)
                         .arg(m_run->config.numHeads)
                         .arg(from)
                   : tr("Layer %1, head %2, from %3").arg(query.layer).arg(query.head).arg(from));
        o.firstTokensNote =
            tr("%1 % of this row is on %2, outside the picture; the colours spread the rest from 0 "
               "to its largest patch (%3).")
                .arg(100 * o.attention.onFirstTokens, 0, 'f', 1)
                .arg(image.distillationToken ? tr("[CLS] and [DIST]") : QStringLiteral("[CLS]"))
                .arg(o.range().second, 0, 'g', 3);
        m_ui->picture->setOverlay(std::move(o));
        m_ui->exportButton->setEnabled(true);
    } catch (const std::exception& e) {
        m_ui->picture->setOverlay(std::nullopt);
        m_ui->classes->setText(QString::fromStdString(e.what()));
        return;
    }
    QString classes =
        tr("<b>The classifier's five most probable classes</b>") + QStringLiteral("<table>");
    const std::vector<lesson::ClassScore> top = lesson::topClasses(*m_run->trace, m_run->config, 5);
    for (const lesson::ClassScore& k : top)
        classes += QStringLiteral("<tr><td>%1</td><td align=\"right\">&nbsp;%2 %</td></tr>")
                       .arg(QString::fromStdString(k.label).toHtmlEscaped())
                       .arg(100 * k.probability, 0, 'f', 1);
    classes += QStringLiteral("</table>");
    if (top.empty())
        classes = tr("This model has no classifier: it gives the patches' features only.");
    m_ui->classes->setText(classes);
}

void PictureAttentionDialog::exportTo(const QString& path) const
{
    const std::optional<render::PictureOverlay>& o = overlay();
    if (!o)
        throw std::runtime_error(tr("There is no attention on a picture to export.").toStdString());
    const QString ext = QFileInfo(path).suffix();
    const std::optional<render::ImageFormat> format =
        render::imageFormatOfExtension(ext.toStdString());
    if (!format)
        throw std::runtime_error(
            tr("Cannot export to '.%1'; use .png, .svg or .pdf.").arg(ext).toStdString());
    render::FigureOptions figure = exportOptions();
    figure.colouring.sequential = o->colourMap;
    figure.description = o->firstTokensNote;
    writeExportFile(path, render::renderPictureOverlay(*o, *format, figure));
}

} // namespace attnviz::app
