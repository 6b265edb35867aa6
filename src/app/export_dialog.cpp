#include "app/export_dialog.h"

#include "render/colour_map.h"

#include "ui_export_dialog.h"

#include <QSettings>

#include <algorithm>

namespace attnviz::app {
namespace {

QString latin(std::string_view text)
{
    return QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()));
}

// Selects the item whose data is `value`, if there is one.
void choose(QComboBox* box, const QVariant& value)
{
    const int at = box->findData(value);
    if (at >= 0)
        box->setCurrentIndex(at);
}

} // namespace

ExportDialog::ExportDialog(QWidget* parent, std::initializer_list<render::ExportKind> kinds)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ExportDialog>())
{
    m_ui->setupUi(this);
    for (const render::ExportFormat& f : render::exportFormats())
        if (std::find(kinds.begin(), kinds.end(), f.kind) != kinds.end())
            m_ui->format->addItem(latin(f.name).toUpper(), latin(f.name));
    for (const render::ColourMap& m : render::colourMaps())
        if (!m.diverging)
            m_ui->colourMap->addItem(latin(m.name), latin(m.name));
    m_ui->labels->addItem(tr("As many as fit"), QStringLiteral("auto"));
    m_ui->labels->addItem(tr("Every one"), QStringLiteral("all"));
    m_ui->labels->addItem(tr("None"), QStringLiteral("none"));

    const QSettings settings;
    choose(m_ui->format, settings.value(QStringLiteral("export/format")));
    m_ui->width->setValue(settings.value(QStringLiteral("export/width"), 900).toInt());
    m_ui->height->setValue(settings.value(QStringLiteral("export/height"), 800).toInt());
    m_ui->dpi->setValue(settings.value(QStringLiteral("export/dpi"), 96).toInt());
    choose(m_ui->colourMap, settings.value(QStringLiteral("export/colourMap")));
    choose(m_ui->labels, settings.value(QStringLiteral("export/labels")));
    m_ui->headFrame->setChecked(settings.value(QStringLiteral("export/headFrame"), true).toBool());
    m_ui->spaceMarks->setChecked(
        settings.value(QStringLiteral("export/spaceMarks"), true).toBool());
    m_ui->transparent->setChecked(
        settings.value(QStringLiteral("export/transparent"), false).toBool());
}

ExportDialog::~ExportDialog() = default;

const render::ExportFormat& ExportDialog::format() const
{
    return *render::exportFormat(m_ui->format->currentData().toString().toStdString());
}

render::FigureOptions ExportDialog::figure() const
{
    render::FigureOptions figure;
    figure.size = {m_ui->width->value(), m_ui->height->value(), m_ui->dpi->value()};
    if (const render::ColourMap* map =
            render::colourMap(m_ui->colourMap->currentData().toString().toStdString()))
        figure.colouring.sequential = map;
    const QString labels = m_ui->labels->currentData().toString();
    figure.labels = labels == QLatin1String("all")    ? render::LabelMode::All
        : labels == QLatin1String("none")             ? render::LabelMode::None
                                                      : render::LabelMode::Auto;
    figure.headFrame = m_ui->headFrame->isChecked();
    figure.spaceMarks = m_ui->spaceMarks->isChecked();
    figure.transparent = m_ui->transparent->isChecked();
    return figure;
}

void ExportDialog::accept()
{
    QSettings settings;
    settings.setValue(QStringLiteral("export/format"), m_ui->format->currentData());
    settings.setValue(QStringLiteral("export/width"), m_ui->width->value());
    settings.setValue(QStringLiteral("export/height"), m_ui->height->value());
    settings.setValue(QStringLiteral("export/dpi"), m_ui->dpi->value());
    settings.setValue(QStringLiteral("export/colourMap"), m_ui->colourMap->currentData());
    settings.setValue(QStringLiteral("export/labels"), m_ui->labels->currentData());
    settings.setValue(QStringLiteral("export/headFrame"), m_ui->headFrame->isChecked());
    settings.setValue(QStringLiteral("export/spaceMarks"), m_ui->spaceMarks->isChecked());
    settings.setValue(QStringLiteral("export/transparent"), m_ui->transparent->isChecked());
    QDialog::accept();
}

} // namespace attnviz::app
