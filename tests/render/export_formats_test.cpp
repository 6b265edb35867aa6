// The registry of export formats (#9) and the all-or-nothing set writer behind it (#11).
#include "engine/input_error.h"
#include "gui_application.h"
#include "io/atomic_file.h"
#include "io/file_set.h"
#include "io/input_file.h"
#include "lesson/export_plan.h"
#include "lesson/playground.h"
#include "render/export_formats.h"
#include "render/heatmap_painter.h"
#include "render/image_export.h"
#include "support/temp_folder.h"

#include <QImage>
#include <QXmlStreamReader>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;

class ExportFormats : public TempFolderTest {
protected:
    static void SetUpTestSuite() { test::ensureGuiApplication(); }

    render::ExportJob job() const
    {
        lesson::ExportSelection all;
        render::ExportJob j;
        j.items =
            lesson::planWalkthroughExport(lesson::computePlayground({}), all, "", "playground · ");
        j.figure.size = {300, 260, 96};
        return j;
    }
};

TEST_F(ExportFormats, NamesAreUniqueAndLookUpCaseInsensitively)
{
    std::set<std::string_view> names;
    for (const render::ExportFormat& f : render::exportFormats()) {
        EXPECT_TRUE(names.insert(f.name).second) << f.name;
        EXPECT_EQ(render::exportFormat(f.name), &f);
        EXPECT_FALSE(f.dialogFilter.empty());
        EXPECT_EQ(f.itemBytes != nullptr,
                  f.kind == render::ExportKind::Image || f.kind == render::ExportKind::Matrix)
            << f.name;
    }
    EXPECT_EQ(render::exportFormat("PNG"), render::exportFormat("png"));
    EXPECT_EQ(render::exportFormat("bmp"), nullptr);
    // Every name once, in table order, the last after "or".
    const std::string list = render::exportFormatList();
    std::size_t at = 0;
    for (const render::ExportFormat& f : render::exportFormats()) {
        const std::size_t found = list.find(f.name, at);
        ASSERT_NE(found, std::string::npos) << list;
        at = found + f.name.size();
    }
    EXPECT_EQ(at, list.size()) << list;
    EXPECT_NE(list.find(" or " + std::string(render::exportFormats().back().name)),
              std::string::npos)
        << list;
}

TEST_F(ExportFormats, EveryMatrixFormatWritesWhatItsNameSays)
{
    const render::ExportJob j = job();
    const lesson::ExportItem& item = j.items.front();
    const QImage png =
        QImage::fromData(render::exportFormat("png")->itemBytes(item, j.figure), "PNG");
    EXPECT_EQ(png.size(), QSize(300, 260));
    EXPECT_TRUE(render::exportFormat("svg")->itemBytes(item, j.figure).contains("<svg"));
    EXPECT_TRUE(render::exportFormat("pdf")->itemBytes(item, j.figure).startsWith("%PDF"));
    EXPECT_TRUE(
        render::exportFormat("csv")->itemBytes(item, j.figure).startsWith("query\\key,the,cat"));
    EXPECT_TRUE(render::exportFormat("npy")->itemBytes(item, j.figure).startsWith("\x93NUMPY"));
}

TEST_F(ExportFormats, WritesTheWholeSetIntoANewFolder)
{
    const std::vector<std::string> written =
        render::writeExport(*render::exportFormat("csv"), job(), path("new/figs"), false);
    EXPECT_EQ(written.size(), 4u);
    EXPECT_TRUE(fs::exists(path("new/figs/head3_weights.csv")));
}

TEST_F(ExportFormats, AFailurePartWayLeavesNothing)
{
    // A folder where the third file should go: the first two are written, then the set fails.
    fs::create_directories(path("out/head2_weights.png"));
    EXPECT_THROW(render::writeExport(*render::exportFormat("png"), job(), path("out"), true),
                 io::FileError);
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(path("out")))
        left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{"head2_weights.png"});
}

TEST_F(ExportFormats, AnExistingFileStopsTheSetBeforeAnythingIsWritten)
{
    fs::create_directories(path("out"));
    io::writeFileAtomically(path("out/head1_weights.npy"), std::string_view("mine"));
    EXPECT_THROW(render::writeExport(*render::exportFormat("npy"), job(), path("out"), false),
                 io::ExistingFileError);
    EXPECT_EQ(io::readFile(path("out/head1_weights.npy")), "mine");
    EXPECT_FALSE(fs::exists(path("out/head0_weights.npy")));
}

