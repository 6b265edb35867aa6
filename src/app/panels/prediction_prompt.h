#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/step_questions.h"
#include "lesson/walkthrough.h"

#include <QFrame>

#include <memory>
#include <optional>
#include <set>

class QAction;
class QLabel;
class QMenu;
class QPushButton;
class QToolButton;

namespace Ui {
class PredictionPrompt;
}

namespace attnviz::app {

class Session;
class StepPanel;

/// Experiments ▸ Predict, then reveal (#12). While the mode is on, a step that has a question
/// (resources/questions/<key>.txt) is covered by this card when the student arrives on it: one
/// question, its choices as buttons (1–9 on the keyboard), and "Reveal without answering"
/// (Esc). One click reveals the step; a banner above it then says right or wrong, with the
/// trace's numbers behind the answer and the session's score. The answers come from the lesson
/// layer (lesson::stepQuestion), never from the view. A step already revealed for the
/// walkthrough shown is not asked again; when the mode is off, nothing changes.
class PredictionPrompt : public QFrame {
    Q_OBJECT
public:
    /// Lies over `steps`' formula, heatmaps and explanation, and asks about what `session`
    /// shows; its checkable action goes into `menu`. The mode starts as QSettings left it.
    PredictionPrompt(const Session* session, StepPanel* steps, QMenu* menu);
    ~PredictionPrompt() override;

    QAction* action() const { return m_action; }
    bool modeOn() const;
    /// A question covers the step (the card is shown).
    bool asking() const { return m_asking; }
    const std::optional<lesson::StepQuestion>& question() const { return m_question; }
    QString questionText() const;
    /// The answer buttons, in the order shown.
    QList<QPushButton*> choiceButtons() const { return m_buttons; }
    QPushButton* revealButton() const;
    /// The verdict shown above the revealed step (hidden while asking and when the mode is off).
    QFrame* verdict() const { return m_verdict; }
    QString verdictText() const;
    QString scoreText() const;
    int rightAnswers() const { return m_right; }
    int answers() const { return m_answered; }

    /// Answers the question shown with choice `index` (what a click on its button does).
    void answer(std::size_t index);
    /// Shows the step and the answer without counting (the Esc button).
    void revealWithoutAnswering();

signals:
    /// After each reveal: whether the student answered, and whether the answer was right.
    void revealed(bool answered, bool right);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void setMode(bool on);
    /// Asks about the step shown, if the mode is on, it has a question and it was not revealed.
    void ask(bool takeFocus);
    void showQuestion(bool takeFocus);
    void reveal(std::optional<std::size_t> chosen);
    void onWalkthroughShown(std::shared_ptr<const lesson::Walkthrough> walkthrough, int batch);
    void hideAll();
    /// Lies over the step panel from its formula to its explanation.
    void place();
    void applyFonts();
    void updateScore();

    std::unique_ptr<Ui::PredictionPrompt> m_ui;
    StepPanel* m_steps;
    QAction* m_action;
    QFrame* m_verdict;
    QLabel* m_verdictTitle;
    QLabel* m_verdictExplanation;
    QLabel* m_verdictScore;
    QToolButton* m_verdictClose;
    QList<QPushButton*> m_buttons;
    std::optional<lesson::StepQuestion> m_question;
    std::shared_ptr<const lesson::Walkthrough> m_walkthrough; ///< the one m_revealed is about
    int m_batch = 0;
    std::set<lesson::LessonStepIndex> m_revealed;
    bool m_asking = false;
    /// The step was entered before its walkthrough arrived: ask when it does.
    bool m_waiting = false;
    std::uint32_t m_seed = 0;
    int m_right = 0;
    int m_answered = 0;
    int m_skipped = 0;
};

} // namespace attnviz::app
