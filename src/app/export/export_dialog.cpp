#include "app/export/export_dialog.h"

#include "render/colour_map.h"

#include "ui_export_dialog.h"

#include <QPushButton>
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
    m_ui->rangeMode->addItem(tr("Shared by the step"), QStringLiteral("step"));
    m_ui->rangeMode->addItem(tr("Each map its own"), QStringLiteral("map"));
    m_ui->rangeMode->addItem(tr("Fixed"), QStringLiteral("fixed"));
    m_ui->scale->addItem(tr("Linear"), QStringLiteral("linear"));
    m_ui->scale->addItem(tr("Logarithmic"), QStringLiteral("log"));
    m_ui->scale->addItem(tr("Square root (power 0.5)"), QStringLiteral("power"));
    // A fixed range needs "from" below "to": OK waits for it, saying why (attnviz-cli's
    // sentence), so no file dialog opens for a figure that cannot be drawn.
    const auto fixedRange = [this] {
        const bool fixed = m_ui->rangeMode->currentData().toString() == QLatin1String("fixed");
        m_ui->vmin->setEnabled(fixed);
        m_ui->vmax->setEnabled(fixed);
        const bool empty = fixed && !(m_ui->vmin->value() < m_ui->vmax->value());
        QPushButton* ok = m_ui->buttons->button(QDialogButtonBox::Ok);
        ok->setEnabled(!empty);
        ok->setToolTip(empty ? tr("The colour range is empty: “from” must be below “to”.")
                             : QString());
    };
    connect(m_ui->rangeMode, &QComboBox::currentIndexChanged, this, fixedRange);
    connect(m_ui->vmin, &QDoubleSpinBox::valueChanged, this, fixedRange);
    connect(m_ui->vmax, &QDoubleSpinBox::valueChanged, this, fixedRange);
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
    choose(m_ui->rangeMode, settings.value(QStringLiteral("export/range")));
    m_ui->vmin->setValue(settings.value(QStringLiteral("export/vmin"), 0.0).toDouble());
    m_ui->vmax->setValue(settings.value(QStringLiteral("export/vmax"), 1.0).toDouble());
    choose(m_ui->scale, settings.value(QStringLiteral("export/scale")));
    fixedRange();
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
    figure.labels = labels == QLatin1String("all") ? render::LabelMode::All
        : labels == QLatin1String("none")          ? render::LabelMode::None
                                                   : render::LabelMode::Auto;
    const lesson::ScaleChoice chosen = scale();
    figure.colouring.stretch = chosen.stretch;
    figure.colouring.gamma = chosen.gamma;
    figure.headFrame = m_ui->headFrame->isChecked();
    figure.spaceMarks = m_ui->spaceMarks->isChecked();
    figure.transparent = m_ui->transparent->isChecked();
    return figure;
}

lesson::ScaleChoice ExportDialog::scale() const
{
    lesson::ScaleChoice scale;
    const QString mode = m_ui->rangeMode->currentData().toString();
    if (mode == QLatin1String("map")) {
        scale.mode = lesson::RangeMode::PerMap;
    } else if (mode == QLatin1String("fixed")) {
        scale.mode = lesson::RangeMode::Fixed;
        scale.low = m_ui->vmin->value();
        scale.high = m_ui->vmax->value();
    }
    const QString stretch = m_ui->scale->currentData().toString();
    scale.stretch = stretch == QLatin1String("log") ? lesson::Stretch::Log
        : stretch == QLatin1String("power")         ? lesson::Stretch::Power
                                                    : lesson::Stretch::Linear;
    return scale;
}

void ExportDialog::accept()
{
    if (!m_ui->buttons->button(QDialogButtonBox::Ok)->isEnabled())
        return; // an empty fixed range (the button says why)
    QSettings settings;
    settings.setValue(QStringLiteral("export/format"), m_ui->format->currentData());
    settings.setValue(QStringLiteral("export/width"), m_ui->width->value());
    settings.setValue(QStringLiteral("export/height"), m_ui->height->value());
    settings.setValue(QStringLiteral("export/dpi"), m_ui->dpi->value());
    settings.setValue(QStringLiteral("export/colourMap"), m_ui->colourMap->currentData());
    settings.setValue(QStringLiteral("export/labels"), m_ui->labels->currentData());
    settings.setValue(QStringLiteral("export/range"), m_ui->rangeMode->currentData());
    settings.setValue(QStringLiteral("export/vmin"), m_ui->vmin->value());
    settings.setValue(QStringLiteral("export/vmax"), m_ui->vmax->value());
    settings.setValue(QStringLiteral("export/scale"), m_ui->scale->currentData());
    settings.setValue(QStringLiteral("export/headFrame"), m_ui->headFrame->isChecked());
    settings.setValue(QStringLiteral("export/spaceMarks"), m_ui->spaceMarks->isChecked());
    settings.setValue(QStringLiteral("export/transparent"), m_ui->transparent->isChecked());
    QDialog::accept();
}

} // namespace attnviz::app
