#include "app/main_window.h"

#include "app/export_menu.h"
#include "app/head_grid_view.h"
#include "app/importance_dialog.h"
#include "app/input_panel.h"
#include "app/mistakes_dialog.h"
#include "app/model_overview.h"
#include "app/model_panel.h"
#include "app/prediction_prompt.h"
#include "app/preferences_dialog.h"
#include "app/scaling_dialog.h"
#include "app/settings_store.h"
#include "app/step_panel.h"
#include "app/walkthrough_runner.h"
#include "ui_main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

namespace attnviz::app {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_ui(std::make_unique<Ui::MainWindow>())
    , m_input(new InputPanel)
    , m_model(new ModelPanel)
    , m_steps(new StepPanel)
    , m_overview(new ModelOverview)
    , m_views(new QStackedWidget)
    , m_runner(new WalkthroughRunner(this))
    , m_modelRunner(new ModelRunner(this))
{
    m_ui->setupUi(this);
    m_exports = new ExportMenu(m_ui->menuExport, this, [this] { return viewState(); });
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_model);
    leftLayout->addWidget(m_input);
    leftLayout->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(340);
    m_views->addWidget(m_steps);
    m_views->addWidget(m_overview);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(scroll);
    splitter->addWidget(m_views);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(m_ui->centralwidget);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionPreferences, &QAction::triggered, this, &MainWindow::openPreferences);
    connect(m_ui->actionMistakes, &QAction::triggered, this, &MainWindow::openMistakes);
    connect(m_ui->actionScaling, &QAction::triggered, this, &MainWindow::openScaling);
    connect(m_ui->actionImportance, &QAction::triggered, this, &MainWindow::openImportance);
    connect(m_ui->actionNext, &QAction::triggered, m_steps, &StepPanel::next);
    connect(m_ui->actionPrevious, &QAction::triggered, m_steps, &StepPanel::previous);
    connect(m_ui->actionFirst, &QAction::triggered, m_steps, &StepPanel::first);
    connect(m_ui->actionLast, &QAction::triggered, m_steps, &StepPanel::last);
    connect(m_ui->actionPresentation, &QAction::toggled, this, &MainWindow::setPresentationMode);
    connect(m_ui->actionAbout, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About AttnViz"),
            tr("<p><b>AttnViz</b> walks through multi-head attention one step at a time. "
               "Every number comes from the engine's trace, which is checked against "
               "PyTorch (see README).</p>"));
    });

    connect(m_input, &InputPanel::settingsChanged, this, [this] {
        if (m_model->playground())
            m_runner->request(m_input->settings());
    });
    connect(m_model, &ModelPanel::playgroundChosen, this, &MainWindow::showPlayground);
    connect(m_model, &ModelPanel::requestChanged, this, &MainWindow::runModel);
    connect(m_modelRunner, &ModelRunner::finished, this, &MainWindow::showModelResult);
    // A head switched off from its context menu: the playground's module, or the model's head in
    // the block shown; the runners compute the consequence, the views only show it.
    connect(m_steps, &StepPanel::headSwitched, this, [this](int head, bool off) {
        if (m_model->playground()) {
            m_input->setHeadSwitchedOff(head, off);
            return;
        }
        const lesson::BlockChoice c = m_model->choice();
        m_model->setHeadSwitchedOff({c.layer, c.block, head}, off);
    });
    connect(m_steps, &StepPanel::allHeadsSwitchedOn, this, [this] {
        if (m_model->playground())
            m_input->switchAllHeadsOn();
        else
            m_model->switchAllHeadsOn();
    });
    connect(m_modelRunner, &ModelRunner::progress, m_model, &ModelPanel::showProgress);
    connect(m_modelRunner, &ModelRunner::overtakenUnopened, this, [this](const QString& folder) {
        // Not a model either, though the user moved on before it said so; unless it is chosen
        // again, when its own result will say why.
        if (folder != m_model->request().folder)
            m_model->forgetSource(folder);
    });
    connect(m_model, &ModelPanel::cancelRequested, m_modelRunner, &ModelRunner::cancel);
    connect(m_model, &ModelPanel::choiceChanged, this, &MainWindow::showModelBlock);
    connect(m_model, &ModelPanel::overviewToggled, this, [this](bool on) {
        if (on && !m_modelResult.run) {
            // No run (it failed, or is still loading): the overview would show an earlier one's.
            m_model->leaveOverview();
            return;
        }
        m_views->setCurrentWidget(on ? static_cast<QWidget*>(m_overview) : m_steps);
        if (on && m_modelResult.run)
            m_overview->show(m_modelResult.run, m_model->choice());
    });
    connect(m_overview, &ModelOverview::headChosen, this,
            [this](int layer, engine::Block block, int head) {
                lesson::BlockChoice c = m_model->choice();
                c.layer = layer;
                c.block = block;
                m_model->leaveOverview();
                m_model->setChoice(c);
                m_steps->setStep(*lesson::lessonStepShowing(engine::AttentionStep::Weights));
                m_steps->grid()->focusHead(head);
            });
    connect(m_runner, &WalkthroughRunner::rejected, this,
            [this](const std::vector<lesson::SettingsProblem>& problems) {
                m_input->showProblems(problems);
                // The heatmaps of the last settings that worked must not stay beside settings
                // that cannot be computed.
                showNothing(tr("these settings cannot be computed; fix the fields marked in red."));
                statusBar()->showMessage(tr("Not computed: fix the settings marked in red."));
            });
    connect(m_runner, &WalkthroughRunner::failed, this, [this](const QString& message) {
        if (!m_model->playground())
            return;
        showNothing(message);
        statusBar()->showMessage(tr("Not computed: %1").arg(message));
    });
    connect(m_runner, &WalkthroughRunner::computed, this, &MainWindow::showWalkthrough);
    // The step is kept as soon as it changes, so the app reopens on it even after a crash.
    connect(m_steps, &StepPanel::stepChanged, this, [](lesson::LessonStepIndex step) {
        QSettings store;
        saveStep(store, step);
    });
    connect(m_steps, &StepPanel::cellClicked, this, [this](int row, int column) {
        // Drawing the custom mask: clicking a score-shaped heatmap blocks or unblocks that cell.
        if (m_steps->lessonStep().scoreShaped() &&
            m_input->settings().mask == lesson::MaskKind::Custom)
            m_input->toggleBlockedCell(row, column);
    });

    // Experiments ▸ Predict, then reveal: a question covers a step until it is answered.
    new PredictionPrompt(m_steps, m_ui->menuExperiments);

    QSettings store;
    restoreGeometry(store.value(QStringLiteral("window/geometry")).toByteArray());
    m_steps->setStep(loadStep(store));
    m_input->setSettings(loadPlaygroundSettings(store));
    m_preferences = loadPreferences(store);
    m_modelRunner->setMemoryLimit(m_preferences.memoryLimit);
    const ModelRequest saved = loadModelRequest(store);
    m_savedFolder = saved.folder;
    m_model->setRequest(saved);
}

