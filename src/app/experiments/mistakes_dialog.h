#pragma once

#include "app/experiments/walkthrough_dialog.h"
#include "engine/attention_mistakes.h"

#include <memory>

namespace Ui {
class MistakesDialog;
}

namespace attnviz::app {

/// Experiments ▸ Common mistakes: the module and inputs of the main window computed correctly
/// and with one common mistake made (engine::forwardWithMistake), the step that shows it best
/// side by side on one colour range, the row sums and how far the output moves, the mistaken
/// line of code and how to recognise it. Non-modal: it follows the main window's walkthrough.
class MistakesDialog : public WalkthroughDialog {
    Q_OBJECT
public:
    explicit MistakesDialog(QWidget* parent = nullptr);
    ~MistakesDialog() override;

    void setMistake(engine::AttentionMistake mistake);
    engine::AttentionMistake mistake() const;
    void setHead(int head);
    /// The mistaken computation shown (null when it cannot be made).
    std::shared_ptr<const lesson::Walkthrough> mistaken() const { return m_wrong; }
    QString consequenceText() const;
    Ui::MistakesDialog& ui() { return *m_ui; }

private:
    void recompute() override;
    void redraw();

    std::unique_ptr<Ui::MistakesDialog> m_ui;
    std::shared_ptr<const lesson::Walkthrough> m_wrong;
};

} // namespace attnviz::app
