#include "render/web_page.h"

#include "engine/input_error.h"
#include "lesson/lesson_steps.h"
#include "lesson/step_view.h"
#include "render/display_words.h"
#include "render/step_texts.h"
#include "render/text_resource.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QLocale>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace attnviz::render {
namespace {

using Json = nlohmann::ordered_json;

// The page's words: one context in the catalogues, whichever function writes them.
struct WebPage {
    Q_DECLARE_TR_FUNCTIONS(WebPage)
};

std::string utf8(const QString& s)
{
    return s.toStdString();
}

// Every map's values as integer steps from its minimum, packed one after another. The top four
// codes of the width say what is not a number on the scale.
class ValuePacker {
public:
    explicit ValuePacker(int bits)
        : m_bits(bits)
        , m_top((1u << bits) - 5)
    {
    }

    Json add(const lesson::Heatmap& map, std::pair<double, double> range)
    {
        double lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < map.rows(); ++r)
            for (int c = 0; c < map.cols(); ++c)
                if (const double v = map.value(r, c); std::isfinite(v) && !map.blocked(r, c)) {
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
        if (!(lo <= hi))
            lo = hi = 0;
        const double step = hi > lo ? (hi - lo) / m_top : 0;
        Json j;
        j["offset"] = m_count;
        j["rows"] = map.rows();
        j["cols"] = map.cols();
        j["min"] = lo;
        j["step"] = step;
        j["range"] = {range.first, range.second};
        j["scale"] = map.scale == lesson::ColourScale::Sequential ? "sequential" : "diverging";
        j["title"] = utf8(displayed(map.title));
        j["caption"] = utf8(displayed(map.caption));
        j["head"] = map.head;
        j["rowLabels"] = labels(map.matrix.rowLabels);
        j["colLabels"] = labels(map.matrix.columnLabels);
        for (int r = 0; r < map.rows(); ++r)
            for (int c = 0; c < map.cols(); ++c)
                put(code(map.value(r, c), map.blocked(r, c), lo, step));
        return j;
    }

    const QByteArray& bytes() const { return m_bytes; }

private:
    // Position labels ("0", "1", …) are what the page numbers axes by anyway; tokens are kept.
    static Json labels(const std::vector<std::string>& names)
    {
        bool numbered = true;
        for (std::size_t i = 0; i < names.size() && numbered; ++i)
            numbered = names[i] == std::to_string(i);
        if (numbered)
            return nullptr;
        Json out = Json::array();
        for (const std::string& n : names)
            out.push_back(n);
        return out;
    }

    std::uint32_t code(double v, bool blocked, double lo, double step) const
    {
        if (blocked)
            return m_top + 1;
        if (std::isnan(v))
            return m_top + 4;
        if (std::isinf(v))
            return v < 0 ? m_top + 2 : m_top + 3;
        if (step == 0)
            return 0;
        return static_cast<std::uint32_t>(
            std::clamp(std::lround((v - lo) / step), 0L, static_cast<long>(m_top)));
    }

    void put(std::uint32_t code)
    {
        m_bytes.append(static_cast<char>(code & 0xff));
        if (m_bits == 16)
            m_bytes.append(static_cast<char>(code >> 8));
        ++m_count;
    }

    int m_bits;
    std::uint32_t m_top;
    std::uint64_t m_count = 0;
    QByteArray m_bytes;
};

// Only the markup the lesson texts use, without attributes; links (glossary entries of the app)
// keep their words. Anything else is shown as text.
QString sanitisedExplanation(const QString& html)
{
    static const QRegularExpression tag(QStringLiteral("<(/?)([A-Za-z][A-Za-z0-9]*)[^<>]*>"));
    static const QStringList kept{"p",   "b",  "i",    "em", "strong", "br", "sub",
                                  "sup", "tt", "code", "ul", "ol",     "li"};
    QString out;
    qsizetype at = 0;
    const auto text = [&](QStringView s) {
        out += s.toString()
                   .replace(QLatin1Char('<'), QStringLiteral("&lt;"))
                   .replace(QLatin1Char('>'), QStringLiteral("&gt;"));
    };
    for (auto m = tag.globalMatch(html); m.hasNext();) {
        const QRegularExpressionMatch t = m.next();
        text(QStringView(html).mid(at, t.capturedStart() - at));
        at = t.capturedEnd();
        const QString name = t.captured(2).toLower();
        if (kept.contains(name))
            out += QLatin1Char('<') + t.captured(1) + name + QLatin1Char('>');
        else if (name != QLatin1String("a"))
            text(t.captured());
    }
    text(QStringView(html).mid(at));
    return out;
}

QString escaped(const QString& s)
{
    return s.toHtmlEscaped();
}

// JSON inside a <script> element: nothing in it can close the element or start a comment.
std::string scriptSafeJson(const Json& j)
{
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '<')
            out += "\\u003c";
        else if (c == '>')
            out += "\\u003e";
        else if (c == '&')
            out += "\\u0026";
        else
            out += c;
    }
    return out;
}

