// A GUI stress test (#11): thousands of seeded random actions on the real window, offscreen —
// steps, heads, settings (impossible ones too), models, layers, blocks, decoding steps, the
// overview, presentation mode, resizes, cancelling — with the window's consistency checked after
// every one: the step panel shows the walkthrough the window holds, its heatmaps and shape line
// match that walkthrough's trace, and once the runners are idle what is shown belongs to what is
// chosen (no heatmaps for settings that cannot be computed, no run of another model).
//
// A failure prints the seed and the number of actions: ATTNVIZ_STRESS_SEED and
// ATTNVIZ_STRESS_ACTIONS replay it (timing may differ between runs, the actions do not).
#include "app/panels/input_panel.h"
#include "app/panels/model_overview.h"
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/views/heatmap_view.h"
#include "app/window/main_window.h"
#include "app/window/model_runner.h"
#include "app/window/walkthrough_runner.h"
#include "lesson/ablation_difference.h"
#include "lesson/step_view.h"
#include "ui_input_panel.h"
#include "ui_model_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QToolButton>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <functional>
#include <random>

using namespace attnviz::app;
namespace lesson = attnviz::lesson;

namespace {

// A source the model panel can open, with texts to run it on (some it cannot read).
struct Source {
    QString folder; ///< "" = the playground
    QStringList texts;
    bool opens = true; ///< false: not a model at all
};

// A sentence of `words` words: 40 is long but fine, over 256 is more than the playground takes.
QString longSentence(int words)
{
    QStringList out;
    for (int i = 0; i < words; ++i)
        out << QStringLiteral("w%1").arg(i % 37);
    return out.join(QLatin1Char(' '));
}

} // namespace

class StressTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;
    std::vector<Source> m_sources;
    std::mt19937 m_random;
    quint32 m_seed = 20240611;
    int m_actions = 3000;
    std::deque<QString> m_history; ///< the last actions, printed with a failure
    std::map<QString, int> m_counts; ///< how often each kind of action ran
    /// Folders whose failure to open the window has seen, and not asked for again since: they
    /// must not be listed. (One requested and replaced before it ran was never tried, and may.)
    std::set<QString> m_unopened;

    Ui::InputPanel* input() const { return m_window->inputPanel()->ui(); }
    Ui::ModelPanel* model() const { return m_window->modelPanel()->ui(); }
    StepPanel* steps() const { return m_window->stepPanel(); }

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(m_random); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(m_random) < p; }
    template <typename T> const T& any(const std::vector<T>& v)
    {
        return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))];
    }
    QString any(const QStringList& v) { return v.at(pick(static_cast<int>(v.size()))); }

    // What a user can touch: shown in the window and enabled.
    bool usable(const QWidget* w) const { return w->isVisibleTo(m_window.get()) && w->isEnabled(); }

    bool busy() const { return !m_window->session()->idle(); }

    /// Lets the runners deliver their newest results; false when they do not within `ms`.
    bool settle(int ms = 60000)
    {
        QElapsedTimer clock;
        clock.start();
        QApplication::processEvents();
        while (busy()) {
            if (clock.elapsed() > ms)
                return false;
            QThread::msleep(1);
            QApplication::processEvents();
        }
        QApplication::processEvents();
        return true;
    }

    QString replayHint(int action) const
    {
        QString hint = QStringLiteral("\nreplay: ATTNVIZ_STRESS_SEED=%1 ATTNVIZ_STRESS_ACTIONS=%2"
                                      "\nlast actions:")
                           .arg(m_seed)
                           .arg(action + 1);
        for (const QString& a : m_history)
            hint += QStringLiteral("\n  ") + a;
        return hint;
    }

    void log(const QString& action)
    {
        m_history.push_back(action);
        if (m_history.size() > 25)
            m_history.pop_front();
        ++m_counts[action.section(QLatin1Char(' '), 0, 0)];
    }

    // ---- invariants ----------------------------------------------------------------------

    /// What must hold at any moment, even while the runners work: the step panel shows the
    /// window's walkthrough, with the heatmaps and shape line of the step shown.
    QString shownInconsistency() const
    {
        const auto w = m_window->walkthrough();
        const std::vector<HeatmapView*> views = steps()->grid()->visibleViews();
        if (steps()->walkthrough() != w)
            return QStringLiteral("the step panel shows another walkthrough than the window's");
        const lesson::LessonStepIndex index = steps()->step();
        if (index >= lesson::kLessonSteps.size())
            return QStringLiteral("step %1 does not exist").arg(index);
        const auto offered = lesson::shownLessonSteps(steps()->shownTrace());
        const auto at = std::find(offered.begin(), offered.end(), index);
        if (at == offered.end())
            return QStringLiteral("step %1 is not offered for this module").arg(index);
        if (!steps()->positionText().startsWith(
                QStringLiteral("Step %1 of %2").arg(at - offered.begin() + 1).arg(offered.size())))
            return QStringLiteral("position line \"%1\" for step %2")
                .arg(steps()->positionText())
                .arg(index + 1);
        if (!w) {
            if (!views.empty())
                return QStringLiteral("%1 heatmap(s) on screen without a walkthrough")
                    .arg(views.size());
            if (!steps()->shapeText().isEmpty())
                return QStringLiteral("a shape line without a walkthrough: ") +
                    steps()->shapeText();
            return {};
        }
        const lesson::LessonStep& step = steps()->lessonStep();
        const int batch = steps()->batchIndex();
        if (batch < 0 || batch >= w->batch())
            return QStringLiteral("batch item %1 of 0 … %2").arg(batch).arg(w->batch() - 1);
        const QString shape = QString::fromStdString(lesson::stepShapes(step, *w));
        if (steps()->shapeText() != shape)
            return QStringLiteral("shape line \"%1\", the trace says \"%2\"")
                .arg(steps()->shapeText(), shape);

        const auto alternative = static_cast<std::size_t>(steps()->alternative());
        // What the check boxes ask for: the learned matrices, the change from every head on, or
        // the trace itself (whose matrices the views share, so the very pointers must match).
        const auto shows = [&](const char* name) {
            const auto* box = steps()->findChild<QCheckBox*>(QString::fromLatin1(name));
            return box && box->isVisibleTo(steps()) && box->isChecked();
        };
        const bool learned = shows("learnedMatrices");
        const bool difference = !learned && shows("ablationDifference") && !step.views.empty();
        const auto source = difference ? lesson::ablationDifference(*w) : w;
        if (!source)
            return QStringLiteral("the change from every head on is offered without a twin");
        const std::vector<lesson::Heatmap> expected = learned
            ? lesson::weightHeatmaps(step, *w)
            : lesson::stepHeatmaps(step, source, batch, alternative);
        const int focused = steps()->grid()->focusedHead();
        if (focused >= static_cast<int>(expected.size()))
            return QStringLiteral("head %1 focused of %2").arg(focused).arg(expected.size());
        const std::size_t count = focused >= 0 ? 1 : expected.size();
        if (views.size() != count) {
            QStringList titles;
            for (HeatmapView* v : views)
                titles << QString::fromStdString(v->heatmap().title);
            return QStringLiteral("%1 heatmap(s) shown (%4), the step has %2 (focused head %3)")
                .arg(views.size())
                .arg(count)
                .arg(focused)
                .arg(titles.join(QStringLiteral(", ")));
        }
        for (std::size_t k = 0; k < views.size(); ++k) {
            const lesson::Heatmap& shown = views[k]->heatmap();
            const lesson::Heatmap& want = expected[focused >= 0 ? std::size_t(focused) : k];
            bool same = shown.rows() == want.rows() && shown.cols() == want.cols() &&
                shown.title == want.title;
            if (same && !learned && !difference)
                same = shown.matrix.values == want.matrix.values;
            for (int r = 0; same && (learned || difference) && r < want.rows(); ++r)
                for (int c = 0; same && c < want.cols(); ++c)
                    same = shown.value(r, c) == want.value(r, c) ||
                        (std::isnan(shown.value(r, c)) && std::isnan(want.value(r, c)));
            if (!same)
                return QStringLiteral("heatmap %1 shows \"%2\" %3×%4, the trace has \"%5\" %6×%7")
                    .arg(k)
                    .arg(QString::fromStdString(shown.title))
                    .arg(shown.rows())
                    .arg(shown.cols())
                    .arg(QString::fromStdString(want.title))
                    .arg(want.rows())
                    .arg(want.cols());
        }
        if (learned)
            return {}; // the weights, not the trace: compared value by value above
        // The same counts and sizes read from the trace tensors themselves.
        std::size_t fromTrace = 0;
        for (std::size_t v = 0; v < step.views.size(); ++v) {
            if (step.alternatives && v != std::min(alternative, step.views.size() - 1))
                continue;
            const auto traceStep = step.views[v].step;
            if (!source->trace->has(traceStep))
                continue;
            const attnviz::engine::Tensor& t = source->trace->step(traceStep);
            const bool perHead = attnviz::engine::stepInfo(traceStep).perHead;
            if (perHead && t.dim(1) != w->heads())
                return QStringLiteral("%1 has %2 heads, the walkthrough %3")
                    .arg(QString::fromLatin1(attnviz::engine::stepInfo(traceStep).name))
                    .arg(t.dim(1))
                    .arg(w->heads());
            const std::size_t first = fromTrace;
            fromTrace += perHead ? static_cast<std::size_t>(t.dim(1)) : 1;
            for (std::size_t i = first; i < fromTrace && i < expected.size(); ++i) {
                const auto rows = t.dim(t.rank() - 2), cols = t.dim(t.rank() - 1);
                if (expected[i].rows() != rows || expected[i].cols() != cols)
                    return QStringLiteral("heatmap %1 is %2×%3, its tensor %4×%5")
                        .arg(i)
                        .arg(expected[i].rows())
                        .arg(expected[i].cols())
                        .arg(rows)
                        .arg(cols);
                // And the numbers: the last cell, which is read last (a stale or shifted
                // pointer shows there first).
                const auto r = rows - 1, c = cols - 1;
                const float want = perHead
                    ? t.at({batch, static_cast<std::int64_t>(i - first), r, c})
                    : t.at({batch, r, c});
                const float shown = expected[i].value(static_cast<int>(r), static_cast<int>(c));
                if (!(shown == want || (std::isnan(shown) && std::isnan(want))))
                    return QStringLiteral("heatmap %1 shows %2 at (%3,%4), the trace %5")
                        .arg(i)
                        .arg(static_cast<double>(shown))
                        .arg(r)
                        .arg(c)
                        .arg(static_cast<double>(want));
            }
        }
        if (!step.views.empty() && fromTrace != expected.size())
            return QStringLiteral("%1 heatmap(s) for a trace with %2 matrices")
                .arg(expected.size())
                .arg(fromTrace);
        return {};
    }

    /// What must hold once the runners are idle: what is shown belongs to what is chosen.
    QString settledInconsistency() const
    {
        const auto w = m_window->walkthrough();
        const bool anyViews = !steps()->grid()->visibleViews().empty();
        for (const QString& folder : m_unopened)
            if (model()->source->findData(folder) >= 0)
                return QStringLiteral("\"%1\" failed to open but stays in the source list")
                    .arg(folder);
        if (m_window->modelPanel()->playground()) {
            if (m_window->modelResult().run)
                return QStringLiteral("a model run is kept in the playground");
            // Presentation mode hides the whole settings panel; within it the playground's
            // settings must show.
            const auto* panel = m_window->findChild<QWidget*>(QStringLiteral("settingsPanel"));
            if (!m_window->inputPanel()->isVisibleTo(panel))
                return QStringLiteral("the playground's settings are hidden");
            const lesson::PlaygroundSettings settings = m_window->inputPanel()->settings();
            const auto problems = lesson::checkSettings(settings);
            if (!problems.empty()) {
                if (w || anyViews)
                    return QStringLiteral("heatmaps stay on screen for settings that cannot be "
                                          "computed (%1)")
                        .arg(QString::fromStdString(problems.front().message));
                bool explained = false;
                for (QLabel* label : m_window->inputPanel()->findChildren<QLabel*>())
                    explained |= label->objectName().endsWith(QLatin1String("Error")) &&
                        label->isVisibleTo(panel) && !label->text().isEmpty();
                if (!explained)
                    return QStringLiteral("settings that cannot be computed, and no reason shown");
                return {};
            }
            if (!w)
                return QStringLiteral("valid settings, and nothing computed");
            const auto* source = std::get_if<lesson::PlaygroundSource>(&w->source);
            if (!source)
                return QStringLiteral("the playground shows a model's block");
            if (!(source->settings == settings))
                return QStringLiteral("the walkthrough was computed for other settings");
            return {};
        }
        const ModelResult& result = m_window->modelResult();
        if (m_window->inputPanel()->isVisibleTo(m_window.get()) && result.request.folder != "")
            return QStringLiteral("the playground's settings are shown beside a model");
        if (result.request.folder != m_window->modelPanel()->request().folder)
            return QStringLiteral("the panel names \"%1\", the window shows \"%2\"")
                .arg(QString::fromStdString(m_window->modelPanel()->request().folder),
                     QString::fromStdString(result.request.folder));
        if (!result.run) {
            if (w || anyViews)
                return QStringLiteral("heatmaps of an earlier run stay on screen after \"%1\"")
                    .arg(result.error);
            if (model()->problem->text().isEmpty())
                return QStringLiteral("no run, and no reason shown");
            if (!model()->output->text().isEmpty())
                return QStringLiteral("a stale output stays: ") + model()->output->text();
            return {};
        }
        // A classifier's classes are the only output of a run without decoding.
        const bool classes = result.run->config.image &&
            model()->output->text().startsWith(QStringLiteral("Classified as"));
        if (result.run->decoding.empty() && !model()->output->text().isEmpty() && !classes)
            return QStringLiteral("an output for a run without decoding: ") +
                model()->output->text();
        if (result.run->config.image && result.run->config.image->classes > 0 && !classes)
            return QStringLiteral("a classifier's run without its classes named");
        if (!w)
            return QStringLiteral("a model run, and no block shown");
        const lesson::BlockChoice choice = m_window->modelPanel()->choice();
        if (const auto* block = std::get_if<lesson::ModelBlockSource>(&w->source)) {
            if (block->layer != choice.layer || block->block != choice.block ||
                block->decodingStep != choice.decodingStep)
                return QStringLiteral("layer %1 block %2 step %3 shown, %4 %5 %6 chosen")
                    .arg(block->layer)
                    .arg(static_cast<int>(block->block))
                    .arg(block->decodingStep)
                    .arg(choice.layer)
                    .arg(static_cast<int>(choice.block))
                    .arg(choice.decodingStep);
        } else if (const auto* import = std::get_if<lesson::ImportSource>(&w->source)) {
            if (import->layer != choice.layer || import->block != choice.block)
                return QStringLiteral("imported layer %1 shown, layer %2 chosen")
                    .arg(import->layer)
                    .arg(choice.layer);
        } else {
            return QStringLiteral("a model is chosen and the playground is shown");
        }
        if (model()->overview->isChecked() &&
            m_window->overview()->views().size() <
                static_cast<std::size_t>(std::max(1, w->heads())))
            return QStringLiteral("the overview shows %1 heads, the block has %2")
                .arg(m_window->overview()->views().size())
                .arg(w->heads());
        return {};
    }

    // ---- actions -------------------------------------------------------------------------

    void setSpin(QSpinBox* spin, const std::vector<int>& values, const char* name)
    {
        const int v = any(values);
        log(QStringLiteral("spin %1=%2").arg(QLatin1String(name)).arg(v));
        spin->setValue(v);
    }

    void clickView(const std::vector<HeatmapView*>& views, const char* what)
    {
        HeatmapView* view =
            views.at(static_cast<std::size_t>(pick(static_cast<int>(views.size()))));
        const auto& m = view->heatmap().matrix;
        if (m.rows < 1 || m.cols < 1)
            return;
        const int row = pick(m.rows), col = pick(m.cols);
        log(QStringLiteral("%1 (%2,%3) of \"%4\"")
                .arg(QLatin1String(what))
                .arg(row)
                .arg(col)
                .arg(QString::fromStdString(view->heatmap().title)));
        if (chance(0.3))
            QTest::mouseMove(view, view->cellCentre(row, col));
        else
            QTest::mouseClick(view, Qt::LeftButton, {}, view->cellCentre(row, col));
    }

    void openSource(Source s)
    {
        // The playground a third of the time, so its settings get their share of the actions.
        if (chance(0.3))
            s = m_sources.front();
        attnviz::lesson::ModelSource r;
        r.folder = s.folder.toStdString();
        r.text = s.texts.isEmpty() ? std::string() : any(s.texts).toStdString();
        if (chance(0.3))
            r.generate = pick(4);
        log(QStringLiteral("open \"%1\" text \"%2\" generate %3")
                .arg(s.folder, QString::fromStdString(r.text))
                .arg(r.generate));
        m_window->modelPanel()->setRequest(r);
    }

    /// One random action; false when the one drawn is not possible now (the caller draws again).
    bool act()
    {
        const int kind = pick(100);
        auto* window = m_window.get();
        // Navigation (cheap, most of what a student does).
        if (kind < 12) {
            const Qt::Key keys[] = {Qt::Key_Left, Qt::Key_Right, Qt::Key_Home, Qt::Key_End};
            const Qt::Key key = keys[pick(4)];
            log(QStringLiteral("key %1").arg(QKeySequence(key).toString()));
            QTest::keyClick(window, key);
            return true;
        }
        if (kind < 18) {
            const auto buttons = steps()->findChildren<QToolButton*>();
            QAbstractButton* b = buttons.at(pick(static_cast<int>(buttons.size())));
            if (chance(0.3)) {
                for (QPushButton* p : steps()->findChildren<QPushButton*>())
                    if (p->text().contains(chance(0.5) ? QStringLiteral("Prev")
                                                       : QStringLiteral("Next")))
                        b = p;
            }
            if (!usable(b))
                return false;
            log(QStringLiteral("button \"%1\"").arg(b->text()));
            b->click();
            return true;
        }
        if (kind < 21) {
            auto* alternative = steps()->findChild<QComboBox*>(QStringLiteral("alternative"));
            if (!usable(alternative) || alternative->count() == 0)
                return false;
            const int i = pick(alternative->count());
            log(QStringLiteral("alternative %1").arg(i));
            alternative->setCurrentIndex(i);
            return true;
        }
        if (kind < 23) {
            for (QSpinBox* batch : steps()->findChildren<QSpinBox*>()) {
                if (!usable(batch))
                    return false;
                const int v = batch->minimum() + pick(batch->maximum() - batch->minimum() + 1);
                log(QStringLiteral("batch %1").arg(v));
                batch->setValue(v);
                return true;
            }
            return false;
        }
        if (kind < 25) {
            // Any of the step panel's check boxes: one range, numbers, change, learned matrices.
            const auto boxes = steps()->findChildren<QCheckBox*>();
            QAbstractButton* b = chance(0.5) && !boxes.empty()
                ? static_cast<QAbstractButton*>(boxes.at(pick(static_cast<int>(boxes.size()))))
                : nullptr;
            if (!b)
                for (QPushButton* p : steps()->findChildren<QPushButton*>())
                    if (p->text().contains(QStringLiteral("all heads")))
                        b = p;
            if (!b || !usable(b))
                return false;
            log(QStringLiteral("toggle \"%1\"").arg(b->text()));
            b->click();
            return true;
        }
        if (kind < 31) {
            const auto views = steps()->grid()->visibleViews();
            if (views.empty() || !usable(steps()))
                return false;
            clickView(views, "cell");
            return true;
        }
        // The playground's settings.
        if (kind < 53) {
            if (!usable(m_window->inputPanel()))
                return false;
            switch (pick(16)) {
            case 0:
                setSpin(input()->heads, {0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 64, 65, 128}, "heads");
                break;
            case 1:
                setSpin(input()->modelWidth,
                        {0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 1024, 1025, 4096},
                        "width");
                break;
            case 2:
                setSpin(input()->queryKeySize, {0, 0, 1, 2, 3, 5, 8, 16, 1025, 4096}, "d_k");
                break;
            case 3:
                setSpin(input()->valueSize, {0, 0, 1, 3, 4, 7, 16, 2000}, "d_v");
                break;
            case 4:
                setSpin(input()->outputWidth, {0, 0, 1, 5, 16, 33, 1025}, "P_o");
                break;
            case 5:
                setSpin(input()->seed, {0, 1, 42, 999999}, "seed");
                break;
            case 6: {
                const QStringList queries = {QStringLiteral("the cat sat on the mat"),
                                             QStringLiteral("a b c"),
                                             QString(),
                                             QStringLiteral("\n \n"),
                                             QStringLiteral("the cat\nthe dog sat down"),
                                             QStringLiteral("one\n\ntwo three"),
                                             QStringLiteral("héllo wörld 你好 <s> &amp;"),
                                             QStringLiteral("x"),
                                             longSentence(40),
                                             longSentence(300)};
                const QString q = any(queries);
                log(QStringLiteral("queries \"%1\"").arg(q.left(40)));
                // Typed key by key (QTest types printable ASCII only), or pasted in one go.
                const bool typeable = std::all_of(q.begin(), q.end(), [](QChar c) {
                    return c.unicode() >= 32 && c.unicode() < 127;
                });
                if (chance(0.2) && q.size() < 30 && typeable) {
                    input()->querySentences->clear();
                    QTest::keyClicks(input()->querySentences, q);
                } else {
                    input()->querySentences->setPlainText(q);
                }
                break;
            }
            case 7: {
                const QStringList keys = {QString(),
                                          QString(),
                                          QStringLiteral("the dog barked"),
                                          QStringLiteral("one\ntwo"),
                                          QStringLiteral("  "),
                                          longSentence(257)};
                const QString k = any(keys);
                log(QStringLiteral("keys \"%1\"").arg(k.left(40)));
                input()->keyValueSentences->setPlainText(k);
                break;
            }
            case 8: {
                const int i = pick(input()->mask->count());
                log(QStringLiteral("mask %1").arg(i));
                input()->mask->setCurrentIndex(i);
                break;
            }
            case 9: {
                const int i = pick(input()->tokenizer->count());
                log(QStringLiteral("tokens %1").arg(i));
                input()->tokenizer->setCurrentIndex(i);
                break;
            }
            case 10:
                log(QStringLiteral("toggle \"%1\"").arg(input()->bias->text()));
                input()->bias->click();
                break;
            case 12: {
                const int i = pick(input()->positions->count());
                log(QStringLiteral("positions %1").arg(i));
                input()->positions->setCurrentIndex(i);
                if (chance(0.3)) {
                    const double thetas[] = {2, 100, 10000, 500000, 1e9};
                    const double theta = thetas[pick(5)];
                    log(QStringLiteral("rope theta %1").arg(theta));
                    input()->ropeTheta->setValue(theta);
                }
                break;
            }
            case 13:
                setSpin(input()->keyValueHeads, {0, 0, 1, 2, 3, 4, 8, 128}, "K/V heads");
                break;
            case 14:
                setSpin(input()->slidingWindow, {0, 0, 1, 2, 3, 256}, "window");
                break;
            case 11: {
                const QStringList lengths = {QString(),
                                             QStringLiteral("3, 2"),
                                             QStringLiteral("1"),
                                             QStringLiteral("0"),
                                             QStringLiteral("[[1, 2], [2, 1]]"),
                                             QStringLiteral("99999999999"),
                                             QStringLiteral("[[[1"),
                                             QStringLiteral("-1; x")};
                const QString l = any(lengths);
                log(QStringLiteral("valid lengths \"%1\"").arg(l));
                input()->validLengths->setText(l);
                break;
            }
            default: {
                QPushButton* b = chance(0.5) ? input()->reroll : input()->clearMask;
                log(QStringLiteral("button \"%1\"").arg(b->text()));
                b->click();
                break;
            }
            }
            return true;
        }
        // Models.
        if (kind < 58) {
            // The GPT-2 fixture reads a 50k-word vocabulary: open it rarely.
            const Source& s = any(m_sources);
            if (s.folder.contains(QStringLiteral("gpt2")) && !chance(0.3))
                return false;
            openSource(s);
            return true;
        }
        if (kind < 60) {
            // The source list as a user picks from it (never the entries that open a dialog).
            const int i = pick(model()->source->count());
            const QString data = model()->source->itemData(i).toString();
            if (data.startsWith(QLatin1Char('<')))
                return false;
            log(QStringLiteral("source #%1 \"%2\"").arg(i).arg(data));
            model()->source->setCurrentIndex(i);
            emit model()->source->activated(i);
            return true;
        }
        if (kind < 65) {
            QLineEdit* edit = chance(0.7) ? model()->text : model()->target;
            if (!usable(edit))
                return false;
            const QStringList texts = {QStringLiteral("attention"),
                                       QStringLiteral("abc"),
                                       QStringLiteral("abcde"),
                                       QStringLiteral("cab"),
                                       QStringLiteral("Hello"),
                                       QString(),
                                       QStringLiteral("zz"),
                                       QStringLiteral("and god said"),
                                       QStringLiteral("abcdefghabcdefghabcdefgh")};
            const QString t = any(texts);
            log(QStringLiteral("%1 \"%2\"").arg(edit->objectName(), t));
            edit->clear();
            QTest::keyClicks(edit, t);
            QTest::keyClick(edit, Qt::Key_Return);
            return true;
        }
        if (kind < 67) {
            if (!usable(model()->generate))
                return false;
            setSpin(model()->generate, {0, 1, 2, 3, 5}, "generate");
            return true;
        }
        if (kind < 75) {
            QComboBox* combo = chance(0.5) ? model()->layer : model()->block;
            if (!usable(combo) || combo->count() == 0)
                return false;
            const int i = pick(combo->count());
            log(QStringLiteral("%1 %2").arg(combo->objectName()).arg(i));
            combo->setCurrentIndex(i);
            return true;
        }
        if (kind < 78) {
            QSpinBox* step = model()->decodingStep;
            if (!usable(step))
                return false;
            const int v = step->minimum() + pick(step->maximum() - step->minimum() + 1);
            log(QStringLiteral("decoding step %1").arg(v));
            step->setValue(v);
            return true;
        }
        if (kind < 82) {
            if (!usable(model()->overview))
                return false;
            log(QStringLiteral("overview"));
            model()->overview->click();
            return true;
        }
        if (kind < 85) {
            const auto& views = m_window->overview()->views();
            if (!m_window->overview()->isVisibleTo(window) || views.empty())
                return false;
            clickView(views, "overview-head");
            return true;
        }
        if (kind < 88) {
            // Open a model and stop it before (or while) it runs.
            std::vector<Source> models;
            for (const Source& s : m_sources)
                if (!s.folder.isEmpty() && s.opens)
                    models.push_back(s);
            openSource(any(models));
            for (int i = pick(3); i > 0; --i)
                QApplication::processEvents();
            if (!usable(model()->cancel))
                return true;
            log(QStringLiteral("cancel"));
            model()->cancel->click();
            return true;
        }
        // The window.
        if (kind < 92) {
            log(QStringLiteral("presentation"));
            if (chance(0.5))
                QTest::keyClick(window, Qt::Key_F5);
            else
                for (QAction* a : window->findChildren<QAction*>())
                    if (a->objectName() == QLatin1String("actionPresentation"))
                        a->trigger();
            return true;
        }
        if (kind < 96) {
            const QSize size(500 + pick(1400), 400 + pick(900));
            log(QStringLiteral("resize %1x%2").arg(size.width()).arg(size.height()));
            window->resize(size);
            return true;
        }
        // A burst: several edits before anything settles (the runners keep the newest only).
        log(QStringLiteral("burst"));
        for (int i = 0; i < 3; ++i)
            if (!act())
                --i;
        return true;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        if (qEnvironmentVariableIsSet("ATTNVIZ_STRESS_SEED"))
            m_seed = qEnvironmentVariable("ATTNVIZ_STRESS_SEED").toUInt();
        if (qEnvironmentVariableIsSet("ATTNVIZ_STRESS_ACTIONS"))
            m_actions = qEnvironmentVariableIntValue("ATTNVIZ_STRESS_ACTIONS");
        m_random.seed(m_seed);
        qInfo("stress seed %u, %d actions", m_seed, m_actions);

        QVERIFY(m_dir.isValid());
        namespace fs = std::filesystem;
        const fs::path root = m_dir.path().toStdString();
        const fs::path data = ATTNVIZ_TEST_DATA_DIR;
        fs::create_directories(root / "gpt2");
        for (const char* f : {"config.json", "model.safetensors", "vocab.json", "merges.txt"})
            fs::copy_file(data / "hf" / "gpt2" / f, root / "gpt2" / f);
        fs::create_directories(root / "empty");
        fs::create_directories(root / "config-only");
        fs::copy_file(data / "models" / "encoder_only" / "config.json",
                      root / "config-only" / "config.json");

        const QString dir = m_dir.path();
        const QString tests = QStringLiteral(ATTNVIZ_TEST_DATA_DIR);
        const QStringList small = {QStringLiteral("abcde"),
                                   QStringLiteral("abc"),
                                   QStringLiteral("hah"),
                                   QStringLiteral("xyz"),
                                   QStringLiteral("abcdefghabcdefgh"),
                                   QString()};
        m_sources = {
            {QString(), {}},
            {QString(), {}},
            {QStringLiteral("reverse"),
             {QStringLiteral("attention"), QStringLiteral("abc"), QStringLiteral("Hello"),
              QString(), QStringLiteral("abcdefghijklmnopqrstuvwxyz")}},
            {QStringLiteral("genesis"),
             {QStringLiteral("and god said"), QStringLiteral("let there be light"),
              QStringLiteral("ZZZ"), QString()}},
            {tests + QStringLiteral("/models/encoder_only"), small},
            {tests + QStringLiteral("/models/decoder_postnorm"), small},
            {tests + QStringLiteral("/models/postnorm_tanh"), small},
            {dir + QStringLiteral("/gpt2"),
             {QStringLiteral("Hello world, hello attention"), QStringLiteral("a"), QString()}},
            {tests + QStringLiteral("/attentions/gpt_layers.safetensors"), {}},
            {dir + QStringLiteral("/empty"), small, false},
            {dir + QStringLiteral("/config-only"), small, false},
            {tests + QStringLiteral("/models/genesis"), small, false}, // references only
            {tests + QStringLiteral("/attentions/bad_gap.safetensors"), {}, false},
        };
    }

    void randomActionsKeepTheWindowConsistent()
    {
        m_window = std::make_unique<MainWindow>();
        connect(m_window->modelPanel(), &ModelPanel::requestChanged, this,
                [this](const attnviz::lesson::ModelSource& r) {
                    m_unopened.erase(QString::fromStdString(r.folder));
                });
        connect(m_window->session()->modelRunner(), &ModelRunner::finished, this,
                [this](const ModelResult& r) {
                    if (!r.model && !r.error.isEmpty())
                        m_unopened.insert(QString::fromStdString(r.request.folder));
                });
        connect(m_window->session()->modelRunner(), &ModelRunner::overtakenUnopened, this,
                [this](const QString& folder) {
                    if (folder.toStdString() != m_window->modelPanel()->request().folder)
                        m_unopened.insert(folder);
                });
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(settle());
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < m_actions; ++i) {
            while (!act()) { }
            QString problem = shownInconsistency();
            if (problem.isEmpty() && chance(0.85)) {
                if (!settle())
                    problem = QStringLiteral("the runners did not finish within a minute");
                else
                    problem = shownInconsistency();
                if (problem.isEmpty())
                    problem = settledInconsistency();
            }
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QStringLiteral("after action %1: %2%3")
                                    .arg(i + 1)
                                    .arg(problem, replayHint(i))));
        }
        QVERIFY(settle());
        const QString last = shownInconsistency() + settledInconsistency();
        QVERIFY2(last.isEmpty(), qPrintable(last + replayHint(m_actions - 1)));
        QStringList counts;
        for (const auto& [kind, n] : m_counts)
            counts << QStringLiteral("%1 %2").arg(kind).arg(n);
        qInfo("%d actions in %.1f s: %s", m_actions, static_cast<double>(clock.elapsed()) / 1000,
              qPrintable(counts.join(QStringLiteral(", "))));
        m_window.reset();
    }
};

QTEST_MAIN(StressTest)

#include "stress_test.moc"
