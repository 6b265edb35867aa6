#include "app/trace_matrix.h"

namespace attnviz::app {

bool isPerHead(engine::AttentionStep step)
{
    using S = engine::AttentionStep;
    return step != S::QProj && step != S::KProj && step != S::VProj && step != S::Concat && step != S::Output;
}

QStringList tokenLabels(const std::vector<std::string>& tokens)
{
    QStringList out;
    for (const std::string& t : tokens)
        out << QString::fromStdString(t);
    return out;
}

QStringList indexLabels(std::int64_t count)
{
    QStringList out;
    for (std::int64_t i = 0; i < count; ++i)
        out << QString::number(i);
    return out;
}

HeatmapData traceMatrix(const std::shared_ptr<const Walkthrough>& w, engine::AttentionStep step, int batch, int head,
                        const QString& title)
{
    const engine::Tensor& t = w->trace.step(step);
    const bool perHead = isPerHead(step);
    const auto m = perHead ? t.matrix({batch, head}) : t.matrix({batch});
    const auto b = static_cast<std::size_t>(batch);
    const auto labelsAlong = [&](const std::string& axis, std::int64_t size) {
        if (axis == "query")
            return tokenLabels(w->queryTokens[b]);
        if (axis == "key")
            return tokenLabels(w->keyTokens[b]);
        return indexLabels(size);
    };
    const auto& axes = t.axes();
    const std::string& rowAxis = axes[axes.size() - 2].name;
    const std::string& columnAxis = axes.back().name;

    HeatmapData d;
    d.owner = w;
    d.values = m.data();
    d.rows = static_cast<int>(m.rows());
    d.cols = static_cast<int>(m.cols());
    d.title = title;
    d.rowAxis = QString::fromStdString(rowAxis);
    d.columnAxis = QString::fromStdString(columnAxis);
    d.rowLabels = labelsAlong(rowAxis, d.rows);
    d.columnLabels = labelsAlong(columnAxis, d.cols);
    d.scale = step == engine::AttentionStep::Weights ? ColourScale::Sequential : ColourScale::Diverging;
    if (step == engine::AttentionStep::Weights || step == engine::AttentionStep::Masked)
        d.blockedSource = w->trace.masked.matrix({batch, head}).data();
    if (perHead)
        d.frame = headColour(head);
    return d;
}

} // namespace attnviz::app