QByteArray resource(const char* path)
{
    registerTextResources();
    QFile file(QString::fromLatin1(path));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error(std::string("the page's resource ") + path + " is missing");
    return file.readAll();
}

QByteArray sha256Source(const QByteArray& text)
{
    return "'sha256-" + QCryptographicHash::hash(text, QCryptographicHash::Sha256).toBase64() + "'";
}

Json colourTable(const ColourMap& map)
{
    Json out = Json::array();
    for (QRgb c : *map.levels)
        out.push_back(c & 0xffffff);
    return out;
}

struct BlockKey {
    int layer;
    engine::Block block;
    int batch;
    auto operator<=>(const BlockKey&) const = default;
};

Json headViewBlocks(const WebPageContent& content, ValuePacker& packer, Json& maps)
{
    std::map<BlockKey, std::vector<const lesson::ExportItem*>> grouped;
    std::vector<BlockKey> order;
    for (const lesson::ExportItem& item : content.weights) {
        const BlockKey key{item.place.layer, item.place.block, item.place.batch};
        if (!grouped.contains(key))
            order.push_back(key);
        grouped[key].push_back(&item);
    }
    Json blocks = Json::array();
    for (const BlockKey& key : order) {
        const std::vector<const lesson::ExportItem*>& items = grouped[key];
        Json b;
        b["layer"] = key.layer;
        b["block"] = engine::blockName(key.block);
        b["batch"] = key.batch;
        const io::LabelledMatrix& first = items.front()->heatmap.matrix;
        b["queries"] = first.rowLabels;
        b["keys"] = first.columnLabels;
        Json heads = Json::array(), indices = Json::array();
        for (const lesson::ExportItem* item : items) {
            heads.push_back(item->place.head);
            indices.push_back(maps.size());
            maps.push_back(packer.add(item->heatmap, item->range));
        }
        b["heads"] = heads;
        b["maps"] = indices;
        blocks.push_back(b);
    }
    return blocks;
}

bool wanted(const lesson::LessonStep& step, const std::vector<engine::AttentionStep>& steps)
{
    if (steps.empty())
        return true;
    if (step.views.empty()) // the input step's X is no step of the trace: shown with them all
        return false;
    return std::ranges::any_of(step.views, [&](const lesson::TraceView& v) {
        return std::ranges::find(steps, v.step) != steps.end();
    });
}

// The walkthrough's steps: their words as static markup (readable without the script), their
// maps as data the script draws.
std::pair<Json, QString> walkthroughSteps(const WebPageContent& content, ValuePacker& packer,
                                          Json& maps)
{
    Json steps = Json::array();
    QString markup;
    const auto& w = content.walkthrough;
    if (!w || w->weightsOnly())
        return {steps, markup};
    std::vector<const lesson::LessonStep*> shown;
    for (lesson::LessonStepIndex i : lesson::shownLessonSteps(*w->trace))
        if (wanted(lesson::kLessonSteps[i], content.steps))
            shown.push_back(&lesson::kLessonSteps[i]);
    for (std::size_t at = 0; at < shown.size(); ++at) {
        const lesson::LessonStep& step = *shown[at];
        const StepText text = stepText(step, w.get());
        const std::string formula = lesson::stepFormula(step, *w, text.formula.toStdString());
        const QString key = QString::fromLatin1(step.key.data(), step.key.size());
        markup += QStringLiteral(
                      "<section class=\"step\" id=\"step-%1\" data-step=\"%2\" data-index=\"%1\" "
                      "hidden><h2>%3</h2><p class=\"formula\">%4</p><p class=\"shapes\">%5</p>"
                      "<div class=\"explanation\">%6</div><div class=\"groups\"></div>"
                      "<div class=\"maps\"></div></section>\n")
                      .arg(at)
                      .arg(key,
                           escaped(WebPage::tr("Step %1 of %2 — %3")
                                       .arg(at + 1)
                                       .arg(shown.size())
                                       .arg(text.title)),
                           escaped(step.views.empty() ? displayed(formula)
                                                      : QString::fromStdString(formula)),
                           escaped(displayed(lesson::stepShapes(step, *w)))
                               .replace(QLatin1Char('\n'), QStringLiteral("<br>")),
                           sanitisedExplanation(text.explanation));
        Json s;
        s["key"] = step.key;
        s["label"] = utf8(text.label);
        Json groups = Json::array();
        const std::size_t alternatives = step.alternatives ? step.views.size() : 1;
        for (std::size_t a = 0; a < alternatives; ++a) {
            std::vector<lesson::Heatmap> all = lesson::stepHeatmaps(step, w, 0, a);
            std::erase_if(all, [&](const lesson::Heatmap& m) {
                return step.perHead() && m.head >= 0 && !content.heads.contains(m.head);
            });
            const auto shared = lesson::colourRange(all);
            Json g;
            g["name"] = step.alternatives ? std::string(step.views[a].symbol) : std::string();
            Json indices = Json::array();
            for (const lesson::Heatmap& m : all) {
                indices.push_back(maps.size());
                maps.push_back(packer.add(m, step.perHead() ? shared : lesson::colourRange({m})));
            }
            g["maps"] = indices;
            groups.push_back(g);
        }
        s["groups"] = groups;
        steps.push_back(s);
    }
    return {steps, markup};
}

