#pragma once

#include "lesson/heatmap.h"
#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"
#include "render/glossary.h"

#include <QCheckBox>
#include <QSpinBox>
#include <QWidget>

#include <memory>
#include <optional>

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace attnviz::app {

class CellArithmeticDialog;
class HeadGridView;
class PictureView;
class StepAnimation;

/// The right side of the window: where we are ("Step 4 of 10"), the step's formula with live
/// sizes, its shapes with named axes, a short explanation, the heatmaps, and the step navigator
/// (a button per lesson step, Prev/Next; ←/→ and Home/End from the main window). The steps are
/// those of lesson::kLessonSteps.
class StepPanel : public QWidget {
    Q_OBJECT
public:
    explicit StepPanel(QWidget* parent = nullptr);

    void setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough);
    /// Shows no walkthrough and says why (settings that cannot be computed, a model that did not
    /// run): no heatmap, formula or shape of an earlier walkthrough stays on screen.
    void clear(const QString& reason);
    /// Lets go of the walkthrough and of every heatmap read from it, keeping the step, the
    /// focused head and the layout for the walkthrough that replaces it before anything is
    /// painted (Session::releasingWalkthrough).
    void releaseWalkthrough();
    /// Why nothing is shown ("" while a walkthrough is).
    QString reason() const { return m_reason; }
    std::shared_ptr<const lesson::Walkthrough> walkthrough() const { return m_walkthrough; }
    void setStep(lesson::LessonStepIndex step);
    lesson::LessonStepIndex step() const { return m_step; }
    const lesson::LessonStep& lessonStep() const { return lesson::kLessonSteps[m_step]; }
    /// The trace whose module decides which steps are offered (rotate only with rotary positions).
    const engine::AttentionTrace& shownTrace() const;
    /// The batch item shown, from 0.
    int batchIndex() const;
    /// Which of a step's alternative views is shown (the split: 0 Q_h, 1 K_h, 2 V_h).
    int alternative() const;
    void setAlternative(int alternative);
    /// Shows batch item `batch` (from 0) when the walkthrough has it.
    void setBatchIndex(int batch) { m_batch->setValue(batch); }
    /// The display choices a saved lesson keeps: one colour range for all heads (else one per
    /// head), and the numbers written in the cells.
    bool sharedColourRange() const { return m_sharedRange->isChecked(); }
    void setSharedColourRange(bool on) { m_sharedRange->setChecked(on); }
    bool numbersInCells() const { return m_values->isChecked(); }
    void setNumbersInCells(bool on) { m_values->setChecked(on); }
    void next();
    void previous();
    void first();
    void last();

    HeadGridView* grid() const { return m_grid; }
    /// Presentation mode: the title, formula and shapes grow beyond the window's larger font, and
    /// a click on a heatmap marks a cell, row or column in every head (HeadGridView::setMarking).
    void setPresentation(bool on);
    bool presentation() const { return m_presentation; }
    /// ▶ Animate on the split, softmax, context and concat steps (StepAnimation); false when the
    /// step has none or the trace lacks what it reads.
    bool animate();
    StepAnimation* animation() const { return m_animation; }
    /// View ▸ Animations: off hides ▶ Animate.
    void setAnimationsEnabled(bool on);
    /// Opens (or updates) the arithmetic of a cell of head `head` on the step shown: a score,
    /// a weight or a context value. Other steps and whole matrices have none and are ignored.
    void showCellArithmetic(int head, int row, int column);
    /// The dialog of the last cell whose arithmetic was asked for (null before the first).
    CellArithmeticDialog* cellArithmetic() const { return m_arithmetic; }
    QString positionText() const;
    QString formulaText() const;
    QString shapeText() const;

    /// Where a card that covers the step goes (Predict, then reveal): from the formula down to
    /// the explanation, in this panel's coordinates.
    QRect stepArea() const;
    /// Puts `banner` right below the step's title ("Step 7 of 10 — …"), above the formula.
    void addBanner(QWidget* banner);

signals:
    void stepChanged(attnviz::lesson::LessonStepIndex step);
    void cellClicked(int row, int column);
    /// From a head's context menu: switch `head` of the block shown off (or back on).
    void headSwitched(int head, bool off);
    void allHeadsSwitchedOn();
    /// A glossary term of the explanation was clicked (its key, render/glossary.h).
    void termChosen(const QString& key);
    /// The user (or a lesson) chose another batch item (0-based).
    void batchChanged(int batch);
    /// stepArea() moved or changed size.
    void stepAreaMoved();

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void applyFonts();
    /// The explanation's height: its whole text, or as many whole lines as fit its room.
    void fitExplanation();
    void refresh();
    /// The custom mask's drawing mode: on the score steps a click draws; elsewhere a line says
    /// where drawing happens. `otherMatrices`: the grid shows learned matrices or differences.
    void showMaskDrawing(const lesson::LessonStep& step, bool otherMatrices);
    /// Shows the picture cut into patches on a Vision Transformer's first input step; hides it
    /// otherwise.
    void showPatches(const lesson::LessonStep& step);
    /// The colour of each head, on steps whose matrices colour columns by head.
    void showHeadLegend(const std::vector<lesson::Heatmap>& maps);
    void showHeadMenu(QPoint globalPosition, int head, int row, int column);
    /// The trace step whose cells the step shown explains (scores … weights, context), if any.
    std::optional<engine::AttentionStep> drillableStep() const;
    /// The heads the walkthrough shown has switched off.
    std::vector<int> ablatedHeads() const;
    /// The walkthrough shown as (heads off) − (every head on), computed once per walkthrough.
    std::shared_ptr<const lesson::Walkthrough> shownDifference();

    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    /// Read once: the terms the explanations link.
    std::vector<render::GlossaryEntry> m_glossary = render::glossary();
    QString m_reason;
    bool m_presentation = false;
    lesson::LessonStepIndex m_step = 0;
    QLabel* m_position;
    QLabel* m_formula;
    QLabel* m_shape;
    QLabel* m_ablated;
    QLabel* m_maskNotes;
    QLabel* m_maskDrawing;
    QLabel* m_headLegend;
    QTextBrowser* m_explanation;
    int m_explanationRoom = 0; ///< the explanation's largest height (applyFonts)
    QSpinBox* m_batch;
    QComboBox* m_alternative;
    QCheckBox* m_sharedRange;
    QCheckBox* m_values;
    QCheckBox* m_difference;
    QCheckBox* m_learned;
    std::shared_ptr<const lesson::Walkthrough> m_differenceOf;
    std::shared_ptr<const lesson::Walkthrough> m_differenceShown;
    QPushButton* m_allHeads;
    QPushButton* m_animate;
    StepAnimation* m_animation = nullptr;
    bool m_animationsEnabled = true;
    HeadGridView* m_grid;
    /// A Vision Transformer's picture cut into its patches, beside X on the input step of layer 0.
    PictureView* m_patches;
    CellArithmeticDialog* m_arithmetic = nullptr;
    QButtonGroup* m_stepButtons;
    QPushButton* m_previous;
    QPushButton* m_next;
};

} // namespace attnviz::app
