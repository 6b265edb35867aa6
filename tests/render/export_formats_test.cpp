// The registry of export formats (#9) and the all-or-nothing set writer behind it (#11).
#include "engine/input_error.h"
#include "gui_application.h"
#include "io/atomic_file.h"
#include "io/file_set.h"
#include "io/input_file.h"
#include "lesson/export_plan.h"
#include "lesson/playground.h"
#include "render/export_formats.h"
#include "support/temp_folder.h"

#include <QImage>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
        j.size = {300, 260, 96};
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
        QImage::fromData(render::exportFormat("png")->itemBytes(item, j.size), "PNG");
    EXPECT_EQ(png.size(), QSize(300, 260));
    EXPECT_TRUE(render::exportFormat("svg")->itemBytes(item, j.size).contains("<svg"));
    EXPECT_TRUE(render::exportFormat("pdf")->itemBytes(item, j.size).startsWith("%PDF"));
    EXPECT_TRUE(
        render::exportFormat("csv")->itemBytes(item, j.size).startsWith("query\\key,the,cat"));
    EXPECT_TRUE(render::exportFormat("npy")->itemBytes(item, j.size).startsWith("\x93NUMPY"));
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

} // namespace
} // namespace attnviz::test