// The values walkthroughSteps stores, counted from the trace's shapes without drawing a map of
// a trace step: batch item 0 of each view of each step shown, of the selected heads on per-head
// steps (the input step's few maps, each the input's size, are drawn and counted).
std::uint64_t stepValueCount(const WebPageContent& content)
{
    const auto& w = content.walkthrough;
    if (!w || w->weightsOnly())
        return 0;
    const auto batch = static_cast<std::uint64_t>(std::max(1, w->batch()));
    std::uint64_t total = 0;
    for (lesson::LessonStepIndex i : lesson::shownLessonSteps(*w->trace)) {
        const lesson::LessonStep& step = lesson::kLessonSteps[i];
        if (!wanted(step, content.steps))
            continue;
        if (step.views.empty()) // the input X and what it is made of: the size of the input
            for (const lesson::Heatmap& m : lesson::stepHeatmaps(step, w, 0, 0))
                total +=
                    static_cast<std::uint64_t>(m.rows()) * static_cast<std::uint64_t>(m.cols());
        for (const lesson::TraceView& view : step.views) {
            const engine::Tensor& t = w->trace->step(view.step);
            std::uint64_t values = static_cast<std::uint64_t>(t.size()) / batch;
            if (step.perHead() && t.rank() >= 2 && t.dim(1) > 0 && !content.heads.isAll()) {
                const auto heads = static_cast<std::uint64_t>(t.dim(1));
                const auto chosen =
                    static_cast<std::uint64_t>(content.heads
                                                   .within(static_cast<int>(std::min<std::int64_t>(
                                                       t.dim(1), std::numeric_limits<int>::max())))
                                                   .size());
                values = values / heads * chosen;
            }
            total += values;
        }
    }
    return total;
}

QString filled(const QString& page, const std::map<QString, QString>& values)
{
    // One pass, so that nothing a value brings in (a token "{{title}}") is filled again.
    static const QRegularExpression slot(QStringLiteral("\\{\\{([a-z_]+)\\}\\}"));
    QString out;
    qsizetype at = 0;
    for (auto m = slot.globalMatch(page); m.hasNext();) {
        const QRegularExpressionMatch s = m.next();
        out += QStringView(page).mid(at, s.capturedStart() - at);
        const auto value = values.find(s.captured(1));
        out += value == values.end() ? s.captured() : value->second;
        at = s.capturedEnd();
    }
    out += QStringView(page).mid(at);
    return out;
}

} // namespace

std::uint64_t webPageValueCount(const WebPageContent& content)
{
    std::uint64_t total = 0;
    for (const lesson::ExportItem& item : content.weights)
        total += static_cast<std::uint64_t>(item.heatmap.rows()) *
            static_cast<std::uint64_t>(item.heatmap.cols());
    return total + stepValueCount(content);
}

