#include "app/walkthrough_step.h"

#include "app/playground.h"
#include "app/trace_matrix.h"

#include <QFile>

// The step texts are compiled into the static attnviz_app library, whose resources are not
// registered automatically.
static void registerStepTexts()
{
    Q_INIT_RESOURCE(attnviz);
}

namespace attnviz::app {
namespace {

HeatmapData tokenMatrix(const std::shared_ptr<const Walkthrough>& w, const engine::Tensor& t, int batch,
                        const QString& title, const std::vector<std::string>& tokens, const QString& rowAxis)
{
    HeatmapData d;
    d.owner = w;
    const auto m = t.matrix({batch});
    d.values = m.data();
    d.rows = static_cast<int>(m.rows());
    d.cols = static_cast<int>(m.cols());
    d.title = title;
    d.rowAxis = rowAxis;
    d.columnAxis = QStringLiteral("feature");
    d.rowLabels = tokenLabels(tokens);
    d.columnLabels = indexLabels(m.cols());
    return d;
}

std::vector<HeatmapData::Band> headBands(int heads, int width)
{
    std::vector<HeatmapData::Band> bands;
    for (int h = 0; h < heads; ++h)
        bands.push_back({h * width, width, headColour(h)});
    return bands;
}

/// One matrix per head of a per-head step, titled "head h · name".
std::vector<HeatmapData> perHead(const std::shared_ptr<const Walkthrough>& w, engine::AttentionStep step, int batch,
                                 const QString& name)
{
    std::vector<HeatmapData> maps;
    // Heads count from 0, as layers do and as the dumps and exported file names index them.
    for (int h = 0; h < w->trace.numHeads(); ++h)
        maps.push_back(traceMatrix(w, step, batch, h, QStringLiteral("head %1 · %2").arg(h).arg(name)));
    return maps;
}

} // namespace

QString stepId(WalkthroughStep step)
{
    static const char* const ids[] = {"input", "projections", "split", "scores", "scaled",
                                      "masked", "softmax", "context", "concat", "output"};
    return QString::fromLatin1(ids[static_cast<int>(step)]);
}

StepText stepText(WalkthroughStep step, const Walkthrough* w)
{
    static const bool registered = (registerStepTexts(), true);
    (void)registered;
    const bool inModel = step == WalkthroughStep::Input && w && !w->queryInputOrigin.empty();
    QFile file(QStringLiteral(":/steps/%1.txt").arg(inModel ? QStringLiteral("input_in_model") : stepId(step)));
    StepText text;
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {stepId(step), stepId(step), {}, {}};
    // Format: "title: ...", "label: ...", "formula: ...", a line "---", then the explanation.
    const QString content = QString::fromUtf8(file.readAll());
    const qsizetype split = content.indexOf(QStringLiteral("\n---\n"));
    for (const QString& line : content.left(split).split(QLatin1Char('\n'))) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        const QString key = line.left(colon).trimmed(), value = line.mid(colon + 1).trimmed();
        if (key == QLatin1String("title"))
            text.title = value;
        else if (key == QLatin1String("label"))
            text.label = value;
        else if (key == QLatin1String("formula"))
            text.formula = value;
    }
    text.explanation = split < 0 ? QString() : content.mid(split + 5).trimmed();
    return text;
}

QString formulaFor(WalkthroughStep step, const Walkthrough& w)
{
    // Inside a model, a block reads the layer below it, not the embeddings.
    if (step == WalkthroughStep::Input && !w.queryInputOrigin.empty())
        return QString::fromStdString(w.queryInputOrigin + (w.selfAttention() ? "" : ",   " + w.keyValueInputOrigin));
    QString f = stepText(step).formula;
    const auto& t = w.trace;
    const std::pair<const char*, std::int64_t> sizes[] = {
        {"{B}", t.batchSize()}, {"{Hlast}", t.numHeads() - 1}, {"{H}", t.numHeads()}, {"{Nq}", t.queryLength()}, {"{Nk}", t.keyLength()},
        {"{D}", w.settings.modelWidth}, {"{dk}", w.dk()}, {"{dv}", w.dv()}, {"{Hdk}", t.numHeads() * w.dk()},
        {"{Hdv}", t.numHeads() * w.dv()}, {"{Po}", t.output.dim(2)}};
    for (const auto& [placeholder, value] : sizes)
        f.replace(QLatin1String(placeholder), QString::number(value));
    return f;
}

QString shapesFor(WalkthroughStep step, const Walkthrough& w)
{
    const auto shape = [](const char* name, const engine::Tensor& t) {
        return QStringLiteral("%1 %2").arg(QLatin1String(name), QString::fromStdString(t.shapeString()));
    };
    const auto& t = w.trace;
    switch (step) {
    case WalkthroughStep::Input:
        return shape("X_q", w.queryInput) + QStringLiteral("   ") + shape("X_kv", w.keyValueInput);
    case WalkthroughStep::Projections:
        return shape("Q", t.qProj) + QStringLiteral("   ") + shape("K", t.kProj) + QStringLiteral("   ") + shape("V", t.vProj);
    case WalkthroughStep::Split:
        return shape("Q_h", t.qHeads) + QStringLiteral("   ") + shape("K_h", t.kHeads) + QStringLiteral("   ") + shape("V_h", t.vHeads);
    case WalkthroughStep::Scores: return shape("scores", t.scores);
    case WalkthroughStep::Scaled: return shape("scaled", t.scaled);
    case WalkthroughStep::Masked: return shape("masked", t.masked);
    case WalkthroughStep::Softmax: return shape("weights", t.weights);
    case WalkthroughStep::Context: return shape("context", t.context);
    case WalkthroughStep::Concat: return shape("concat", t.concat);
    case WalkthroughStep::Output: return shape("output", t.output);
    }
    return {};
}

