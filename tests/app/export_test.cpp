// Exports from the app (#5), driven through the real window offscreen: the app and the CLI write
// the same image for the same view, an exported heatmap keeps the matrix's row and column order,
// and the grid, data, trace and handout exports land complete.
#include "app/export/export_dialog.h"
#include "app/export/export_menu.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/main_window.h"
#include "app/window/walkthrough_runner.h"
#include "app_test_steps.h"
#include "io/atomic_file.h"
#include "io/input_file.h"
#include "render/colour_map.h"
#include "render/image_export.h"
#include "support/process.h"
#include "ui_export_dialog.h"
#include "ui_model_panel.h"
#include "window_test_support.h"

#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnviz;
using namespace attnviz::app;

class ExportTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    ExportMenu* m_exports = nullptr;
    QTemporaryDir m_dir;

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // first start: the reverse demo, layer 1, cross-attention
        m_window = std::make_unique<MainWindow>();
        m_exports = m_window->exportMenu();
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        settle();
        QVERIFY(m_window->walkthrough());
    }

    void cleanupTestCase() { m_window.reset(); }

    void theMenuNamesTheHeadItWillExport()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_window->stepPanel()->grid()->showAll();
        auto* menu = m_window->findChild<QMenu*>(QStringLiteral("menuExport"));
        QVERIFY(menu);
        const auto heatmapAction = [menu] {
            emit menu->aboutToShow();
            return menu->actions().front();
        };
        QCOMPARE(heatmapAction()->text(), QStringLiteral("Current &heatmap as image: head 0…"));
        QVERIFY(heatmapAction()->statusTip().contains(QStringLiteral("head 0 is exported")));
        m_window->stepPanel()->grid()->focusHead(3);
        QCOMPARE(heatmapAction()->text(), QStringLiteral("Current &heatmap as image: head 3…"));
        QVERIFY(heatmapAction()->statusTip().isEmpty());
        m_window->stepPanel()->setStep(attnviz::test::step("concat")); // one whole matrix
        QCOMPARE(heatmapAction()->text(), QStringLiteral("Current &heatmap as image…"));
    }

    void appAndCliWriteTheSameImageForTheSameView()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_window->stepPanel()->grid()->focusHead(2);
        const render::FigureOptions size{{720, 600, 144}};
        m_exports->exportCurrentHeatmap(path(QStringLiteral("app.png")), size);
        const test::ProcessResult cli =
            test::runProcess(ATTNVIZ_CLI_PATH, {"export",   "--model",   "reverse",
                                                "--text",   "attention", "--layers",
                                                "1",        "--blocks",  "cross",
                                                "--heads",  "2",         "--format",
                                                "png",      "--width",   "720",
                                                "--height", "600",       "--dpi",
                                                "144",      "--out",     m_dir.path().toStdString(),
                                                "--quiet"});
        QCOMPARE(cli.exitCode, 0);
        const std::string app = io::readFile(path(QStringLiteral("app.png")).toStdString());
        const std::string fromCli =
            io::readFile(path(QStringLiteral("layer1_cross_head2_weights.png")).toStdString());
        QVERIFY(!app.empty());
        QVERIFY2(app == fromCli, "the app's and the CLI's PNG differ");
    }

    // #23: the overview exported as the figure it is (it failed with "The input step shows no
    // attention matrix"): the CLI's --figure grid of the same block, on the overview's range.
    void theOverviewExportsAsOneLayersByHeadsFigure()
    {
        m_window->modelPanel()->ui()->overview->setChecked(true);
        settle();
        const auto figure = m_exports->overviewFigure();
        QVERIFY(figure);
        QCOMPARE(figure->content.maps.size(), std::size_t{2 * 4}); // reverse: 2 layers × 4 heads
        QCOMPARE(figure->content.columns, 4);
        QCOMPARE(figure->content.maps[5].title, std::string("layer 1 · head 1"));
        m_exports->exportCurrentGrid(path(QStringLiteral("overview.png")),
                                     render::FigureOptions{{1200, 700, 96}});
        QCOMPARE(QImage(path(QStringLiteral("overview.png"))).size(), QSize(1200, 700));
        m_exports->exportCurrentHeatmap(path(QStringLiteral("overview.svg")), {});
        QVERIFY(io::readFile(path(QStringLiteral("overview.svg")).toStdString())
                    .find(">layer 0 · head 3<") != std::string::npos);
        bool refused = false;
        try {
            m_exports->exportCurrentHeatmap(path(QStringLiteral("overview.csv")), {});
        } catch (const ExportError& e) {
            refused = QString::fromUtf8(e.what()).contains(QStringLiteral("every layer and head"));
        }
        QVERIFY(refused);
        m_window->modelPanel()->ui()->overview->setChecked(false);
        settle();
        QVERIFY(!m_exports->overviewFigure());
    }

    // #23.8: the export dialog opens with what was chosen last, and its figure is what it shows.
    void theExportDialogRemembersItsChoices()
    {
        {
            ExportDialog dialog(m_window.get(), {render::ExportKind::Image});
            QCOMPARE(dialog.ui()->width->value(), 900); // a first start
            dialog.ui()->format->setCurrentIndex(dialog.ui()->format->findData("svg"));
            dialog.ui()->width->setValue(1234);
            dialog.ui()->dpi->setValue(300);
            dialog.ui()->colourMap->setCurrentIndex(dialog.ui()->colourMap->findData("magma"));
            dialog.ui()->labels->setCurrentIndex(dialog.ui()->labels->findData("none"));
            dialog.ui()->transparent->setChecked(true);
            dialog.ui()->headFrame->setChecked(false);
            dialog.ui()->rangeMode->setCurrentIndex(dialog.ui()->rangeMode->findData("fixed"));
            QVERIFY(dialog.ui()->vmax->isEnabled());
            dialog.ui()->vmin->setValue(0.5);
            dialog.ui()->vmax->setValue(0.25);
            QPushButton* ok = dialog.ui()->buttons->button(QDialogButtonBox::Ok);
            QVERIFY(!ok->isEnabled()); // an empty range: OK waits, and says why
            QVERIFY(ok->toolTip().contains(QStringLiteral("must be below")));
            dialog.ui()->vmin->setValue(0);
            QVERIFY(ok->isEnabled());
            dialog.ui()->scale->setCurrentIndex(dialog.ui()->scale->findData("power"));
            dialog.accept();
        }
        ExportDialog again(m_window.get(), {render::ExportKind::Image});
        if (const QByteArray shot = qgetenv("ATTNVIZ_EXPORT_DIALOG_SHOT"); !shot.isEmpty()) {
            again.show(); // docs/screenshots/45-export-dialog.png, under xvfb-run
            QVERIFY(QTest::qWaitForWindowExposed(&again));
            QVERIFY(again.grab().save(QString::fromLocal8Bit(shot)));
        }
        QCOMPARE(again.format().name, std::string_view("svg"));
        const render::FigureOptions figure = again.figure();
        QCOMPARE(figure.size.width, 1234);
        QCOMPARE(figure.size.dpi, 300);
        QCOMPARE(figure.colouring.sequential->name, std::string_view("magma"));
        QVERIFY(figure.labels == render::LabelMode::None);
        QVERIFY(figure.transparent);
        QVERIFY(!figure.headFrame);
        QVERIFY(figure.spaceMarks);
        const lesson::ScaleChoice scale = again.scale();
        QVERIFY(scale.mode == lesson::RangeMode::Fixed);
        QCOMPARE(*scale.high, 0.25);
        QVERIFY(scale.stretch == lesson::Stretch::Power);
        QVERIFY(figure.colouring.stretch == lesson::Stretch::Power);
        // The range reaches the file: a fixed 0–0.25 says so in the PNG.
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_exports->exportCurrentHeatmap(path(QStringLiteral("fixed.png")), figure, scale);
        QVERIFY(
            QImage(path(QStringLiteral("fixed.png")))
                .text(QStringLiteral("Description"))
                .contains(QStringLiteral("power 0.5 scale; range 0 to 0.25, fixed by the user")));
        // A rejected dialog changes nothing.
        again.ui()->width->setValue(500);
        again.reject();
        QCOMPARE(ExportDialog(m_window.get(), {render::ExportKind::Image}).figure().size.width,
                 1234);
        QSettings().remove(QStringLiteral("export"));
    }

    void exportedCellsFollowTheMatrixOrder()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        const auto item = m_exports->currentItem();
        QVERIFY(item);
        const render::FigureOptions size{{800, 700, 96}};
        m_exports->exportCurrentHeatmap(path(QStringLiteral("order.png")), size);
        const QImage image(path(QStringLiteral("order.png")));
        QCOMPARE(image.size(), QSize(800, 700));
        const auto& d = item->heatmap;
        // Every cell's pixel has exactly the colour of that cell's value, so rows run top to
        // bottom and columns left to right exactly as in the matrix.
        for (int r = 0; r < d.rows(); ++r)
            for (int c = 0; c < d.cols(); ++c) {
                const QPointF at = render::cellCentreInImage(d, item->range, size, r, c);
                const QColor got = image.pixelColor(at.toPoint());
                const QColor want =
                    QColor::fromRgb(render::colourOf(d.value(r, c), item->range, d.scale));
                const int distance = std::abs(got.red() - want.red()) +
                    std::abs(got.green() - want.green()) + std::abs(got.blue() - want.blue());
                QVERIFY2(distance <= 3,
                         qPrintable(QStringLiteral("cell %1,%2: %3 vs %4")
                                        .arg(r)
                                        .arg(c)
                                        .arg(got.name(), want.name())));
            }
    }

    void gridDataTraceAndHandoutExports()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        m_exports->exportCurrentGrid(path(QStringLiteral("grid.svg")), {});
        QVERIFY(io::readFile(path(QStringLiteral("grid.svg")).toStdString()).find("<svg") !=
                std::string::npos);
        m_exports->exportCurrentHeatmap(path(QStringLiteral("scores.csv")), {});
        const std::string csv = io::readFile(path(QStringLiteral("scores.csv")).toStdString());
        QVERIFY2(csv.rfind("query\\key,a,t,t,e,n,t,i,o,n\n<s>,", 0) == 0,
                 csv.substr(0, 60).c_str());
        m_exports->exportTrace(path(QStringLiteral("trace")));
        QVERIFY(QFileInfo::exists(path(QStringLiteral("trace.safetensors"))));
        QVERIFY(io::readFile(path(QStringLiteral("trace.json")).toStdString())
                    .find("\"layer1.cross.weights\"") != std::string::npos);
        m_exports->exportHandout(path(QStringLiteral("handout.pdf")));
        const test::ProcessResult info = test::runProcess(
            "/usr/bin/pdfinfo", {path(QStringLiteral("handout.pdf")).toStdString()});
        const auto pages = lesson::shownLessonSteps(*m_window->walkthrough()->trace).size();
        QVERIFY2(info.out.find("Pages:           " + std::to_string(pages)) != std::string::npos,
                 info.out.c_str());
        QVERIFY_THROWS_EXCEPTION(
            ExportError, m_exports->exportCurrentHeatmap(path(QStringLiteral("x.bmp")), {}));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("x.bmp"))));
    }

    void everyLayerHeadAndStepAtOnce()
    {
        QTemporaryDir all;
        int lastDone = 0, lastTotal = 0;
        const auto written = m_exports->exportEverything(
            all.path(), *render::exportFormat("npy"), {}, false,
            [&](int done, int total) { lastDone = done, lastTotal = total; });
        // 2 layers × 3 blocks × (8 per-head steps × 4 heads + 5 whole-matrix steps), each .npy
        // with its .labels.json
        QCOMPARE(written.size(), 2u * 2 * 3 * (8 * 4 + 5));
        QCOMPARE(lastDone, lastTotal);
        QVERIFY(
            QFileInfo::exists(all.filePath(QStringLiteral("layer0_masked_self_head1_masked.npy"))));
        QVERIFY(QFileInfo::exists(
            all.filePath(QStringLiteral("layer0_masked_self_head1_masked.labels.json"))));
    }

    // #27: Export ▸ Web page… writes one page with every layer, block and head's weights and the
    // walkthrough of the block shown (reverse: layer 1, cross-attention).
    void webPageHoldsEveryHeadAndTheBlockShown()
    {
        const QString file = path(QStringLiteral("lesson.html"));
        m_exports->exportWebPage(file);
        QFile page(file);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(page.readAll());
        const QString opening =
            QStringLiteral("<script type=\"application/json\" id=\"attnviz-data\">");
        const qsizetype from = html.indexOf(opening) + opening.size();
        const QJsonObject data =
            QJsonDocument::fromJson(
                html.mid(from, html.indexOf(QStringLiteral("</script>"), from) - from).toUtf8())
                .object();
        QVERIFY(data[QStringLiteral("title")].toString().startsWith(QStringLiteral("reverse")));
        QCOMPARE(data[QStringLiteral("blocks")].toArray().size(), 2 * 3);
        const auto shown = lesson::shownLessonSteps(*m_window->walkthrough()->trace);
        QCOMPARE(data[QStringLiteral("steps")].toArray().size(),
                 static_cast<qsizetype>(shown.size()));
        QCOMPARE(html.count(QStringLiteral("<section class=\"step\"")),
                 static_cast<qsizetype>(shown.size()));
        // The walkthrough's input step is the cross block's: its queries are the decoder's.
        const QJsonObject cross = data[QStringLiteral("blocks")].toArray().last().toObject();
        QCOMPARE(cross[QStringLiteral("block")].toString(), QStringLiteral("cross"));
        QCOMPARE(cross[QStringLiteral("layer")].toInt(), 1);
        QVERIFY(html.contains(QStringLiteral("data-step=\"softmax\"")));
        QVERIFY(!QFileInfo::exists(file + QStringLiteral(".tmp")));
    }

    void copyPutsTheViewOnTheClipboard()
    {
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        m_exports->copyToClipboard();
        const QImage copied = QApplication::clipboard()->image();
        QCOMPARE(copied.size(), QSize(900, 800));
    }
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