QByteArray renderWebPage(const WebPageContent& content)
{
    if (content.bits != 8 && content.bits != 16)
        throw engine::InputError("A web page stores its values with 8 or 16 bits, not " +
                                 std::to_string(content.bits) + ".");
    if (content.weights.empty() && !content.walkthrough)
        throw engine::InputError("The selection holds nothing to put on a web page.");
    if (const std::uint64_t values = webPageValueCount(content); values > kMaxWebPageValues)
        throw engine::InputError(
            "The web page would hold " + std::to_string(values) + " values, more than the " +
            std::to_string(kMaxWebPageValues) +
            " a browser opens comfortably; choose fewer layers, heads, steps or tokens.");

    ValuePacker packer(content.bits);
    Json maps = Json::array();
    Json data;
    data["version"] = 1;
    data["title"] = utf8(content.title);
    data["bits"] = content.bits;
    data["blocks"] = headViewBlocks(content, packer, maps);
    auto [steps, stepMarkup] = walkthroughSteps(content, packer, maps);
    data["steps"] = steps;
    data["maps"] = maps;
    data["colours"] = {
        {"sequential", colourTable(*content.colouring.sequential)},
        {"diverging", colourTable(*content.colouring.diverging)},
        {"blocked", blockedColour().rgb() & 0xffffff},
    };
    Json heads = Json::array();
    for (int h = 0; h < 64; ++h)
        heads.push_back(headColour(h).rgb() & 0xffffff);
    data["colours"]["heads"] = heads;
    if (!content.picture.isNull()) {
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        content.picture.save(&buffer, "PNG");
        data["picture"] = {{"png", "data:image/png;base64," + png.toBase64().toStdString()},
                           {"patchRows", content.patchRows},
                           {"patchColumns", content.patchColumns},
                           {"firstPatchToken", content.firstPatchToken}};
    }
    data["strings"] = {
        {"layer", utf8(WebPage::tr("Layer"))},
        {"head", utf8(WebPage::tr("head %1"))},
        {"mean", utf8(WebPage::tr("mean of the heads"))},
        {"query", utf8(WebPage::tr("query"))},
        {"key", utf8(WebPage::tr("key"))},
        {"row", utf8(WebPage::tr("row"))},
        {"column", utf8(WebPage::tr("column"))},
        {"blocked", utf8(WebPage::tr("blocked by the mask"))},
        {"within", utf8(WebPage::tr("stored to ±%1"))},
        {"layerHead", utf8(WebPage::tr("layer %1 · head %2"))},
        {"block_self", utf8(WebPage::tr("self-attention"))},
        {"block_masked_self", utf8(WebPage::tr("masked self-attention"))},
        {"block_cross", utf8(WebPage::tr("cross-attention"))},
        {"noUnpacking",
         utf8(WebPage::tr("This browser cannot unpack the page's numbers (it has no "
                          "DecompressionStream): open the page in a current Chromium, "
                          "Firefox or Safari."))},
        {"hoverQuery", utf8(WebPage::tr("Weights of “%1” over the keys (heads %2)"))},
        {"picture", utf8(WebPage::tr("Attention of [CLS] over the picture: %1"))},
    };
    // The numbers are packed with zlib (the page unpacks them with DecompressionStream).
    const QByteArray packed = qCompress(packer.bytes(), 9).mid(4);

    const QByteArray style = resource(":/web/page.css");
    const QByteArray script = resource(":/web/page.js");
    const QString page = QString::fromUtf8(resource(":/web/page.html"));
    const std::map<QString, QString> fields{
        {"language",
         QLocale().language() == QLocale::C
             ? QStringLiteral("en")
             : QLocale().name().replace(QLatin1Char('_'), QLatin1Char('-'))},
        {"title", escaped(content.title)},
        {"csp",
         QStringLiteral("default-src 'none'; script-src %1; style-src %2; img-src data:; "
                        "base-uri 'none'; form-action 'none'")
             .arg(QString::fromLatin1(sha256Source(script)),
                  QString::fromLatin1(sha256Source(style)))},
        {"style", QString::fromUtf8(style)},
        {"script", QString::fromUtf8(script)},
        {"data", QString::fromStdString(scriptSafeJson(data))},
        {"values", QString::fromLatin1(packed.toBase64())},
        {"steps", stepMarkup},
        {"tab_heads", escaped(WebPage::tr("Head view"))},
        {"tab_model", escaped(WebPage::tr("Model view"))},
        {"tab_steps", escaped(WebPage::tr("Step by step"))},
        {"tab_picture", escaped(WebPage::tr("Picture"))},
        {"layer", escaped(WebPage::tr("Layer"))},
        {"heads", escaped(WebPage::tr("Heads"))},
        {"previous", escaped(WebPage::tr("← Previous"))},
        {"next", escaped(WebPage::tr("Next →"))},
        {"opacity", escaped(WebPage::tr("Opacity"))},
        {"head_view_help",
         escaped(WebPage::tr(
             "Point at a word on the left, or move to it with Tab and the arrow keys, to "
             "see where it looks: each line's strength is its attention weight, each "
             "colour one head."))},
        {"model_view_help",
         escaped(WebPage::tr(
             "Every layer and head at once: rows are queries, columns keys. Click a map, "
             "or press Enter on it, to open it."))},
        {"steps_help",
         escaped(WebPage::tr("← and → move between the steps; point at a cell to read "
                             "its value."))},
        {"precision",
         escaped(WebPage::tr(
                     "Each value is stored in %1 bits, as a whole number of steps from its map's "
                     "smallest value; a value read here is within half a step of the computed one "
                     "(the step is shown with it).")
                     .arg(content.bits))},
        {"footer",
         escaped(WebPage::tr("Made with AttnViz. Everything this page needs is inside it: it "
                             "opens offline and loads nothing from the network."))},
    };
    return filled(page, fields).toUtf8();
}

} // namespace attnviz::render
