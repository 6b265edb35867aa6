#include "app/dialogs/preferences_dialog.h"

#include "lesson/memory_budget.h"
#include "ui_preferences_dialog.h"

#include <QPushButton>

namespace attnviz::app {
namespace {

QString bytesText(std::uint64_t bytes)
{
    return QString::fromStdString(lesson::formatBytes(bytes));
}

} // namespace

PreferencesDialog::PreferencesDialog(const Preferences& current, QWidget* parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::PreferencesDialog>())
    , m_preferences(current)
{
    m_ui->setupUi(this);
    if (current.memoryLimit)
        m_ui->memoryLimit->setText(bytesText(*current.memoryLimit).remove(QLatin1Char(' ')));
    // What "empty" means on this machine now, so the choice is an informed one.
    const lesson::MemoryBudget machine = lesson::MemoryBudget::forThisMachine();
    // The sentence is built here from the numbers: lesson::MemoryBudget::source is English for
    // the CLI's messages, and put in brackets it nested one pair inside another.
    const std::optional<std::uint64_t> available = lesson::availableMemoryBytes();
    const QString refused = tr("Model runs that would need more are refused before they start.");
    m_ui->memoryHint->setText(
        available ? tr("%1 Without a limit of your own, runs may take up to %2 now: 80 % of the "
                       "%3 this machine has available.")
                        .arg(refused, bytesText(machine.limit), bytesText(*available))
                  : tr("%1 Without a limit of your own, runs may take up to %2: this system does "
                       "not say how much memory is free, so that is a fixed guess.")
                        .arg(refused, bytesText(machine.limit)));
    connect(m_ui->memoryLimit, &QLineEdit::textChanged, this, &PreferencesDialog::readFields);
    readFields();
}

PreferencesDialog::~PreferencesDialog() = default;

void PreferencesDialog::readFields()
{
    // "1.5 GiB" as shown is accepted back: spaces between number and unit are allowed.
    const QString text = m_ui->memoryLimit->text().simplified().remove(QLatin1Char(' '));
    QString problem;
    if (text.isEmpty()) {
        m_preferences.memoryLimit.reset();
    } else if (const auto bytes = lesson::parseByteSize(text.toStdString())) {
        m_preferences.memoryLimit = bytes;
        if (*bytes < (1u << 20))
            problem = tr("A limit below 1 MiB is most likely a missing unit (a plain number "
                         "counts bytes); expected something like 512M or 2G.");
    } else {
        problem = tr("“%1” is not a size; expected a number with K, M, G or T, like 512M or 2G, "
                     "or nothing for no limit of your own.")
                      .arg(m_ui->memoryLimit->text().left(40));
    }
    m_ui->memoryError->setText(problem);
    m_ui->memoryError->setVisible(!problem.isEmpty());
    m_ui->buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    adjustSize(); // as tall as the wrapped lines, now that the message came or went
}

} // namespace attnviz::app
