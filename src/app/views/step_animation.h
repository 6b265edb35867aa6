#pragma once

#include "lesson/cell_arithmetic.h"
#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"

#include <QVariantAnimation>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace attnviz::app {

/// The three moments students find hardest, animated over the heatmaps from the trace's own
/// numbers: the projection's columns sliding apart into heads (and, on the concat step, back
/// together); one row of scores becoming exp(score − max) and then weights that sum to 1; the
/// value rows, each scaled by its weight, adding up to one context row. A click, a key or
/// `skip()` ends it at its last frame; Esc closes it.
class StepAnimation : public QWidget {
    Q_OBJECT
public:
    using Kind = lesson::StepAnimationKind;

    explicit StepAnimation(QWidget* parent = nullptr);

    /// Starts `kind` on batch item `batch`, head `head` (split/concat: all heads) and query
    /// `query` (softmax, weighted sum). False, with nothing shown, when the walkthrough did not
    /// keep what the animation reads (an import, a large model run).
    bool play(const std::shared_ptr<const lesson::Walkthrough>& walkthrough, Kind kind, int batch,
              int head, int query);
    /// Jumps to the last frame (the animation is skippable at any moment).
    void skip();
    /// Stops, hides and lets go of the walkthrough played (StepPanel::releaseWalkthrough).
    void release();
    /// Shows the frame at `progress` ∈ [0, 1] without running (key frames for docs and tests).
    void setProgress(double progress);
    double progress() const { return m_progress; }
    bool running() const { return m_animation.state() == QAbstractAnimation::Running; }
    /// Each phase's sentence at the current progress (what the overlay prints).
    QString caption() const;
    /// The bars drawn at the current progress (softmax), or the row being formed (weighted sum).
    std::vector<double> shownRow() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void paintSplit(class QPainter& p, bool reverse) const;
    void paintSoftmax(QPainter& p) const;
    void paintWeightedSum(QPainter& p) const;

    QVariantAnimation m_animation;
    double m_progress = 0;
    Kind m_kind = Kind::Split;
    int m_head = 0;
    int m_query = 0;
    std::shared_ptr<const lesson::Walkthrough> m_walkthrough;
    /// Split/concat: the N × (H·d) matrix and its head width.
    std::vector<std::vector<float>> m_matrix;
    int m_heads = 0;
    int m_headWidth = 0;
    std::vector<std::string> m_rowLabels;
    /// Softmax: the row's arithmetic; weighted sum: the weights, V_h (keys × d_v), the context.
    lesson::ScoreCellArithmetic m_softmax;
    std::vector<float> m_weights;
    std::vector<std::vector<float>> m_values;
    std::vector<float> m_context;
    std::vector<std::string> m_keyLabels;
};

} // namespace attnviz::app