// #23: a map too large for one rectangle per cell is embedded as an image, and in a PDF that
// image is lossless and unscaled: Qt stored it as JPEG (errors up to 143/255, a weight of 1.0
// pale green). pdfimages (poppler-utils) takes it out again, and every pixel must be its cell's
// colour.
TEST_F(ExportFormats, APdfEmbedsLargeMapsLosslessOnePixelPerCell)
{
    lesson::PlaygroundSettings settings;
    std::string sentence;
    for (int i = 0; i < 150; ++i)
        sentence += "w" + std::to_string(i % 97) + " ";
    settings.querySentences = {sentence};
    settings.mask = lesson::MaskKind::Causal;
    lesson::ExportSelection weights;
    const std::vector<lesson::ExportItem> items =
        lesson::planWalkthroughExport(lesson::computePlayground(settings), weights, "", "");
    const lesson::ExportItem& item = items.front();
    ASSERT_EQ(item.heatmap.rows(), 150);
    io::writeFileAtomically(path("map.pdf"),
                            render::exportFormat("pdf")->itemBytes(item, render::FigureOptions{}));

    ASSERT_EQ(
        std::system(("pdfimages -list " + path("map.pdf") + " > " + path("list.txt")).c_str()), 0);
    const std::string list = io::readFile(path("list.txt"));
    EXPECT_EQ(list.find("jpeg"), std::string::npos) << list;
    ASSERT_EQ(std::system(("pdfimages -png " + path("map.pdf") + " " + path("img")).c_str()), 0);
    const QImage expected = render::cellImage(item.heatmap, item.range);
    QImage found;
    for (const auto& e : fs::directory_iterator(dir()))
        if (e.path().extension() == ".png") {
            const QImage image(QString::fromStdString(e.path().string()));
            if (image.size() == expected.size())
                found = image.convertToFormat(QImage::Format_RGB32);
        }
    ASSERT_FALSE(found.isNull()) << "no embedded image of " << expected.width() << " × "
                                 << expected.height() << " pixels:\n"
                                 << list;
    int wrong = 0;
    for (int y = 0; y < expected.height(); ++y)
        for (int x = 0; x < expected.width(); ++x)
            wrong += (found.pixel(x, y) & 0xffffff) != (expected.pixel(x, y) & 0xffffff);
    EXPECT_EQ(wrong, 0) << "of " << expected.width() * expected.height() << " pixels";
}

// #23: a PNG says what its colours mean in its Description text, as SVG and PDF do.
TEST_F(ExportFormats, APngStatesItsColourScale)
{
    const lesson::ExportItem item = job().items.front();
    render::FigureOptions figure;
    figure.colouring.sequential = render::colourMap("cividis");
    const QImage image = QImage::fromData(render::exportFormat("png")->itemBytes(item, figure));
    EXPECT_THAT(image.text(QStringLiteral("Description")).toStdString(),
                ::testing::HasSubstr("colour map cividis, linear scale; range 0 to"));
    EXPECT_THAT(image.text(QStringLiteral("Title")).toStdString(), ::testing::HasSubstr("weights"));
}

// #23: vector cells are merged (runs of a colour, one path per colour), so an SVG of a 128-token
// map is small: 3.9 MB before, for the weights of a 128-word sentence.
TEST_F(ExportFormats, SvgOfA128TokenMapIsSmall)
{
    lesson::PlaygroundSettings settings;
    std::string sentence;
    for (int i = 0; i < 128; ++i)
        sentence += "w" + std::to_string(i % 97) + " ";
    settings.querySentences = {sentence};
    settings.mask = lesson::MaskKind::Causal;
    const std::vector<lesson::ExportItem> items = lesson::planWalkthroughExport(
        lesson::computePlayground(settings), lesson::ExportSelection{}, "", "");
    ASSERT_EQ(items.front().heatmap.rows(), 128);
    const QByteArray svg = render::exportFormat("svg")->itemBytes(items.front(), {});
    EXPECT_LT(svg.size(), 700 * 1024);
    EXPECT_GT(svg.count("<path"), 0) << "drawn as vectors";
}

