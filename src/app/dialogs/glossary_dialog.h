#pragma once

#include "render/glossary.h"

#include <QDialog>

#include <memory>
#include <vector>

namespace Ui {
class GlossaryDialog;
}

namespace attnviz::app {

/// Help ▸ Glossary, and where a linked term of a step's explanation leads: every term the app
/// uses with a short explanation, searchable, each explanation linking the other terms it uses.
class GlossaryDialog : public QDialog {
    Q_OBJECT
public:
    explicit GlossaryDialog(QWidget* parent = nullptr);
    ~GlossaryDialog() override;

    /// Selects the term with this key (render/glossary.h); false when there is none.
    bool showTerm(const QString& key);
    /// The key of the term shown ("" before one is chosen).
    QString shownKey() const;
    Ui::GlossaryDialog* form() const { return m_ui.get(); }

private:
    void filter(const QString& words);
    void showRow(int row);

    std::unique_ptr<Ui::GlossaryDialog> m_ui;
    std::vector<render::GlossaryEntry> m_entries;
};

} // namespace attnviz::app