StepMatrices matricesFor(WalkthroughStep step, const std::shared_ptr<const Walkthrough>& w, int batch, SplitPart part)
{
    const auto& t = w->trace;
    const auto b = static_cast<std::size_t>(batch);
    const int H = static_cast<int>(t.numHeads());
    StepMatrices s;
    switch (step) {
    case WalkthroughStep::Input: {
        if (!w->queryInputOrigin.empty()) {
            s.maps.push_back(tokenMatrix(w, w->queryInput, batch, QString::fromStdString(w->queryInputOrigin), w->queryTokens[b], QStringLiteral("query")));
            if (!w->selfAttention())
                s.maps.push_back(tokenMatrix(w, w->keyValueInput, batch, QString::fromStdString(w->keyValueInputOrigin), w->keyTokens[b], QStringLiteral("key")));
            break;
        }
        s.maps.push_back(tokenMatrix(w, w->queryEmbedding, batch, QStringLiteral("token embedding"), w->queryTokens[b], QStringLiteral("query")));
        HeatmapData pe;
        pe.owner = w;
        pe.values = w->positional.data();
        pe.rows = static_cast<int>(t.queryLength());
        pe.cols = static_cast<int>(w->positional.dim(1));
        pe.title = w->settings.positionalEncoding ? QStringLiteral("+ positional encoding") : QStringLiteral("positional encoding (off)");
        pe.rowAxis = QStringLiteral("position");
        pe.columnAxis = QStringLiteral("feature");
        pe.rowLabels = indexLabels(pe.rows);
        pe.columnLabels = indexLabels(pe.cols);
        s.maps.push_back(pe);
        s.maps.push_back(tokenMatrix(w, w->queryInput, batch, QStringLiteral("= X (queries)"), w->queryTokens[b], QStringLiteral("query")));
        if (!w->selfAttention())
            s.maps.push_back(tokenMatrix(w, w->keyValueInput, batch, QStringLiteral("X (keys, values)"), w->keyTokens[b], QStringLiteral("key")));
        break;
    }
    case WalkthroughStep::Projections:
        s.maps.push_back(traceMatrix(w, engine::AttentionStep::QProj, batch, 0, QStringLiteral("Q = X W_qᵀ + b_q")));
        s.maps.push_back(traceMatrix(w, engine::AttentionStep::KProj, batch, 0, QStringLiteral("K = X W_kᵀ + b_k")));
        s.maps.push_back(traceMatrix(w, engine::AttentionStep::VProj, batch, 0, QStringLiteral("V = X W_vᵀ + b_v")));
        for (auto& m : s.maps)
            m.columnBands = headBands(H, &m == &s.maps.back() ? w->dv() : w->dk());
        break;
    case WalkthroughStep::Split:
        s.perHead = true;
        if (part == SplitPart::Keys)
            s.maps = perHead(w, engine::AttentionStep::KHeads, batch, QStringLiteral("K_h"));
        else if (part == SplitPart::Values)
            s.maps = perHead(w, engine::AttentionStep::VHeads, batch, QStringLiteral("V_h"));
        else
            s.maps = perHead(w, engine::AttentionStep::QHeads, batch, QStringLiteral("Q_h"));
        break;
    case WalkthroughStep::Scores:
        s.perHead = true;
        s.maps = perHead(w, engine::AttentionStep::Scores, batch, QStringLiteral("Q_h K_hᵀ"));
        break;
    case WalkthroughStep::Scaled:
        s.perHead = true;
        s.maps = perHead(w, engine::AttentionStep::Scaled, batch, QStringLiteral("÷ √d_k"));
        break;
    case WalkthroughStep::Masked:
        s.perHead = true;
        s.maps = perHead(w, engine::AttentionStep::Masked, batch, QStringLiteral("masked"));
        break;
    case WalkthroughStep::Softmax:
        s.perHead = true;
        s.maps = perHead(w, engine::AttentionStep::Weights, batch, QStringLiteral("softmax"));
        break;
    case WalkthroughStep::Context:
        s.perHead = true;
        s.maps = perHead(w, engine::AttentionStep::Context, batch, QStringLiteral("weights · V_h"));
        break;
    case WalkthroughStep::Concat:
        s.maps.push_back(traceMatrix(w, engine::AttentionStep::Concat, batch, 0, QStringLiteral("concat(head 0 … head %1)").arg(H - 1)));
        s.maps.back().columnBands = headBands(H, w->dv());
        break;
    case WalkthroughStep::Output:
        s.maps.push_back(traceMatrix(w, engine::AttentionStep::Output, batch, 0, QStringLiteral("output = concat W_oᵀ + b_o")));
        break;
    }
    return s;
}

} // namespace attnviz::app