// A renderer shows no hairline seam where colours meet: two
// dark colours in a checkerboard, rendered by librsvg at a scale that puts edges between pixels,
// must never give a pixel lighter than the lighter of the two (a seam lets the white background
// through the antialiased edges).
TEST_F(ExportFormats, SvgCellsAreMergedAndShowNoSeams)
{
    std::vector<float> values(128 * 128);
    for (int r = 0; r < 128; ++r)
        for (int c = 0; c < 128; ++c)
            values[static_cast<std::size_t>(r) * 128 + c] = ((r / 3 + c / 2) % 2) ? 0.1f : 0.0f;
    lesson::Heatmap map;
    map.matrix = {values.data(), 128, 128, "query", "key", {}, {}};
    map.scale = lesson::ColourScale::Sequential;
    const QByteArray svg = render::renderImage({map}, {0.0, 1.0}, {}, render::ImageFormat::Svg,
                                               render::FigureOptions{{900, 800, 96}});
    io::writeFileAtomically(path("map.svg"), std::string_view(svg.constData(), svg.size()));
    ASSERT_EQ(
        std::system(("rsvg-convert -z 1.37 " + path("map.svg") + " -o " + path("map.png")).c_str()),
        0);
    const QImage image =
        QImage(QString::fromStdString(path("map.png"))).convertToFormat(QImage::Format_RGB32);
    ASSERT_FALSE(image.isNull());
    const QPointF topLeft =
        render::cellCentreInImage(map, {0.0, 1.0}, render::FigureOptions{{900, 800, 96}}, 0, 0) *
        1.37;
    const QPointF bottomRight =
        render::cellCentreInImage(map, {0.0, 1.0}, render::FigureOptions{{900, 800, 96}}, 127,
                                  127) *
        1.37;
    const auto luminance = [](QRgb c) { return qRed(c) + qGreen(c) + qBlue(c); };
    const int lighter = std::max(luminance(render::colourOf(0.0, {0.0, 1.0}, map.scale)),
                                 luminance(render::colourOf(0.1, {0.0, 1.0}, map.scale)));
    int seams = 0;
    for (int y = static_cast<int>(topLeft.y()); y < static_cast<int>(bottomRight.y()); ++y)
        for (int x = static_cast<int>(topLeft.x()); x < static_cast<int>(bottomRight.x()); ++x)
            seams += luminance(image.pixel(x, y)) > lighter + 6;
    EXPECT_EQ(seams, 0) << "pixels lighter than both cell colours";
}

// #22: text from the input reaches an SVG as data, never as markup: a model name that closes
// <title> and opens a <script>, an ampersand, control characters and a non-character XML 1.0
// forbids (an SVG holding them is not XML at all). The document's title, and the titles and
// labels drawn, which show those characters as their codes.
TEST_F(ExportFormats, HostileTextMakesAWellFormedInertSvg)
{
    const std::string hostile =
        "gpt2</title><script>alert(document.domain)</script><title>\x01\x1b&\xef\xbf\xbe";
    const std::string shown =
        "gpt2</title><script>alert(document.domain)</script><title>\\x01\\x1b&\\xfffe";
    const std::vector<float> values{0.5f, 0.5f, 0.5f, 0.5f};
    lesson::Heatmap map;
    map.matrix = {values.data(), 2, 2, "query", "key", {hostile, "<b>"}, {"a&b", "\x1b[31m"}};
    map.title = hostile + " · weights";
    map.scale = lesson::ColourScale::Sequential;
    // Alone, the heatmap's title is the document's; in a grid, the figure's title is.
    for (const auto& [figureTitle, documentTitle] :
         {std::pair(std::string(), shown + " · weights"), std::pair(hostile, shown)}) {
        const QByteArray svg =
            render::renderImage({map}, {0.0, 1.0}, QString::fromStdString(figureTitle),
                                render::ImageFormat::Svg, render::FigureOptions{{1600, 600, 96}});
        EXPECT_FALSE(svg.contains("<script"));
        QXmlStreamReader xml(svg);
        std::vector<std::string> titles, texts;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                EXPECT_NE(xml.name(), u"script");
                if (xml.name() == u"title")
                    titles.push_back(xml.readElementText().toStdString());
                if (xml.name() == u"text")
                    texts.push_back(xml.readElementText().toStdString());
            }
        EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
        EXPECT_EQ(titles, std::vector<std::string>{documentTitle});
        EXPECT_THAT(texts, ::testing::Contains(shown + " · weights"));
        EXPECT_THAT(texts, ::testing::Contains("\\x1b[31m"));
    }
}

TEST(XmlEscaped, EscapesMarkupAndDropsWhatXmlForbids)
{
    EXPECT_EQ(
        render::xmlEscaped(QString::fromUtf8("a<b>&\"'\t\n\x01\x1f\xef\xbf\xbf😀注")).toStdString(),
        "a&lt;b&gt;&amp;&quot;&apos;\t\n😀注");
    EXPECT_EQ(render::xmlEscaped(QString(QChar(0xd800)) + QLatin1Char('x')).toStdString(), "x");
}

} // namespace
} // namespace attnviz::test
