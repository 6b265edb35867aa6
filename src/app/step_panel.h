#pragma once

#include "app/walkthrough_step.h"

#include <QWidget>

#include <memory>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace attnviz::app {

class HeadGridView;
struct Walkthrough;

/// The right side of the window: where we are ("Step 4 of 10"), the step's formula with live
/// sizes, its shapes with named axes, a short explanation, the heatmaps, and the step navigator
/// (a button per step, Prev/Next; ←/→ and Home/End from the main window).
class StepPanel : public QWidget {
    Q_OBJECT
public:
    explicit StepPanel(QWidget* parent = nullptr);

    void setWalkthrough(std::shared_ptr<const Walkthrough> walkthrough);
    void setStep(WalkthroughStep step);
    WalkthroughStep step() const { return m_step; }
    /// The batch item shown, from 0.
    int batchIndex() const;
    /// Which projection the split step shows (queries, keys or values).
    SplitPart splitPart() const;
    void setSplitPart(SplitPart part);
    void next();
    void previous();
    void first();
    void last();

    HeadGridView* grid() const { return m_grid; }
    QString positionText() const;
    QString formulaText() const;
    QString shapeText() const;

signals:
    void stepChanged(WalkthroughStep step);
    void cellClicked(int row, int column);

private:
    void refresh();

    std::shared_ptr<const Walkthrough> m_walkthrough;
    WalkthroughStep m_step = WalkthroughStep::Input;
    QLabel* m_position;
    QLabel* m_formula;
    QLabel* m_shape;
    QTextBrowser* m_explanation;
    QSpinBox* m_batch;
    QComboBox* m_splitPart;
    QCheckBox* m_sharedRange;
    QPushButton* m_allHeads;
    HeadGridView* m_grid;
    QButtonGroup* m_stepButtons;
    QPushButton* m_previous;
    QPushButton* m_next;
};

} // namespace attnviz::app
