// #27: the web page is one file whose only script and style are the ones its
// Content-Security-Policy names by hash; its numbers, unpacked as the page unpacks them, are the
// walkthrough's within the half step it states; tokens cannot end its data blocks.
#include "engine/input_error.h"
#include "lesson/export_plan.h"
#include "lesson/lesson_steps.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"
#include "render/web_page.h"

#include <QCryptographicHash>
#include <QRegularExpression>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace attnviz::render {
namespace {

using Json = nlohmann::json;

std::shared_ptr<const lesson::Walkthrough> playground()
{
    lesson::PlaygroundSettings s;
    s.querySentences = {"the cat sat on the mat"};
    s.heads = 3;
    s.mask = lesson::MaskKind::Causal;
    return lesson::computePlayground(s);
}

WebPageContent contentOf(const std::shared_ptr<const lesson::Walkthrough>& w)
{
    WebPageContent c;
    c.title = QStringLiteral("playground");
    lesson::ExportSelection weights;
    c.weights = lesson::planWalkthroughExport(w, weights, "", "");
    c.walkthrough = w;
    return c;
}

// The text between `<script …id="NAME">` and the next `</script>`.
QString block(const QString& page, const QString& opening)
{
    const qsizetype start = page.indexOf(opening);
    EXPECT_GE(start, 0) << opening.toStdString();
    const qsizetype from = start + opening.size();
    return page.mid(from, page.indexOf(QStringLiteral("</script>"), from) - from);
}

struct UnpackedPage {
    Json data;
    std::vector<std::uint32_t> codes;
};

UnpackedPage unpack(const QByteArray& bytes)
{
    const QString page = QString::fromUtf8(bytes);
    UnpackedPage u;
    u.data = Json::parse(
        block(page, QStringLiteral("<script type=\"application/json\" id=\"attnviz-data\">"))
            .toStdString());
    const QByteArray packed = QByteArray::fromBase64(
        block(page,
              QStringLiteral("<script type=\"application/octet-stream\" id=\"attnviz-values\">"))
            .toLatin1());
    // qUncompress wants the length in front, as qCompress writes it; the page's zlib stream
    // carries none, since its maps say how many values there are.
    const int bits = u.data["bits"];
    std::uint32_t length = 0;
    for (const Json& map : u.data["maps"])
        length += map["rows"].get<std::uint32_t>() * map["cols"].get<std::uint32_t>() * (bits / 8);
    QByteArray sized(4, '\0');
    for (int i = 0; i < 4; ++i)
        sized[i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
    const QByteArray raw = qUncompress(sized + packed);
    EXPECT_EQ(static_cast<std::uint32_t>(raw.size()), length);
    for (qsizetype i = 0; i < raw.size(); i += bits / 8)
        u.codes.push_back(static_cast<unsigned char>(raw[i]) |
                          (bits == 16 ? static_cast<unsigned char>(raw[i + 1]) << 8 : 0u));
    return u;
}

// Every cell of map `index` as the page reads it, against the heatmap it came from.
void expectMapHolds(const UnpackedPage& u, std::size_t index, const lesson::Heatmap& source)
{
    const Json& map = u.data["maps"][index];
    const std::uint32_t top = (1u << u.data["bits"].get<int>()) - 5;
    const std::size_t offset = map["offset"];
    const double lo = map["min"], step = map["step"];
    ASSERT_EQ(map["rows"], source.rows());
    ASSERT_EQ(map["cols"], source.cols());
    for (int r = 0; r < source.rows(); ++r)
        for (int c = 0; c < source.cols(); ++c) {
            const std::uint32_t code = u.codes.at(offset + r * source.cols() + c);
            if (source.blocked(r, c)) {
                EXPECT_EQ(code, top + 1) << r << "," << c;
                continue;
            }
            ASSERT_LE(code, top);
            EXPECT_NEAR(lo + code * step, source.value(r, c), step / 2 + 1e-12) << r << "," << c;
        }
}

TEST(WebPage, HoldsTheWalkthroughsNumbersWithinHalfTheStepItStates)
{
    const auto w = playground();
    for (int bits : {16, 8}) {
        SCOPED_TRACE(bits);
        WebPageContent content = contentOf(w);
        content.bits = bits;
        const UnpackedPage u = unpack(renderWebPage(content));
        ASSERT_EQ(u.data["blocks"].size(), 1u);
        const Json& block = u.data["blocks"][0];
        EXPECT_EQ(block["queries"].size(), 6u);
        ASSERT_EQ(block["maps"].size(), 3u);
        for (std::size_t h = 0; h < 3; ++h)
            expectMapHolds(u, block["maps"][h], content.weights[h].heatmap);

        const std::vector<lesson::LessonStepIndex> shown = lesson::shownLessonSteps(*w->trace);
        ASSERT_EQ(u.data["steps"].size(), shown.size());
        for (std::size_t s = 0; s < shown.size(); ++s) {
            const lesson::LessonStep& step = lesson::kLessonSteps[shown[s]];
            const Json& groups = u.data["steps"][s]["groups"];
            EXPECT_EQ(u.data["steps"][s]["key"], step.key);
            for (std::size_t g = 0; g < groups.size(); ++g) {
                const auto maps = lesson::stepHeatmaps(step, w, 0, g);
                ASSERT_EQ(groups[g]["maps"].size(), maps.size()) << step.key;
                for (std::size_t m = 0; m < maps.size(); ++m)
                    expectMapHolds(u, groups[g]["maps"][m], maps[m]);
            }
        }
        // 8 bits keep a weight to within 1/502 of its range; 16 bits to 1/131062.
        const double step = u.data["maps"][block["maps"][0].get<int>()]["step"];
        EXPECT_LT(step, bits == 16 ? 1e-4 : 1e-2);
    }
}

TEST(WebPage, RunsOnlyTheScriptAndStyleItsPolicyNames)
{
    const QString page = QString::fromUtf8(renderWebPage(contentOf(playground())));
    const QRegularExpression policy(QStringLiteral(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
        "'sha256-([^']+)'; style-src 'sha256-([^']+)'; img-src data:;"));
    const QRegularExpressionMatch m = policy.match(page);
    ASSERT_TRUE(m.hasMatch());
    const QString script = block(page, QStringLiteral("<script>"));
    const QString style =
        page.section(QStringLiteral("<style>"), 1).section(QStringLiteral("</style>"), 0, 0);
    EXPECT_EQ(m.captured(1).toLatin1(),
              QCryptographicHash::hash(script.toUtf8(), QCryptographicHash::Sha256).toBase64());
    EXPECT_EQ(m.captured(2).toLatin1(),
              QCryptographicHash::hash(style.toUtf8(), QCryptographicHash::Sha256).toBase64());
    // One script runs; nothing names a place outside the file; nothing is evaluated.
    EXPECT_EQ(page.count(QStringLiteral("<script>")), 1);
    EXPECT_EQ(page.count(QStringLiteral("<style>")), 1);
    EXPECT_FALSE(page.contains(QStringLiteral("<link")));
    EXPECT_FALSE(page.contains(QRegularExpression(QStringLiteral("(src|href)=\"(?!data:)"))));
    EXPECT_FALSE(page.contains(QRegularExpression(QStringLiteral("https?://"))));
    EXPECT_FALSE(script.contains(QRegularExpression(
        QStringLiteral("\\beval\\(|new Function|innerHTML|setTimeout\\(['\"]"))));
    // The steps' words are in the page itself, readable without the script.
    EXPECT_EQ(page.count(QStringLiteral("<section class=\"step\"")),
              static_cast<qsizetype>(lesson::shownLessonSteps(*playground()->trace).size()));
}

TEST(WebPage, ATokenCannotEndADataBlockOrBecomeMarkup)
{
    const auto w = playground();
    WebPageContent content = contentOf(w);
    const std::string hostile = "</script><img src=x onerror=alert(1)><!-- {{title}} \xff";
    content.title = QString::fromStdString(hostile);
    for (lesson::ExportItem& item : content.weights) {
        item.heatmap.matrix.rowLabels[1] = hostile;
        item.heatmap.matrix.columnLabels[1] = hostile;
    }
    const QByteArray bytes = renderWebPage(content);
    const QString page = QString::fromUtf8(bytes);
    EXPECT_EQ(page.count(QStringLiteral("</script>")), 3); // the two data blocks and the script
    EXPECT_FALSE(page.contains(QStringLiteral("<img")));
    EXPECT_FALSE(page.contains(QStringLiteral("<!--")));
    EXPECT_TRUE(page.contains(QStringLiteral("<title>&lt;/script&gt;&lt;img")));
    // The label reads back as written (the stray byte as U+FFFD).
    const UnpackedPage u = unpack(bytes);
    const std::string label = u.data["blocks"][0]["queries"][1];
    EXPECT_EQ(label.substr(0, hostile.size() - 1), hostile.substr(0, hostile.size() - 1));
}

TEST(WebPage, RefusesWhatItCannotHoldInOneSentence)
{
    WebPageContent content = contentOf(playground());
    content.bits = 12;
    EXPECT_THROW(renderWebPage(content), engine::InputError);
    EXPECT_THROW(renderWebPage(WebPageContent{}), engine::InputError);
    content.bits = 16;
    EXPECT_GT(webPageValueCount(content), 0u);
}

// The size check counts what the page will hold: the selected steps and heads, not every step
// the trace kept (a 4001-token page of the weights alone was refused as if it held them all,
// and "choose fewer steps" could not help).
TEST(WebPage, CountsTheValuesOfWhatIsSelected)
{
    const auto w = playground();
    const auto stored = [](const QByteArray& bytes) {
        std::uint64_t values = 0;
        const UnpackedPage page = unpack(bytes);
        for (const Json& map : page.data["maps"])
            values += map["rows"].get<std::uint64_t>() * map["cols"].get<std::uint64_t>();
        return values;
    };
    WebPageContent all = contentOf(w);
    WebPageContent weights = contentOf(w);
    weights.steps = {engine::AttentionStep::Weights};
    WebPageContent oneHead = weights;
    oneHead.heads.add(1, 1);
    WebPageContent twoSteps = oneHead;
    twoSteps.steps.push_back(engine::AttentionStep::QHeads);
    for (const WebPageContent* c : {&all, &weights, &oneHead, &twoSteps})
        EXPECT_EQ(webPageValueCount(*c), stored(renderWebPage(*c)));
    EXPECT_LT(webPageValueCount(weights), webPageValueCount(all) / 3);
    EXPECT_LT(webPageValueCount(oneHead), webPageValueCount(weights));
    EXPECT_LT(webPageValueCount(oneHead), webPageValueCount(twoSteps));
}

} // namespace
} // namespace attnviz::render
