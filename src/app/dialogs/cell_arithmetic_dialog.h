#pragma once

#include "lesson/cell_arithmetic.h"

#include <QDialog>

#include <memory>

class QTextBrowser;

namespace attnviz::app {

/// The arithmetic of one cell, written out with the trace's numbers (lesson::cellArithmetic):
/// for a score or weight, q_i and k_j term by term, ÷√d_k, the mask, exp and the row sum; for a
/// context cell, the weighted sum of a value column. Non-modal: while it is open, clicking
/// another cell of the step shows that cell's arithmetic instead.
class CellArithmeticDialog : public QDialog {
    Q_OBJECT
public:
    explicit CellArithmeticDialog(QWidget* parent = nullptr);

    /// Shows `cell` of `step`; a step or cell without arithmetic shows why instead.
    void showCell(std::shared_ptr<const lesson::Walkthrough> walkthrough,
                  engine::AttentionStep step, const lesson::CellAddress& cell);
    /// The walkthrough changed (a new setting, another block): the same cell again, or why not.
    void setWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough);
    /// The step changed: the same cell on the new step, or why not.
    void setStep(engine::AttentionStep step);

    engine::AttentionStep step() const { return m_step; }
    const lesson::CellAddress& cell() const { return m_cell; }
    QString text() const;

private:
    void refresh();

    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    engine::AttentionStep m_step = engine::AttentionStep::Weights;
    lesson::CellAddress m_cell;
    QTextBrowser* m_text;
};

/// The dialog's page for one cell: HTML tables of the terms, every token escaped.
QString cellArithmeticHtml(const lesson::Walkthrough& w, engine::AttentionStep step,
                           const lesson::CellArithmetic& arithmetic);

} // namespace attnviz::app
