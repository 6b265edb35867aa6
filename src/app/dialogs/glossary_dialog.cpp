#include "app/dialogs/glossary_dialog.h"

#include "ui_glossary_dialog.h"

#include <QUrl>

namespace attnviz::app {

GlossaryDialog::GlossaryDialog(QWidget* parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::GlossaryDialog>())
    , m_entries(render::glossary())
{
    m_ui->setupUi(this);
    for (const render::GlossaryEntry& e : m_entries) {
        auto* item = new QListWidgetItem(e.term, m_ui->terms);
        item->setData(Qt::UserRole, e.key);
        item->setToolTip(e.aliases.join(QStringLiteral(", ")));
    }
    connect(m_ui->terms, &QListWidget::currentRowChanged, this, &GlossaryDialog::showRow);
    connect(m_ui->filter, &QLineEdit::textChanged, this, &GlossaryDialog::filter);
    connect(m_ui->explanation, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == render::kGlossaryScheme)
            showTerm(url.path());
    });
    if (!m_entries.empty())
        m_ui->terms->setCurrentRow(0);
}

GlossaryDialog::~GlossaryDialog() = default;

bool GlossaryDialog::showTerm(const QString& key)
{
    for (int row = 0; row < m_ui->terms->count(); ++row) {
        QListWidgetItem* item = m_ui->terms->item(row);
        if (item->data(Qt::UserRole).toString() != key)
            continue;
        if (item->isHidden())
            m_ui->filter->clear();
        m_ui->terms->setCurrentRow(row);
        return true;
    }
    return false;
}

QString GlossaryDialog::shownKey() const
{
    const QListWidgetItem* item = m_ui->terms->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void GlossaryDialog::filter(const QString& words)
{
    const QString wanted = words.trimmed();
    int firstShown = -1;
    for (int row = 0; row < m_ui->terms->count(); ++row) {
        const render::GlossaryEntry& e = m_entries[static_cast<std::size_t>(row)];
        const bool shown = wanted.isEmpty() || e.term.contains(wanted, Qt::CaseInsensitive) ||
            e.aliases.join(QLatin1Char(' ')).contains(wanted, Qt::CaseInsensitive) ||
            e.explanation.contains(wanted, Qt::CaseInsensitive);
        m_ui->terms->item(row)->setHidden(!shown);
        if (shown && firstShown < 0)
            firstShown = row;
    }
    if (firstShown < 0) {
        // Nothing matches: the entry shown before is not an answer to these words.
        m_ui->terms->setCurrentRow(-1);
        m_ui->explanation->setHtml(
            QStringLiteral("<p><i>%1</i></p>")
                .arg(tr("No term matches “%1”.").arg(wanted).toHtmlEscaped()));
        return;
    }
    const QListWidgetItem* current = m_ui->terms->currentItem();
    if (!current || current->isHidden())
        m_ui->terms->setCurrentRow(firstShown);
}

void GlossaryDialog::showRow(int row)
{
    if (row < 0 || row >= static_cast<int>(m_entries.size())) {
        m_ui->explanation->clear();
        return;
    }
    const render::GlossaryEntry& shown = m_entries[static_cast<std::size_t>(row)];
    // The other terms the explanation mentions are links; the term itself is not.
    std::vector<render::GlossaryEntry> others;
    for (const render::GlossaryEntry& e : m_entries)
        if (e.key != shown.key)
            others.push_back(e);
    QString html = QStringLiteral("<h3>%1</h3>").arg(shown.term.toHtmlEscaped());
    if (!shown.aliases.isEmpty())
        html += QStringLiteral("<p><i>%1</i></p>")
                    .arg(tr("Also written: %1")
                             .arg(shown.aliases.join(QStringLiteral(", ")))
                             .toHtmlEscaped());
    html += render::linkGlossaryTerms(shown.explanation, others);
    m_ui->explanation->setHtml(html);
}

} // namespace attnviz::app