MainWindow::~MainWindow() = default;

ViewState MainWindow::viewState() const
{
    ViewState state;
    state.walkthrough = m_walkthrough;
    if (!m_model->playground())
        state.run = m_modelResult.run;
    state.choice = m_model->choice();
    state.step = m_steps->step();
    state.alternative = m_steps->alternative();
    state.batch = m_steps->batchIndex();
    state.focusedHead = m_steps->grid()->focusedHead();
    return state;
}

void MainWindow::runModel(const ModelRequest& request)
{
    if (request.folder != m_savedFolder)
        m_savedFolder.clear(); // the user chose another model before the saved one opened
    statusBar()->showMessage(tr("Running %1…").arg(request.folder));
    m_model->showProgress(0, 0);
    m_modelRunner->request(request);
}

void MainWindow::openMistakes()
{
    if (!m_mistakes)
        m_mistakes = new MistakesDialog(this);
    showFollowing(m_mistakes);
}

void MainWindow::openScaling()
{
    if (!m_scaling)
        m_scaling = new ScalingDialog(this);
    showFollowing(m_scaling);
}

void MainWindow::openImportance()
{
    if (!m_importance) {
        m_importance = new ImportanceDialog(this);
        connect(m_importance, &ImportanceDialog::headChosen, this,
                [this](const engine::Ablation::Head& head) {
                    if (m_model->playground())
                        return;
                    m_model->setChoice({head.layer, head.block});
                    m_model->setHeadSwitchedOff(head, true);
                });
    }
    updateImportanceModel();
    m_importance->show();
    m_importance->raise();
}

