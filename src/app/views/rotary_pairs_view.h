#pragma once

#include "lesson/rotary_pairs.h"

#include <QWidget>

#include <optional>

namespace attnviz::app {

/// Rotary positions drawn: one small plane per pair of features (i, i + r/2) of a head, with the
/// query's and the key's 2-D vector before turning (thin, dashed) and after (thick), each turned
/// by its position × the pair's frequency; under each plane the frequency and the pair's share of
/// the score. Every number comes from lesson::rotaryPairs; the view only draws them, all planes
/// on one scale so that long and short pairs compare.
class RotaryPairsView : public QWidget {
    Q_OBJECT
public:
    explicit RotaryPairsView(QWidget* parent = nullptr);

    void setPairs(std::optional<lesson::RotaryPairs> pairs);
    const std::optional<lesson::RotaryPairs>& pairs() const { return m_pairs; }

    QSize sizeHint() const override { return {520, 420}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<lesson::RotaryPairs> m_pairs;
};

} // namespace attnviz::app
