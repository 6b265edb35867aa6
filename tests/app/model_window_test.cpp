// The desktop app on whole models, driven through its real widgets offscreen (#4): the first
// start shows the trained encoder-decoder's alignment, the selectors pick layers, blocks and
// decoding steps, the overview opens any head, and a broken model folder is explained.
#include "app/experiments/attention_sinks_dialog.h"
#include "app/experiments/experiments_menu.h"
#include "app/experiments/head_types_dialog.h"
#include "app/experiments/importance_dialog.h"
#include "app/experiments/kv_cache_dialog.h"
#include "app/experiments/picture_attention_dialog.h"
#include "app/experiments/rollout_dialog.h"
#include "app/experiments/rotary_dialog.h"
#include "app/experiments/window_reach_dialog.h"
#include "app/export/map_export.h"
#include "app/panels/model_overview.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/views/picture_view.h"
#include "app/views/rotary_pairs_view.h"
#include "app/window/language.h"
#include "app/window/main_window.h"
#include "app/window/picture_drop.h"
#include "app_test_steps.h"
#include "context_menu.h"
#include "io/builtin_models.h"
#include "lesson/attention_rollout.h"
#include "lesson/attention_sinks.h"
#include "lesson/picture_attention.h"
#include "ui_head_types_dialog.h"
#include "ui_importance_dialog.h"
#include "ui_kv_cache_dialog.h"
#include "ui_model_panel.h"
#include "ui_picture_attention_dialog.h"
#include "ui_rollout_dialog.h"
#include "ui_rotary_dialog.h"
#include "ui_window_reach_dialog.h"
#include "window_test_support.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <filesystem>
#include <numeric>

using namespace attnviz::app;
using attnviz::engine::Block;

class ModelWindowTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;

    Ui::ModelPanel* form() const { return m_window->modelPanel()->ui(); }

    void settle() { QVERIFY(attnviz::test::waitUntilIdle(*m_window)); }

    HeatmapView* view(int index) const { return attnviz::test::shownView(*m_window, index); }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // a first start
        attnviz::app::applyLanguage(QStringLiteral("en")); // as main() does
    }

    void init()
    {
        m_window = attnviz::test::shown(std::make_unique<MainWindow>());
        QVERIFY(m_window);
    }

    void cleanup() { m_window.reset(); }

    void aCrossHeadSwitchedOffChangesTheOutputAndIsNamed()
    {
        // The reverse demo's alignment head: without it the model no longer reverses.
        const attnviz::lesson::BlockChoice choice = m_window->modelPanel()->choice();
        QCOMPARE(choice.block, Block::Cross);
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        const std::size_t alignment = 2;
        m_window->modelPanel()->setChoice({0, Block::Cross, -1});
        settle();
        QVERIFY(attnviz::test::chooseFromContextMenu(view(alignment),
                                                     view(alignment)->rect().center(),
                                                     QStringLiteral("Switch head 2 off")));
        settle();
        const attnviz::lesson::ModelSource request = m_window->modelPanel()->request();
        QCOMPARE(request.ablation.heads.size(), 1u);
        QCOMPARE(request.ablation.heads[0].layer, 0);
        QCOMPARE(request.ablation.heads[0].block, Block::Cross);
        QCOMPARE(request.ablation.heads[0].head, 2);
        QVERIFY2(!form()->output->text().contains(QStringLiteral("<b>noitnetta</b>")),
                 qPrintable(form()->output->text()));
        QVERIFY2(form()->output->text().contains(
                     QStringLiteral("Heads switched off: layer 0 · cross-attention · head 2")),
                 qPrintable(form()->output->text()));
        QCOMPARE(m_window->walkthrough()->trace->ablatedHeads, std::vector<int>{2});
        // Another block of the same run: its heads are all on.
        m_window->modelPanel()->setChoice({1, Block::Cross, -1});
        QApplication::processEvents();
        QVERIFY(m_window->walkthrough()->trace->ablatedHeads.empty());

        QVERIFY(attnviz::test::chooseFromContextMenu(view(0), view(0)->rect().center(),
                                                     QStringLiteral("Switch every head back on")) ==
                false); // nothing is off in this block's menu ...
        m_window->modelPanel()->setChoice({0, Block::Cross, -1});
        QApplication::processEvents();
        QVERIFY(attnviz::test::chooseFromContextMenu(view(0), view(0)->rect().center(),
                                                     QStringLiteral("Switch every head back on")));
        settle();
        QVERIFY(m_window->modelPanel()->request().ablation.empty());
        QVERIFY(form()->output->text().contains(QStringLiteral("<b>noitnetta</b>")));
    }

    void headImportanceRanksEveryHeadAndAChosenHeadIsSwitchedOff()
    {
        QAction* open = m_window->findChild<QAction*>(QStringLiteral("actionImportance"));
        QVERIFY(open);
        open->trigger();
        auto* dialog = m_window->experiments()->window<ImportanceDialog>("importance");
        QVERIFY(dialog && dialog->isVisible());
        dialog->ui()->examples->setValue(6);
        QSignalSpy measured(dialog, &ImportanceDialog::measured);
        QTest::mouseClick(dialog->ui()->measure, Qt::LeftButton);
        QVERIFY(measured.wait(120000));
        QVERIFY2(dialog->report(), qPrintable(dialog->ui()->summary->text()));
        const attnviz::lesson::ImportanceReport& r = *dialog->report();
        const auto& c = m_window->modelResult().model->model->config();
        QCOMPARE(static_cast<int>(r.heads.size()),
                 (c.encoderLayers + 2 * c.decoderLayers) * c.numHeads);
        QCOMPARE(dialog->ui()->ranking->rowCount(), static_cast<int>(r.heads.size()));
        QVERIFY2(dialog->ui()->summary->text().contains(QStringLiteral("exact-match accuracy")),
                 qPrintable(dialog->ui()->summary->text()));
        QVERIFY(dialog->ui()->summary->text().contains(QStringLiteral("the first 6 of")));
        // The top row is the most harmful head.
        const auto order = r.ranking();
        QCOMPARE(dialog->ui()->ranking->item(0, 5)->text().toDouble(),
                 std::round(r.heads[order[0]].harm * 1e4) / 1e4);

        auto* cross = dialog->findChild<HeatmapView*>(QStringLiteral("importance cross"));
        QVERIFY(cross);
        QCOMPARE(cross->heatmap().rows(), c.decoderLayers);
        QCOMPARE(cross->heatmap().cols(), c.numHeads);
        QTest::mouseClick(cross, Qt::LeftButton, {}, cross->cellCentre(0, 2));
        settle();
        const attnviz::lesson::ModelSource request = m_window->modelPanel()->request();
        QCOMPARE(request.ablation.heads.size(), 1u);
        QCOMPARE(request.ablation.heads[0].layer, 0);
        QCOMPARE(request.ablation.heads[0].block, Block::Cross);
        QCOMPARE(request.ablation.heads[0].head, 2);
        QCOMPARE(m_window->modelPanel()->choice().block, Block::Cross);
        QCOMPARE(m_window->modelPanel()->choice().layer, 0);
        QCOMPARE(m_window->walkthrough()->trace->ablatedHeads, std::vector<int>{2});
        QVERIFY2(m_window->walkthrough()->intact, "the app keeps every head on to compare with");

        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(!dialog->ui()->measure->isEnabled());
        QVERIFY(!dialog->report());
    }

    // #25.5: Experiments ▸ Attention sinks draws the run's share of weight on the first token,
    // one map per self-attention block, follows the model shown, and explains the playground.
    void attentionSinksFollowTheModelShown()
    {
        QAction* open = m_window->findChild<QAction*>(QStringLiteral("actionAttentionSinks"));
        QVERIFY(open);
        open->trigger();
        auto* dialog = m_window->experiments()->window<AttentionSinksDialog>("attentionSinks");
        QVERIFY(dialog && dialog->isVisible());
        // The first start shows the reverse demo: an encoder and a decoder, two maps.
        QCOMPARE(dialog->views().size(), 2u);
        const auto maps = attnviz::lesson::attentionSinkMaps(*m_window->modelResult().run->trace);
        const auto& c = m_window->modelResult().model->model->config();
        auto* encoder = dialog->findChild<HeatmapView*>(QStringLiteral("sinks self"));
        QVERIFY(encoder);
        QCOMPARE(encoder->heatmap().rows(), c.encoderLayers);
        QCOMPARE(encoder->heatmap().cols(), c.numHeads);
        QCOMPARE(encoder->heatmap().matrix.values[1], maps[0].heatmap.matrix.values[1]);
        const QString mean = QString::number(100 * maps[0].mean, 'f', 1);
        QVERIFY2(dialog->summary().contains(mean + QStringLiteral(" %")),
                 qPrintable(dialog->summary()));

        attnviz::lesson::ModelSource genesis = m_window->modelPanel()->request();
        genesis.folder = "genesis";
        genesis.text = "and god said, let there be light";
        genesis.target.reset();
        m_window->modelPanel()->setRequest(genesis);
        settle();
        QCOMPARE(dialog->views().size(), 1u);
        QVERIFY(dialog->findChild<HeatmapView*>(QStringLiteral("sinks masked_self")));

        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(dialog->views().empty());
        QVERIFY2(dialog->summary().contains(QStringLiteral("Open a model")),
                 qPrintable(dialog->summary()));
    }

    void showModern(const char* text)
    {
        attnviz::lesson::ModelSource modern;
        modern.folder = "modern";
        modern.text = text;
        m_window->modelPanel()->setRequest(modern);
        settle();
        QVERIFY(m_window->modelResult().run);
    }

    // #25.3: Experiments ▸ KV cache continues the model shown step by step with a cache; the
    // slider walks the steps, the weights fill a row and the cached keys and values a column a
    // step, with the numbers of the step and the difference from the full pass.
    void kvCacheDialogDecodesTheModelShownStepByStep()
    {
        showModern("In the beginning God created the heaven and the earth.");
        m_window->findChild<QAction*>(QStringLiteral("actionKvCache"))->trigger();
        auto* dialog = m_window->experiments()->window<KvCacheDialog>("kvCache");
        QVERIFY(dialog && dialog->isVisible());
        Ui::KvCacheDialog& ui = dialog->ui();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->decoding() != nullptr, 60000);
        const attnviz::lesson::KvCacheDecoding& d = *dialog->decoding();
        QCOMPARE(static_cast<int>(d.steps.size()), ui.tokens->value());
        QCOMPARE(d.ids.size(),
                 m_window->modelResult().run->trace->targetIds.size() + d.steps.size() - 1);
        QVERIFY(d.largestDifference < 1e-5);
        QCOMPARE(ui.layer->count(), 4);
        QVERIFY2(ui.layer->itemText(0).contains(QStringLiteral("window of 16")),
                 qPrintable(ui.layer->itemText(0)));
        QCOMPARE(ui.head->count(), 6);
        QVERIFY(ui.head->itemText(5).contains(QStringLiteral("K/V head 1")));
        QCOMPARE(ui.step->maximum(), static_cast<int>(d.steps.size()) - 1);

        // Step 3: three rows after the prefill's are filled, the cache holds as many columns.
        ui.step->setValue(3);
        ui.head->setCurrentIndex(4);
        const std::int64_t read = d.tokensAfter(3);
        const attnviz::lesson::Heatmap& weights = ui.weights->heatmap();
        QCOMPARE(weights.rows(), static_cast<int>(d.ids.size()));
        const int last = static_cast<int>(read) - 1; // the step's own row; its own key is seen
        QVERIFY(!weights.blocked(last, last));
        QVERIFY(weights.blocked(last + 1, last + 1));
        const attnviz::lesson::Heatmap& keys = ui.keys->heatmap();
        QCOMPARE(keys.cols(), static_cast<int>(d.ids.size()));
        QVERIFY(!keys.blocked(0, static_cast<int>(read) - 1));
        QVERIFY(keys.blocked(0, static_cast<int>(read)));
        QVERIFY(keys.caption.find("K/V head 1") != std::string::npos);
        const QString numbers = ui.numbers->text();
        QVERIFY2(numbers.contains(QStringLiteral("Step 3 of %1").arg(d.steps.size())),
                 qPrintable(numbers));
        QVERIFY2(numbers.contains(
                     QLocale().toString(static_cast<qlonglong>(d.steps[3].multiplyAddsWithCache))),
                 qPrintable(numbers));
        // The cache of the whole model against MHA and MQA of the same width: 4 layers, 2 of 6
        // K/V heads of 16, float32.
        QVERIFY2(numbers.contains(QStringLiteral("takes <b>1.0 MiB</b>")), qPrintable(numbers));
        QVERIFY2(numbers.contains(QStringLiteral("(MHA) it would take 3.0 MiB")),
                 qPrintable(numbers));
        QVERIFY(ui.previous->isEnabled() && ui.next->isEnabled());
        QTest::mouseClick(ui.previous, Qt::LeftButton);
        QCOMPARE(ui.step->value(), 2);
        // docs/screenshots/53-kv-cache.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_KVCACHE_SHOT")) {
            ui.step->setValue(static_cast<int>(d.steps.size()) - 1);
            ui.layer->setCurrentIndex(2);
            ui.head->setCurrentIndex(1);
            QApplication::processEvents();
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_KVCACHE_SHOT")));
        }

        // Fewer tokens: decoded again.
        ui.tokens->setValue(4);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->decoding() && dialog->decoding()->steps.size() == 4u,
                                 60000);
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(!dialog->decoding());
        QVERIFY2(ui.numbers->text().contains(QStringLiteral("Open a model")),
                 qPrintable(ui.numbers->text()));
        QVERIFY(!ui.step->isEnabled());
    }

    // #25.1 drawn: Experiments ▸ Rotary positions draws one query's and one key's pairs of
    // features for the block shown, the angle of every pair at every position, and the score
    // staying when every position moves on.
    void rotaryDialogDrawsThePairsOfTheBlockShown()
    {
        showModern("And God said, Let there be light: and there was light.");
        m_window->findChild<QAction*>(QStringLiteral("actionRotary"))->trigger();
        auto* dialog = m_window->experiments()->window<RotaryDialog>("rotary");
        QVERIFY(dialog && dialog->isVisible());
        Ui::RotaryDialog& ui = dialog->ui();
        const auto& w = *m_window->walkthrough();
        QCOMPARE(ui.query->count(), static_cast<int>(w.trace->queryLength()));
        QCOMPARE(ui.query->currentIndex(), ui.query->count() - 1);
        QVERIFY(ui.pairs->pairs());
        QCOMPARE(static_cast<int>(ui.pairs->pairs()->pairs.size()), w.dk() / 2);
        QCOMPARE(ui.angles->heatmap().rows(), static_cast<int>(w.trace->queryLength()));
        QCOMPARE(ui.angles->heatmap().cols(), w.dk() / 2);
        const float score = ui.pairs->pairs()->score;
        QCOMPARE(score, w.trace->scores.at({0, 0, ui.query->count() - 1, 0}));
        ui.head->setValue(2);
        ui.key->setCurrentIndex(3);
        ui.shift->setValue(500);
        QVERIFY(ui.pairs->pairs());
        const attnviz::lesson::RotaryPairs& moved = *ui.pairs->pairs();
        QCOMPARE(moved.keyPosition, std::int64_t{503});
        QVERIFY(std::abs(moved.score - moved.unshiftedScore) < 1e-4);
        QVERIFY2(ui.numbers->text().contains(QStringLiteral("moved on by 500")),
                 qPrintable(ui.numbers->text()));
        // docs/screenshots/54-rotary-pairs.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_ROTARY_SHOT"))
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_ROTARY_SHOT")));

        attnviz::lesson::ModelSource genesis;
        genesis.folder = "genesis";
        genesis.text = "and god said";
        m_window->modelPanel()->setRequest(genesis);
        settle();
        QVERIFY(!ui.pairs->pairs());
        QVERIFY2(ui.numbers->text().contains(QStringLiteral("no rotary positions")),
                 qPrintable(ui.numbers->text()));
    }

    // #25.5: Xiao et al.'s experiment on the model shown: the text again without its first
    // token, the share moving to the token now first and the same predictions getting worse.
    void attentionSinksRunTheTextAgainWithoutItsFirstToken()
    {
        showModern("And God said, Let there be light: and there was light. And God saw the light, "
                   "that it was good: and God divided the light from the darkness.");
        m_window->findChild<QAction*>(QStringLiteral("actionAttentionSinks"))->trigger();
        auto* dialog = m_window->experiments()->window<AttentionSinksDialog>("attentionSinks");
        QVERIFY(dialog && dialog->isVisible());
        QCOMPARE(dialog->views().size(), 1u);
        QVERIFY(dialog->removalViews().empty());
        auto* remove = dialog->findChild<QPushButton*>(QStringLiteral("removeFirstToken"));
        QVERIFY(remove && remove->isEnabled());
        QSignalSpy shown(dialog, &AttentionSinksDialog::removalShown);
        QTest::mouseClick(remove, Qt::LeftButton);
        QVERIFY(shown.wait(60000));
        QCOMPARE(dialog->removalViews().size(), 1u);
        const auto& ids = m_window->modelResult().run->trace->targetIds;
        const attnviz::lesson::FirstTokenRemoved r =
            attnviz::lesson::withoutFirstToken(*m_window->modelResult().model, ids);
        QVERIFY2(dialog->removalSummary().contains(QStringLiteral("%1 nats instead of %2")
                                                       .arg(r.lossWithout, 0, 'f', 3)
                                                       .arg(r.lossWith, 0, 'f', 3)),
                 qPrintable(dialog->removalSummary()));
        QCOMPARE(dialog->removalViews().front()->heatmap().matrix.values[0],
                 r.without.front().heatmap.matrix.values[0]);
        // docs/screenshots/52-attention-sinks.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_SINKS_SHOT"))
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_SINKS_SHOT")));

        // An encoder-decoder's predictions are not next tokens: the button says why it is off.
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{"reverse", "abc"});
        settle();
        QVERIFY(!remove->isEnabled());
        QVERIFY(dialog->removalViews().empty());
        QVERIFY2(dialog->removalSummary().contains(QStringLiteral("decoder-only")),
                 qPrintable(dialog->removalSummary()));
    }

    // #25.4: Experiments ▸ Sliding window reach draws how far back a token hears, layer by layer:
    // the modern demo's local and global layers, or a stack of the user's own.
    void windowReachFollowsTheModelOrAStackOfYourOwn()
    {
        showModern("In the beginning God created the heaven and the earth. And the earth was "
                   "without form, and void; and darkness was upon the face of the deep.");
        m_window->findChild<QAction*>(QStringLiteral("actionWindowReach"))->trigger();
        auto* dialog = m_window->experiments()->window<WindowReachDialog>("windowReach");
        QVERIFY(dialog && dialog->isVisible());
        Ui::WindowReachDialog& ui = dialog->ui();
        QVERIFY(dialog->showsModel());
        const int tokens = static_cast<int>(m_window->modelResult().run->trace->targetIds.size());
        QCOMPARE(ui.reach->heatmap().rows(), 4);
        QCOMPARE(ui.reach->heatmap().cols(), tokens);
        QCOMPARE(ui.query->value(), tokens - 1);
        QVERIFY(!ui.layers->isEnabled());
        // Layer 0's window of 16 reads 15 tokens back; layer 1 has none and lets all in.
        QCOMPARE(ui.reach->heatmap().value(0, tokens - 16), 2.0f);
        QCOMPARE(ui.reach->heatmap().value(0, tokens - 17), 0.0f);
        QCOMPARE(ui.reach->heatmap().value(1, 0), 2.0f);
        QCOMPARE(ui.reach->heatmap().value(2, 0), 1.0f);
        QVERIFY2(ui.numbers->text().contains(
                     QStringLiteral("after layer 0 (window of 16): 15 tokens back")),
                 qPrintable(ui.numbers->text()));
        QVERIFY2(ui.numbers->text().contains(
                     QStringLiteral("after layer 1 (no window): every earlier token")),
                 qPrintable(ui.numbers->text()));

        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{"genesis", "and god said"});
        settle();
        QVERIFY(!dialog->showsModel());
        QVERIFY(ui.layers->isEnabled());
        QVERIFY2(ui.source->text().contains(QStringLiteral("no sliding window")),
                 qPrintable(ui.source->text()));
        ui.tokens->setValue(20);
        ui.query->setValue(19);
        ui.layers->setValue(3);
        ui.window->setValue(5);
        QCOMPARE(ui.reach->heatmap().rows(), 3);
        QCOMPARE(ui.reach->heatmap().cols(), 20);
        QVERIFY2(ui.numbers->text().contains(
                     QStringLiteral("after layer 2 (window of 5): 12 tokens back")),
                 qPrintable(ui.numbers->text()));
        // docs/screenshots/55-window-reach.png comes from here: Mistral's pattern, a window on
        // every layer.
        if (qEnvironmentVariableIsSet("ATTNVIZ_REACH_SHOT")) {
            ui.tokens->setValue(40);
            ui.query->setValue(39);
            ui.layers->setValue(5);
            ui.window->setValue(6);
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_REACH_SHOT")));
        }
    }

    // #26: Experiments ▸ Head types scores every head of the model shown, ranks them, and a click
    // opens the head; genesis' previous-character head comes first.
    void headTypesRankTheHeadsAndOpenTheOneClicked()
    {
        m_window->modelPanel()->setRequest(
            attnviz::lesson::ModelSource{"genesis", "and god said, let there be light"});
        settle();
        m_window->findChild<QAction*>(QStringLiteral("actionHeadTypes"))->trigger();
        auto* dialog = m_window->experiments()->window<HeadTypesDialog>("headTypes");
        QVERIFY(dialog && dialog->isVisible());
        QSignalSpy scored(dialog, &HeadTypesDialog::scored);
        QVERIFY(!dialog->maps().empty() || scored.wait(60000));
        // Every type but the picture's distance in pixels.
        QCOMPARE(dialog->maps().size(), attnviz::lesson::kHeadTypes.size() - 1);
        QCOMPARE(dialog->ui().type->count(),
                 static_cast<int>(attnviz::lesson::kHeadTypes.size() - 1));
        QCOMPARE(dialog->views().size(), 1u);
        Ui::HeadTypesDialog& ui = dialog->ui();
        QCOMPARE(ui.ranking->item(0, 0)->text(), QStringLiteral("0"));
        QCOMPARE(ui.ranking->item(0, 2)->text(), QStringLiteral("1"));
        QVERIFY2(ui.summary->text().contains(QStringLiteral("layer 0, head 1")),
                 qPrintable(ui.summary->text()));
        // The induction score, from a second run on a repeated random prompt.
        ui.type->setCurrentIndex(2);
        QVERIFY2(ui.summary->text().contains(QStringLiteral("written twice")),
                 qPrintable(ui.summary->text()));
        ui.type->setCurrentIndex(0);
        // docs/screenshots/56-head-types.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_TYPES_SHOT"))
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_TYPES_SHOT")));
        HeatmapView* map = dialog->views().front();
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCentre(2, 3));
        settle();
        QCOMPARE(m_window->modelPanel()->choice().layer, 2);
        QCOMPARE(m_window->modelPanel()->choice().block, Block::MaskedSelf);
        QCOMPARE(m_window->stepPanel()->grid()->focusedHead(), 3);

        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(dialog->views().empty());
        QVERIFY2(ui.summary->text().contains(QStringLiteral("Open a model")),
                 qPrintable(ui.summary->text()));
    }

    // #26: Experiments ▸ Attention rollout draws the rollout of the run shown with the fusion and
    // discard ratio chosen, and exports it as the Export menu does.
    void rolloutFollowsTheRunAndExports()
    {
        m_window->modelPanel()->setRequest(
            attnviz::lesson::ModelSource{"modern", "In the beginning God created the heaven"});
        settle();
        m_window->findChild<QAction*>(QStringLiteral("actionRollout"))->trigger();
        auto* dialog = m_window->experiments()->window<RolloutDialog>("rollout");
        QVERIFY(dialog && dialog->isVisible() && dialog->map());
        Ui::RolloutDialog& ui = dialog->ui();
        ui.fusion->setCurrentIndex(1);
        ui.discard->setValue(0.5);
        const auto& run = *m_window->modelResult().run;
        const Eigen::MatrixXd expected = attnviz::lesson::attentionRollout(
            *run.trace, Block::MaskedSelf, {attnviz::lesson::HeadFusion::Max, 0.5});
        const attnviz::lesson::Heatmap& map = *dialog->map();
        QCOMPARE(map.rows(), static_cast<int>(expected.rows()));
        for (int i = 0; i < map.rows(); ++i)
            for (int j = 0; j < map.cols(); ++j)
                QVERIFY(std::abs(map.value(i, j) - expected(i, j)) < 1e-6);
        QCOMPARE(ui.rollout->heatmap().matrix.values, map.matrix.values);
        QTemporaryDir dir;
        const QString npy = dir.filePath(QStringLiteral("rollout.npy"));
        exportMap(npy, map, {0.0, 1.0}, "rollout");
        QVERIFY(QFileInfo(npy).size() > map.rows() * map.cols() * 4);
        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error,
            exportMap(dir.filePath(QStringLiteral("r.txt")), map, {0.0, 1.0}, "rollout"));
        // docs/screenshots/57-rollout.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_ROLLOUT_SHOT"))
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_ROLLOUT_SHOT")));
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(!dialog->map());
        QVERIFY(!ui.exportButton->isEnabled());
    }

    // #26: a Vision Transformer reads a picture, not text: the panel offers a picture field (a
    // folder without examples starts with none and says what it needs), a dropped picture runs
    // the model, the classes are named, the input step is the patch step, and Experiments ▸
    // Attention on the picture draws the row of [CLS] or of a clicked patch and exports it.
    void pictureAttentionFollowsAVisionTransformer()
    {
        const QString picture = QStringLiteral(ATTNVIZ_TEST_DATA_DIR "/images/rgb8.png");
        QVERIFY(!m_window->pictureDrop()->open(picture)); // the model shown reads text
        QVERIFY2(
            m_window->statusBar()->currentMessage().contains(QStringLiteral("Vision Transformer")),
            qPrintable(m_window->statusBar()->currentMessage()));
        attnviz::lesson::ModelSource deit;
        deit.folder = ATTNVIZ_TEST_DATA_DIR "/hf/deit";
        m_window->modelPanel()->setRequest(deit);
        settle();
        QVERIFY(!form()->pictureRow->isHidden());
        QVERIFY(form()->text->isHidden());
        QVERIFY2(form()->problem->text().contains(QStringLiteral("picture")),
                 qPrintable(form()->problem->text()));

        // A picture dropped on the window.
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(picture)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, {});
        QCoreApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, {});
        QCoreApplication::sendEvent(m_window.get(), &drop);
        settle();
        QCOMPARE(form()->picture->text(), picture);
        const auto run = m_window->modelResult().run;
        QVERIFY(run && run->picture);
        QCOMPARE(run->picture->width, 32);
        QVERIFY2(form()->output->text().contains(QStringLiteral("Classified as")),
                 qPrintable(form()->output->text()));
        attnviz::lesson::BlockChoice first = m_window->modelPanel()->choice();
        first.layer = 0;
        m_window->modelPanel()->setChoice(first);
        m_window->stepPanel()->setStep(0);
        settle();
        QVERIFY2(m_window->stepPanel()
                     ->findChild<QLabel*>(QStringLiteral("formula"))
                     ->text()
                     .contains(QStringLiteral("patches")),
                 "the input step of a ViT is the patch step");
        auto* patches = m_window->stepPanel()->findChild<PictureView*>(QStringLiteral("patches"));
        QVERIFY(patches && patches->isVisible() && patches->overlay());
        QCOMPARE(patches->overlay()->firstPatchToken, 2); // after [CLS] and [DIST]
        QCOMPARE(patches->overlay()->attention.patchRows, 4);
        m_window->stepPanel()->setStep(1);
        settle();
        QVERIFY(!patches->isVisible());
        // Layer 1 reads the residual stream: its input step is no patch step.
        first.layer = 1;
        m_window->modelPanel()->setChoice(first);
        m_window->stepPanel()->setStep(0);
        settle();
        QVERIFY(!patches->isVisible());
        const QString layerOneTitle =
            m_window->stepPanel()->findChild<QLabel*>(QStringLiteral("stepPosition"))->text();
        QVERIFY2(!layerOneTitle.contains(QStringLiteral("patches")), qPrintable(layerOneTitle));

        m_window->findChild<QAction*>(QStringLiteral("actionPictureAttention"))->trigger();
        auto* dialog = m_window->experiments()->window<PictureAttentionDialog>("pictureAttention");
        QVERIFY(dialog && dialog->isVisible() && dialog->overlay());
        Ui::PictureAttentionDialog& ui = dialog->ui();
        QCOMPARE(ui.layer->currentData().toInt(), 1); // the last layer first
        QCOMPARE(ui.query->count(), 2); // [CLS] and [DIST]
        attnviz::lesson::PictureQuery query;
        query.layer = 1;
        const auto expected = attnviz::lesson::pictureAttention(*run->trace, run->config, query);
        QCOMPARE(dialog->overlay()->attention.patches, expected.patches);
        QVERIFY2(ui.classes->text().contains(QStringLiteral("circle")),
                 qPrintable(ui.classes->text()));

        // A click on patch (1, 2) draws that patch's row.
        const QRectF area = ui.picture->pictureArea();
        QTest::mouseClick(
            ui.picture, Qt::LeftButton, {},
            QPointF(area.left() + 2.5 * area.width() / 4, area.top() + 1.5 * area.height() / 4)
                .toPoint());
        QCOMPARE(ui.query->currentData().toInt(), 2 + 4 + 2);
        QCOMPARE(dialog->overlay()->queryPatch, 6);
        ui.head->setCurrentIndex(2); // head 1
        query.token = 8;
        query.head = 1;
        QCOMPARE(dialog->overlay()->attention.patches,
                 attnviz::lesson::pictureAttention(*run->trace, run->config, query).patches);
        ui.source->setCurrentIndex(1); // the rollout
        QVERIFY(!ui.layer->isEnabled());
        QVERIFY(dialog->overlay()->title.contains(QStringLiteral("Rollout")));
        ui.source->setCurrentIndex(0);
        ui.query->setCurrentIndex(0);
        ui.opacity->setValue(45);
        QCOMPARE(dialog->overlay()->opacity, 0.45);

        QTemporaryDir dir;
        for (const char* ext : {"png", "svg", "pdf"}) {
            const QString file = dir.filePath(QStringLiteral("overlay.") + QLatin1String(ext));
            dialog->exportTo(file);
            QVERIFY2(QFileInfo(file).size() > 2000, ext);
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 dialog->exportTo(dir.filePath(QStringLiteral("o.bmp"))));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 3);

        // Head types of a picture: the share on [CLS], the distance in pixels, the entropy.
        m_window->findChild<QAction*>(QStringLiteral("actionHeadTypes"))->trigger();
        auto* types = m_window->experiments()->window<HeadTypesDialog>("headTypes");
        QSignalSpy scored(types, &HeadTypesDialog::scored);
        QVERIFY(!types->maps().empty() || scored.wait(60000));
        QCOMPARE(types->ui().type->count(), 3);
        types->ui().type->setCurrentIndex(
            types->ui().type->findData(static_cast<int>(attnviz::lesson::HeadType::PixelDistance)));
        QVERIFY2(types->ui().summary->text().contains(QStringLiteral("pixels")),
                 qPrintable(types->ui().summary->text()));
        types->close();

        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
        QVERIFY(!dialog->overlay());
        QVERIFY(!ui.exportButton->isEnabled());
    }

    // #26: the bundled ViT demo classifies its example pictures and its [CLS] token looks at
    // the shape. The shares on the shape's patches are those its training script measured with
    // PyTorch (examples/shapes.json), so the app's overlay is checked against a second program.
    void shapesDemoLooksAtTheShape()
    {
        const QDir examples(QString::fromStdString(
            (attnviz::io::builtInModelsFolder() / "shapes" / "examples").string()));
        QFile about(examples.filePath(QStringLiteral("shapes.json")));
        QVERIFY(about.open(QIODevice::ReadOnly));
        const QJsonObject ring = QJsonDocument::fromJson(about.readAll())
                                     .object()[QStringLiteral("pictures")]
                                     .toObject()[QStringLiteral("ring.png")]
                                     .toObject();
        std::vector<int> shape;
        for (const QJsonValue patch : ring[QStringLiteral("shape_patches")].toArray())
            shape.push_back(patch.toInt());
        QVERIFY(!shape.empty());

        attnviz::lesson::ModelSource shapes;
        shapes.folder = "shapes";
        m_window->modelPanel()->setRequest(shapes);
        settle();
        // Without a picture of its own the demo opens its first example.
        QVERIFY2(form()->picture->text().endsWith(QStringLiteral("circle.png")),
                 qPrintable(form()->picture->text()));
        QVERIFY(m_window->pictureDrop()->open(examples.filePath(QStringLiteral("ring.png"))));
        settle();
        QVERIFY2(form()->output->text().contains(QStringLiteral("ring")),
                 qPrintable(form()->output->text()));
        QVERIFY2(form()->description->text().contains(QStringLiteral("4 layers, 4 heads")),
                 qPrintable(form()->description->text()));

        attnviz::lesson::BlockChoice first = m_window->modelPanel()->choice();
        first.layer = 0;
        m_window->modelPanel()->setChoice(first);
        m_window->stepPanel()->setStep(0);
        settle();
        auto* patches = m_window->stepPanel()->findChild<PictureView*>(QStringLiteral("patches"));
        QVERIFY(patches && patches->isVisible() && patches->overlay());
        QCOMPARE(patches->overlay()->attention.patchRows, 6);
        // docs/screenshots/59-patch-step.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_PATCHES_SHOT"))
            QVERIFY(m_window->grab().save(qEnvironmentVariable("ATTNVIZ_PATCHES_SHOT")));

        m_window->findChild<QAction*>(QStringLiteral("actionPictureAttention"))->trigger();
        auto* dialog = m_window->experiments()->window<PictureAttentionDialog>("pictureAttention");
        QVERIFY(dialog && dialog->isVisible() && dialog->overlay());
        Ui::PictureAttentionDialog& ui = dialog->ui();
        const auto shareOnShape = [&] {
            const std::vector<double>& weights = dialog->overlay()->attention.patches;
            double onShape = 0;
            for (int patch : shape)
                onShape += weights.at(static_cast<std::size_t>(patch));
            return onShape / std::accumulate(weights.begin(), weights.end(), 0.0);
        };
        QCOMPARE(ui.layer->currentData().toInt(), 3); // the last layer, heads averaged, from [CLS]
        QVERIFY(std::abs(shareOnShape() -
                         ring[QStringLiteral("last_layer_shape_share")].toDouble()) < 0.01);
        ui.source->setCurrentIndex(1);
        QVERIFY(std::abs(shareOnShape() - ring[QStringLiteral("rollout_shape_share")].toDouble()) <
                0.01);
        // English counts agree with their number (the English catalogue of plural forms).
        QCOMPARE(dialog->overlay()->title,
                 QStringLiteral("Rollout of 4 layers, heads fused by their mean, from [CLS]"));
        ui.source->setCurrentIndex(0);
        QVERIFY2(ui.classes->text().startsWith(QStringLiteral("ring")) ||
                     ui.classes->text().contains(QStringLiteral(">ring")),
                 qPrintable(ui.classes->text()));
        // docs/screenshots/58-attention-on-the-picture.png comes from here.
        if (qEnvironmentVariableIsSet("ATTNVIZ_PICTURE_SHOT"))
            QVERIFY(dialog->grab().save(qEnvironmentVariable("ATTNVIZ_PICTURE_SHOT")));
        dialog->close();
        m_window->modelPanel()->setRequest(attnviz::lesson::ModelSource{});
        settle();
    }

    void firstStartShowsTheReverseDemosAlignment()
    {
        QVERIFY(!m_window->modelPanel()->playground());
        QCOMPARE(form()->text->text(), QStringLiteral("attention"));
        QVERIFY2(form()->output->text().contains(QStringLiteral("noitnetta")),
                 qPrintable(form()->output->text()));
        const attnviz::lesson::BlockChoice choice = m_window->modelPanel()->choice();
        QCOMPARE(choice.block, Block::Cross);
        QCOMPARE(choice.layer, 1);
        QVERIFY(m_window->walkthrough());
        // Output position i (after the start token) reads input position n − 1 − i.
        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        const auto& weights = m_window->walkthrough()->trace->weights;
        const auto n = weights.dim(3);
        int aligned = 0, rows = 0;
        for (std::int64_t h = 0; h < weights.dim(1); ++h)
            for (std::int64_t q = 0; q < n; ++q, ++rows) {
                std::int64_t best = 0;
                for (std::int64_t k = 1; k < n; ++k)
                    if (weights.at({0, h, q, k}) > weights.at({0, h, q, best}))
                        best = k;
                aligned += best == n - 1 - q;
            }
        QVERIFY2(aligned >= rows * 9 / 10,
                 qPrintable(QStringLiteral("%1 of %2 rows aligned").arg(aligned).arg(rows)));
        // The views show the engine's numbers for this block.
        const auto* block = m_window->modelResult().run->trace->attentionBlock(1, Block::Cross);
        QCOMPARE(view(2)->heatmap().value(3, 4), block->attention.weights.at({0, 2, 3, 4}));
        QCOMPARE(view(2)->heatmap().matrix.rowLabels.at(0), std::string("<s>"));
        QCOMPARE(view(2)->heatmap().matrix.columnLabels.at(0), std::string("a"));
    }

    // #23: cancelling "Open model folder…" or "Open attention weights file…" keeps the model
    // shown, with its heads switched off; it went back to the playground.
    void cancellingAnOpenDialogKeepsTheModelShown()
    {
        settle();
        m_window->modelPanel()->setHeadSwitchedOff({1, Block::Cross, 2}, true);
        settle();
        const auto run = m_window->modelResult().run;
        QVERIFY(run);
        for (const QString& entry :
             {QStringLiteral("<open>"), QStringLiteral("<open attentions>")}) {
            const int open = form()->source->findData(entry);
            QVERIFY(open >= 0);
            bool dialogSeen = false;
            QTimer::singleShot(100, m_window.get(), [&] {
                if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
                    dialogSeen = true;
                    dialog->reject();
                }
            });
            form()->source->setCurrentIndex(open);
            emit form()->source->activated(open);
            QVERIFY(dialogSeen);
            QVERIFY(!m_window->modelPanel()->playground());
            QCOMPARE(form()->source->currentData().toString(), QStringLiteral("reverse"));
            QCOMPARE(m_window->modelPanel()->request().ablation.heads.size(), std::size_t{1});
            settle();
            QCOMPARE(m_window->modelResult().run, run); // nothing was run again
            QVERIFY(m_window->walkthrough());
        }
    }

    void layerAndBlockSelectorsPickTheTrace()
    {
        QCOMPARE(form()->layer->count(), 2);
        QCOMPARE(form()->block->count(), 3); // self, masked_self, cross at every layer
        form()->layer->setCurrentIndex(0);
        form()->block->setCurrentIndex(form()->block->findData(static_cast<int>(Block::Self)));
        QApplication::processEvents();
        const auto* block = m_window->modelResult().run->trace->attentionBlock(0, Block::Self);
        QCOMPARE(m_window->walkthrough()->trace->scores.at({0, 1, 2, 3}),
                 block->attention.scores.at({0, 1, 2, 3}));
        QCOMPARE(m_window->walkthrough()->trace->queryLength(), 9); // the source "attention"
        QVERIFY(m_window->stepPanel()->shapeText().isEmpty() == false);
    }

    void decodingStepsCanBeReplayed()
    {
        form()->block->setCurrentIndex(
            form()->block->findData(static_cast<int>(Block::MaskedSelf)));
        QVERIFY(form()->decodingStep->isVisibleTo(m_window.get()));
        QCOMPARE(form()->decodingStep->maximum(), 10); // nine letters and the end token
        form()->decodingStep->setValue(4);
        QApplication::processEvents();
        const auto& w = m_window->walkthrough()->trace->weights;
        QCOMPARE(w.dim(2), 4); // at step 4 the decoder has read four tokens
        for (std::int64_t q = 0; q < 4; ++q)
            for (std::int64_t k = q + 1; k < 4; ++k)
                QCOMPARE(w.at({0, 0, q, k}), 0.0f);
    }

    void overviewOpensAnyHead()
    {
        form()->overview->setChecked(true);
        QApplication::processEvents();
        const auto& views = m_window->overview()->views();
        QCOMPARE(views.size(), 8u); // 2 layers × 4 heads of the cross-attention
        HeatmapView* layer0head3 = views.at(2);
        QTest::mouseClick(layer0head3, Qt::LeftButton, {}, layer0head3->cellCentre(0, 0));
        QApplication::processEvents();
        QVERIFY(!form()->overview->isChecked());
        QCOMPARE(m_window->modelPanel()->choice().layer, 0);
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("softmax"));
        QCOMPARE(m_window->stepPanel()->grid()->focusedHead(), 2);
        const auto* block = m_window->modelResult().run->trace->attentionBlock(0, Block::Cross);
        QCOMPARE(view(0)->heatmap().value(1, 1), block->attention.weights.at({0, 2, 1, 1}));
    }

    void theOverviewSaysWhatItIsAndLeadsBack()
    {
        const attnviz::lesson::LessonStepIndex step = attnviz::test::step("scaled");
        m_window->stepPanel()->setStep(step);
        form()->overview->setChecked(true);
        QApplication::processEvents();
        QVERIFY(m_window->overview()->isVisible());
        QVERIFY(!m_window->stepPanel()->isVisible());
        const auto* title =
            m_window->overview()->findChild<QLabel*>(QStringLiteral("overviewTitle"));
        const auto* text =
            m_window->overview()->findChild<QLabel*>(QStringLiteral("overviewExplanation"));
        QVERIFY(title && title->text().contains(QStringLiteral("every layer and head")));
        QVERIFY(text && text->isVisible() && text->text().contains(QStringLiteral("Click")));
        auto* back = m_window->overview()->findChild<QPushButton*>(QStringLiteral("overviewBack"));
        QVERIFY(back && back->isVisible());
        back->click();
        QApplication::processEvents();
        QVERIFY(!form()->overview->isChecked());
        QVERIFY(m_window->stepPanel()->isVisible());
        QCOMPARE(m_window->stepPanel()->step(), step);
    }

    void textOutsideTheVocabularyIsExplained()
    {
        form()->text->setText(QStringLiteral("Hello"));
        QMetaObject::invokeMethod(form()->text, "editingFinished");
        settle();
        QVERIFY2(form()->problem->text().contains(
                     QStringLiteral("\"H\" is not in the model's vocabulary")),
                 qPrintable(form()->problem->text()));
    }

    void otherArchitecturesOpenFromAFolder()
    {
        attnviz::lesson::ModelSource encoderOnly;
        encoderOnly.folder = ATTNVIZ_TEST_DATA_DIR "/models/encoder_only";
        encoderOnly.text = "abcde";
        m_window->modelPanel()->setRequest(encoderOnly);
        settle();
        QVERIFY2(form()->problem->text().isEmpty(), qPrintable(form()->problem->text()));
        QCOMPARE(form()->block->count(), 1);
        QCOMPARE(m_window->modelPanel()->choice().block, Block::Self);
        QVERIFY(!form()->target->isVisibleTo(m_window.get()));
        QVERIFY(!form()->decodingStep->isVisibleTo(m_window.get()));
        QCOMPARE(m_window->walkthrough()->trace->queryLength(), 5);

        attnviz::lesson::ModelSource decoderOnly;
        decoderOnly.folder = ATTNVIZ_TEST_DATA_DIR "/models/decoder_postnorm";
        decoderOnly.text = "abc";
        decoderOnly.generate = 3;
        m_window->modelPanel()->setRequest(decoderOnly);
        settle();
        QVERIFY(form()->generate->isVisibleTo(m_window.get()));
        QCOMPARE(m_window->modelPanel()->choice().block, Block::MaskedSelf);
        QCOMPARE(form()->decodingStep->maximum(), 3);
        QCOMPARE(m_window->walkthrough()->trace->queryLength(),
                 6); // three tokens and three generated
    }

    void huggingFaceGpt2ShowsProgressAndCanBeCancelled()
    {
        // Two copies of the GPT-2 fixture: the second must be read from disk (~50k-entry
        // vocabulary and merges), which leaves time to cancel before its first layer.
        QTemporaryDir dir;
        const std::filesystem::path hf = std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "hf";
        for (const char* copy : {"a", "b"}) {
            const std::filesystem::path to = std::filesystem::path(dir.path().toStdString()) / copy;
            std::filesystem::create_directories(to);
            for (const char* f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
                std::filesystem::copy_file(hf / "gpt2" / f, to / f);
        }
        QSignalSpy progress(m_window->session()->modelRunner(), &ModelRunner::progress);
        attnviz::lesson::ModelSource gpt2;
        gpt2.folder = dir.filePath(QStringLiteral("a")).toStdString();
        gpt2.text = "Hello world, hello attention";
        m_window->modelPanel()->setRequest(gpt2);
        QVERIFY(form()->progressRow->isVisibleTo(m_window.get()));
        settle();
        QVERIFY2(form()->problem->text().isEmpty(), qPrintable(form()->problem->text()));
        QVERIFY(!form()->progressRow->isVisibleTo(m_window.get()));
        QVERIFY(progress.count() >= 3); // loaded, layer 1 of 2, layer 2 of 2
        QCOMPARE(progress.last().at(0).toInt(), 2);
        QCOMPARE(m_window->modelPanel()->choice().block, Block::MaskedSelf);
        const auto shown = m_window->walkthrough();
        QCOMPARE(shown->trace->queryLength(), 5); // Hello ␣world , ␣hello ␣attention
        QCOMPARE(QString::fromStdString(shown->keyTokens.front().front()), QStringLiteral("Hello"));

        gpt2.folder = dir.filePath(QStringLiteral("b")).toStdString();
        m_window->modelPanel()->setRequest(gpt2);
        form()->cancel->click();
        settle();
        QVERIFY(m_window->statusBar()->currentMessage().contains(QStringLiteral("Cancelled")));
        QCOMPARE(m_window->walkthrough(), shown);
        QVERIFY(!form()->progressRow->isVisibleTo(m_window.get()));
    }

    void aLlamaFolderShowsItsGroupedHeadsAndWholeCharacters()
    {
        attnviz::lesson::ModelSource llama;
        llama.folder = ATTNVIZ_TEST_DATA_DIR "/hf/llama3";
        llama.text = "cat 猫 😀";
        m_window->modelPanel()->setRequest(llama);
        settle();
        QVERIFY2(form()->problem->text().isEmpty(), qPrintable(form()->problem->text()));
        const QString about = form()->description->text();
        QVERIFY2(about.contains(QStringLiteral("4 query heads share 2 K/V heads, 2 to each")),
                 qPrintable(about));
        QVERIFY2(about.contains(QStringLiteral("K/V cache 128 bytes per token")),
                 qPrintable(about));
        QVERIFY2(about.contains(QStringLiteral("llama3 scaling ×8")), qPrintable(about));

        // <|begin_of_text|>, cat, ␣ + the three bytes of 猫 in two pieces, ␣😀 in two.
        const auto shown = m_window->walkthrough();
        const std::vector<std::string>& tokens = shown->keyTokens.front();
        QCOMPARE(QString::fromStdString(tokens.front()), QStringLiteral("<|begin_of_text|>"));
        for (const std::string& token : tokens)
            QVERIFY2(token.find("\xef\xbf\xbd") == std::string::npos &&
                         token.find("\\x") == std::string::npos,
                     token.c_str()); // never U+FFFD or an escaped byte
        const auto piece = std::ranges::find_if(
            tokens, [](const std::string& t) { return t.find("猫·1/") != std::string::npos; });
        QVERIFY(piece != tokens.end());
        const int column = static_cast<int>(piece - tokens.begin());

        m_window->stepPanel()->setStep(attnviz::test::step("softmax"));
        const std::vector<HeatmapView*> views = m_window->stepPanel()->grid()->visibleViews();
        QCOMPARE(views.size(), 4u);
        QVERIFY2(QString::fromStdString(views[3]->heatmap().title)
                     .contains(QStringLiteral("head 3 (K/V head 1)")),
                 views[3]->heatmap().title.c_str());
        const QString tip = views[0]->toolTipForCell(column, column);
        // The cell's two tokens, each with its spelling, id and the bytes of its part.
        QVERIFY2(tip.count(QStringLiteral("part 1 of 3 of “ 猫” (U+0020 U+732B)")) == 2 &&
                     tip.contains(QStringLiteral("id 10447 · bytes 20 E7")),
                 qPrintable(QString(tip).replace(QLatin1Char('\n'), QLatin1String(" | "))));
    }

    void aLayerSwitchLetsGoOfTheShownLayerFirstAndKeepsTheView()
    {
        attnviz::lesson::ModelSource llama;
        llama.folder = ATTNVIZ_TEST_DATA_DIR "/hf/llama3";
        llama.text = "the cat sat on the mat";
        m_window->modelPanel()->setRequest(llama);
        settle();
        const int other = m_window->modelPanel()->choice().layer == 0 ? 1 : 0;
        m_window->stepPanel()->setStep(attnviz::test::step("rotate"));
        m_window->stepPanel()->grid()->focusHead(2);
        const float before =
            m_window->stepPanel()->grid()->visibleViews().at(0)->heatmap().matrix.value(3, 1);

        // When the next layer is about to be computed, nothing but the session holds the shown
        // one: its memory is free for the next (a real-size layer's is 0.6 GB).
        std::weak_ptr<const attnviz::lesson::Walkthrough> shown = m_window->walkthrough();
        long holders = -1;
        bool computedAlready = true;
        QSignalSpy changed(m_window->session(), &Session::walkthroughChanged);
        connect(m_window->session(), &Session::releasingWalkthrough, this, [&] {
            holders = shown.use_count();
            computedAlready = !changed.isEmpty();
        });
        m_window->modelPanel()->setChoice({other, Block::MaskedSelf, -1});
        QCOMPARE(holders, 1L);
        QVERIFY(!computedAlready);
        QVERIFY(shown.expired());

        // The step (one only a rotary model has) and the focused head stay; the maps are the
        // other layer's.
        QCOMPARE(m_window->stepPanel()->step(), attnviz::test::step("rotate"));
        QCOMPARE(m_window->stepPanel()->grid()->focusedHead(), 2);
        const std::vector<HeatmapView*> views = m_window->stepPanel()->grid()->visibleViews();
        QCOMPARE(views.size(), 1u);
        QCOMPARE(m_window->session()->choice().layer, other);
        QCOMPARE(views[0]->heatmap().matrix.value(3, 1),
                 m_window->walkthrough()->trace->qRotated.at({0, 2, 3, 1}));
        QVERIFY(views[0]->heatmap().matrix.value(3, 1) != before);
    }

    void importedAttentionsOpenOnTheirWeights()
    {
        attnviz::lesson::ModelSource import;
        import.folder = ATTNVIZ_TEST_DATA_DIR "/attentions/gpt_layers.safetensors";
        m_window->modelPanel()->setRequest(import);
        settle();
        QVERIFY2(form()->problem->text().isEmpty(), qPrintable(form()->problem->text()));
        QVERIFY(form()->description->text().contains(QStringLiteral("computed elsewhere")));
        QVERIFY(!form()->text->isVisibleTo(m_window.get()));
        QCOMPARE(form()->layer->count(), 3);
        QCOMPARE(m_window->stepPanel()->step(),
                 *attnviz::lesson::lessonStepShowing(attnviz::engine::AttentionStep::Weights));
        QCOMPARE(m_window->stepPanel()->grid()->visibleViews().size(), 4u);
        QVERIFY(m_window->walkthrough()->weightsOnly());
        // A step the file has no data for says so instead of drawing.
        m_window->stepPanel()->setStep(attnviz::test::step("scores"));
        QVERIFY(m_window->stepPanel()->grid()->visibleViews().empty());
        QVERIFY(m_window->stepPanel()->formulaText().isEmpty());

        import.folder = ATTNVIZ_TEST_DATA_DIR "/attentions/bad_gap.safetensors";
        m_window->modelPanel()->setRequest(import);
        settle();
        QVERIFY2(form()->problem->text().contains(QStringLiteral("bad_gap.safetensors")),
                 qPrintable(form()->problem->text()));
    }

    void brokenModelFolderIsExplained()
    {
        QTemporaryDir dir;
        const std::filesystem::path source = attnviz::io::builtInModelsFolder() / "reverse";
        for (const char* f : {"config.json", "vocab.json"})
            std::filesystem::copy_file(source / f,
                                       std::filesystem::path(dir.path().toStdString()) / f);
        attnviz::lesson::ModelSource request;
        request.folder = dir.path().toStdString();
        m_window->modelPanel()->setRequest(request);
        settle();
        QVERIFY2(form()->problem->text().contains(QStringLiteral("has no model.safetensors")),
                 qPrintable(form()->problem->text()));
    }
};

QTEST_MAIN(ModelWindowTest)
#include "model_window_test.moc"