void MainWindow::updateImportanceModel()
{
    if (!m_importance)
        return;
    const bool model = !m_model->playground() && m_modelResult.model;
    m_importance->setModel(model ? m_modelResult.model : nullptr,
                           model ? m_modelResult.request.text.toStdString() : std::string(),
                           m_preferences.memoryLimit);
}

void MainWindow::showFollowing(FollowingDialog* dialog)
{
    connect(m_steps, &StepPanel::walkthroughShown, dialog, &FollowingDialog::setWalkthrough,
            Qt::UniqueConnection);
    dialog->setWalkthrough(m_steps->walkthrough(), m_steps->batchIndex());
    dialog->show();
    dialog->raise();
}

void MainWindow::openPreferences()
{
    // Window-modal but not blocking: the window keeps painting, and tests can drive the dialog.
    auto* dialog = new PreferencesDialog(m_preferences, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const Preferences chosen = dialog->preferences();
        if (chosen == m_preferences)
            return;
        m_preferences = chosen;
        QSettings store;
        savePreferences(store, m_preferences);
        m_modelRunner->setMemoryLimit(m_preferences.memoryLimit);
        // The model shown was run (or refused) under the old limit: run it again under the new.
        if (!m_model->playground())
            runModel(m_model->request());
    });
    dialog->open();
}

void MainWindow::showNothing(const QString& reason)
{
    m_walkthrough.reset();
    m_blockRun.reset();
    m_steps->clear(reason);
}

void MainWindow::showWalkthrough(std::shared_ptr<const lesson::Walkthrough> walkthrough)
{
    if (!m_model->playground())
        return; // computed for the playground, which the user left meanwhile
    m_walkthrough = std::move(walkthrough);
    m_blockRun.reset();
    m_input->showProblems({});
    m_steps->setWalkthrough(m_walkthrough);
    const auto& t = *m_walkthrough->trace;
    QString masked;
    if (!t.fullyMaskedRows.empty())
        masked = tr(" · %n query row(s) fully masked (zero weights)", nullptr,
                    static_cast<int>(t.fullyMaskedRows.size()));
    statusBar()->showMessage(
        tr("computed in %1 ms · batch %2 · %3 heads · %4 queries × %5 keys · d_k %6, d_v %7%8")
            .arg(m_walkthrough->milliseconds, 0, 'f', 2)
            .arg(t.batchSize())
            .arg(t.numHeads())
            .arg(t.queryLength())
            .arg(t.keyLength())
            .arg(m_walkthrough->dk())
            .arg(m_walkthrough->dv())
            .arg(masked));
}

void MainWindow::showPlayground()
{
    m_modelRunner->cancel();
    m_model->hideProgress();
    m_modelResult = {};
    updateImportanceModel();
    m_input->setVisible(true);
    m_views->setCurrentWidget(m_steps);
    m_runner->request(m_input->settings());
}

