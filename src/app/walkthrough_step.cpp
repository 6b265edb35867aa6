#include "app/walkthrough_step.h"

#include "app/playground.h"

#include <QFile>

// The step texts are compiled into the static attnviz_app library, whose resources are not
// registered automatically.
static void registerStepTexts()
{
    Q_INIT_RESOURCE(attnviz);
}

namespace attnviz::app {
namespace {

QStringList labels(const std::vector<std::string>& tokens)
{
    QStringList out;
    for (const std::string& t : tokens)
        out << QString::fromStdString(t);
    return out;
}

QStringList indices(std::int64_t n)
{
    QStringList out;
    for (std::int64_t i = 0; i < n; ++i)
        out << QString::number(i);
    return out;
}

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
    d.rowLabels = labels(tokens);
    d.columnLabels = indices(m.cols());
    return d;
}

std::vector<HeatmapData::Band> headBands(int heads, int width)
{
    std::vector<HeatmapData::Band> bands;
    for (int h = 0; h < heads; ++h)
        bands.push_back({h * width, width, headColour(h)});
    return bands;
}

/// One matrix per head of a [batch, head, rows, cols] step.
std::vector<HeatmapData> perHead(const std::shared_ptr<const Walkthrough>& w, const engine::Tensor& t, int batch,
                                 const QString& name, const QString& columnAxis, ColourScale scale,
                                 bool markBlocked)
{
    std::vector<HeatmapData> maps;
    const bool keyColumns = columnAxis == QLatin1String("key");
    for (int h = 0; h < t.dim(1); ++h) {
        HeatmapData d;
        d.owner = w;
        const auto m = t.matrix({batch, h});
        d.values = m.data();
        d.rows = static_cast<int>(m.rows());
        d.cols = static_cast<int>(m.cols());
        if (markBlocked)
            d.blockedSource = w->trace.masked.matrix({batch, h}).data();
        // Heads count from 0, as layers do and as the dumps and exported file names index them.
        d.title = QStringLiteral("head %1 · %2").arg(h).arg(name);
        d.rowAxis = t.axes()[2].name == "key" ? QStringLiteral("key") : QStringLiteral("query");
        d.columnAxis = columnAxis;
        d.rowLabels = labels(d.rowAxis == QLatin1String("key") ? w->keyTokens[static_cast<std::size_t>(batch)]
                                                               : w->queryTokens[static_cast<std::size_t>(batch)]);
        d.columnLabels = keyColumns ? labels(w->keyTokens[static_cast<std::size_t>(batch)]) : indices(m.cols());
        d.scale = scale;
        d.frame = headColour(h);
        maps.push_back(std::move(d));
    }
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
        {"{B}", t.batchSize()}, {"{H}", t.numHeads()}, {"{Nq}", t.queryLength()}, {"{Nk}", t.keyLength()},
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
        pe.rowLabels = indices(pe.rows);
        pe.columnLabels = indices(pe.cols);
        s.maps.push_back(pe);
        s.maps.push_back(tokenMatrix(w, w->queryInput, batch, QStringLiteral("= X (queries)"), w->queryTokens[b], QStringLiteral("query")));
        if (!w->selfAttention())
            s.maps.push_back(tokenMatrix(w, w->keyValueInput, batch, QStringLiteral("X (keys, values)"), w->keyTokens[b], QStringLiteral("key")));
        break;
    }
    case WalkthroughStep::Projections:
        s.maps.push_back(tokenMatrix(w, t.qProj, batch, QStringLiteral("Q = X W_qᵀ + b_q"), w->queryTokens[b], QStringLiteral("query")));
        s.maps.push_back(tokenMatrix(w, t.kProj, batch, QStringLiteral("K = X W_kᵀ + b_k"), w->keyTokens[b], QStringLiteral("key")));
        s.maps.push_back(tokenMatrix(w, t.vProj, batch, QStringLiteral("V = X W_vᵀ + b_v"), w->keyTokens[b], QStringLiteral("key")));
        for (auto& m : s.maps)
            m.columnBands = headBands(H, &m == &s.maps.back() ? w->dv() : w->dk());
        break;
    case WalkthroughStep::Split:
        s.perHead = true;
        if (part == SplitPart::Keys)
            s.maps = perHead(w, t.kHeads, batch, QStringLiteral("K_h"), QStringLiteral("d_k"), ColourScale::Diverging, false);
        else if (part == SplitPart::Values)
            s.maps = perHead(w, t.vHeads, batch, QStringLiteral("V_h"), QStringLiteral("d_v"), ColourScale::Diverging, false);
        else
            s.maps = perHead(w, t.qHeads, batch, QStringLiteral("Q_h"), QStringLiteral("d_k"), ColourScale::Diverging, false);
        break;
    case WalkthroughStep::Scores:
        s.perHead = true;
        s.maps = perHead(w, t.scores, batch, QStringLiteral("Q_h K_hᵀ"), QStringLiteral("key"), ColourScale::Diverging, false);
        break;
    case WalkthroughStep::Scaled:
        s.perHead = true;
        s.maps = perHead(w, t.scaled, batch, QStringLiteral("÷ √d_k"), QStringLiteral("key"), ColourScale::Diverging, false);
        break;
    case WalkthroughStep::Masked:
        s.perHead = true;
        s.maps = perHead(w, t.masked, batch, QStringLiteral("masked"), QStringLiteral("key"), ColourScale::Diverging, true);
        break;
    case WalkthroughStep::Softmax:
        s.perHead = true;
        s.maps = perHead(w, t.weights, batch, QStringLiteral("softmax"), QStringLiteral("key"), ColourScale::Sequential, true);
        break;
    case WalkthroughStep::Context:
        s.perHead = true;
        s.maps = perHead(w, t.context, batch, QStringLiteral("weights · V_h"), QStringLiteral("d_v"), ColourScale::Diverging, false);
        break;
    case WalkthroughStep::Concat:
        s.maps.push_back(tokenMatrix(w, t.concat, batch, QStringLiteral("concat(head 1 … head %1)").arg(H), w->queryTokens[b], QStringLiteral("query")));
        s.maps.back().columnBands = headBands(H, w->dv());
        break;
    case WalkthroughStep::Output:
        s.maps.push_back(tokenMatrix(w, t.output, batch, QStringLiteral("output = concat W_oᵀ + b_o"), w->queryTokens[b], QStringLiteral("query")));
        break;
    }
    return s;
}

} // namespace attnviz::app