void MainWindow::showModelResult(const ModelResult& result)
{
    m_model->hideProgress();
    // A folder or file that does not open is not kept in the source list, whatever is shown.
    const bool unopened = !result.model && !result.error.isEmpty();
    const bool forgotten = unopened && m_model->forgetSource(result.request.folder);
    const bool saved = !m_savedFolder.isEmpty() && result.request.folder == m_savedFolder;
    m_savedFolder.clear();
    if (m_model->playground())
        return; // the user went back to the playground while the model ran
    if (result.cancelled) {
        // The panel names what the window still shows, not the model that was stopped.
        m_model->restore(m_modelResult);
        statusBar()->showMessage(tr("Cancelled: the window still shows the previous run."));
        return;
    }
    QString reason = result.error;
    if (reason.endsWith(QLatin1Char('.')))
        reason.chop(1);
    const QString name = QFileInfo(QDir::cleanPath(result.request.folder)).fileName();
    const ModelRequest demo = defaultModelRequest();
    if (unopened && saved && result.request.folder != demo.folder) {
        // The model of the last session broke since (a file removed or replaced): start on the
        // demo a first start shows rather than on an error.
        const QString notice =
            tr("The model opened last time, “%1”, could not be opened again (%2), so the %3 demo "
               "is shown instead.")
                .arg(name, reason, demo.folder);
        m_model->setRequest(demo);
        m_model->setNotice(notice);
        statusBar()->showMessage(notice);
        return;
    }
    if (forgotten) {
        // The window keeps showing what it showed; the panel names it again and says why.
        const QString notice = tr("“%1” was not opened: %2.").arg(name, reason);
        m_model->restore(m_modelResult);
        m_model->setNotice(notice);
        statusBar()->showMessage(notice);
        return;
    }
    m_input->setVisible(false);
    m_modelResult = result;
    updateImportanceModel();
    m_model->showResult(result);
    if (!result.run) {
        // Heatmaps of an earlier run would not belong to this model or text.
        m_model->leaveOverview();
        showNothing(result.error.isEmpty() ? tr("the model has not run yet.") : result.error);
        statusBar()->showMessage(result.error.isEmpty() ? tr("Loading…")
                                                        : tr("Not computed: %1").arg(result.error));
    }
}

void MainWindow::showModelBlock(const lesson::BlockChoice& choice)
{
    if (!m_modelResult.run)
        return;
    if (!m_modelResult.run->traceAt(choice.decodingStep).attentionBlock(choice.layer, choice.block))
        return;
    // Already on screen (the panel was restored after a cancel or a folder that did not open):
    // keep the walkthrough, with the step panel's focus and batch item.
    if (m_walkthrough && m_blockRun == m_modelResult.run && m_blockChoice == choice)
        return;
    m_walkthrough = lesson::walkthroughForBlock(m_modelResult.run, choice);
    m_blockRun = m_modelResult.run;
    m_blockChoice = choice;
    m_steps->setWalkthrough(m_walkthrough);
    const lesson::LessonStepIndex weights =
        *lesson::lessonStepShowing(engine::AttentionStep::Weights);
    if (m_walkthrough->weightsOnly() && m_steps->step() != weights)
        m_steps->setStep(weights); // the only step an import has data for
    if (m_views->currentWidget() == m_overview)
        m_overview->show(m_modelResult.run, choice);
    statusBar()->showMessage(tr("%1 · layer %2 · %3 · %4 heads · %5 queries × %6 keys · d_k %7")
                                 .arg(QString::fromStdString(m_modelResult.run->config.name))
                                 .arg(choice.layer)
                                 .arg(QString::fromLatin1(engine::blockName(choice.block)))
                                 .arg(m_walkthrough->heads())
                                 .arg(m_walkthrough->trace->queryLength())
                                 .arg(m_walkthrough->trace->keyLength())
                                 .arg(m_walkthrough->weightsOnly()
                                          ? tr("unknown")
                                          : QString::number(m_walkthrough->dk())));
}

void MainWindow::setPresentationMode(bool on)
{
    // Readable from the back of a classroom: every font in the window grows; off restores the
    // desktop's own size.
    QFont f = QApplication::font();
    if (on)
        f.setPointSizeF(std::max(16.0, f.pointSizeF() * 1.6));
    setFont(f);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings store;
    store.setValue(QStringLiteral("window/geometry"), saveGeometry());
    saveStep(store, m_steps->step());
    savePlaygroundSettings(store, m_input->settings());
    saveModelRequest(store, m_model->request());
    event->accept();
}

} // namespace attnviz::app
