#include "app/window/main_window.h"

#include "app/dialogs/glossary_dialog.h"
#include "app/dialogs/guided_tour.h"
#include "app/dialogs/help_boxes.h"
#include "app/dialogs/preferences_dialog.h"
#include "app/experiments/experiments_menu.h"
#include "app/export/export_menu.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_overview.h"
#include "app/panels/model_panel.h"
#include "app/panels/prediction_prompt.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/fit_to_screen.h"
#include "app/window/language_switch.h"
#include "app/window/picture_drop.h"
#include "app/window/presentation_mode.h"
#include "app/window/settings_store.h"
#include "app/window/window_lesson.h"
#include "ui_main_window.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QMenu>
#include <QPushButton>
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
    , m_session(new Session(this))
{
    m_ui->setupUi(this);
    m_exports = new ExportMenu(m_ui->menuExport, this, [this] { return viewState(); });
    connect(m_exports, &ExportMenu::saved, this,
            [this](const QString& sentence) { statusBar()->showMessage(sentence); });
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
    scroll->setObjectName(QStringLiteral("settingsPanel"));
    m_steps->grid()->setObjectName(QStringLiteral("headGrid"));
    m_views->addWidget(m_steps);
    m_views->addWidget(m_overview);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(scroll);
    splitter->addWidget(m_views);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(m_ui->centralwidget);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    m_lesson = new WindowLesson(this, {m_session, m_model, m_input, m_steps});
    m_lesson->addToMenu(m_ui->actionOpenLesson, m_ui->actionSaveLesson, m_ui->menuRecent);
    auto* language = new LanguageSwitch(this, m_session, m_lesson, m_ui->menuLanguage);
    connect(m_lesson, &WindowLesson::otherLanguage, language, &LanguageSwitch::rebuildIn);
    m_pictures = new PictureDrop(this, m_model);
    m_experiments = new ExperimentsMenu(m_session, m_ui->menuExperiments, this);
    connect(m_experiments, &ExperimentsMenu::openHeadRequested, this, &MainWindow::openHead);
    connect(m_experiments, &ExperimentsMenu::switchOffRequested, this,
            [this](const engine::Ablation::Head& head) {
                if (m_session->playground())
                    return;
                m_model->setChoice({head.layer, head.block});
                m_model->setHeadSwitchedOff(head, true);
            });
    // Experiments ▸ Predict, then reveal: a question covers a step until it is answered.
    new PredictionPrompt(m_session, m_steps, m_ui->menuExperiments);

    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionPreferences, &QAction::triggered, this, &MainWindow::openPreferences);
    connect(m_ui->actionNext, &QAction::triggered, m_steps, &StepPanel::next);
    connect(m_ui->actionPrevious, &QAction::triggered, m_steps, &StepPanel::previous);
    connect(m_ui->actionFirst, &QAction::triggered, m_steps, &StepPanel::first);
    connect(m_ui->actionLast, &QAction::triggered, m_steps, &StepPanel::last);
    {
        const QSettings store;
        m_ui->actionAnimations->setChecked(loadAnimations(store));
        m_steps->setAnimationsEnabled(m_ui->actionAnimations->isChecked());
    }
    connect(m_ui->actionAnimations, &QAction::toggled, this, [this](bool on) {
        QSettings store;
        saveAnimations(store, on);
        m_steps->setAnimationsEnabled(on);
    });
    new PresentationMode(this, m_ui->actionPresentation, scroll, m_steps);
    connect(m_ui->actionAbout, &QAction::triggered, this, [this] { showAbout(this); });
    connect(m_ui->actionGlossary, &QAction::triggered, this, [this] { openGlossary({}); });
    connect(m_steps, &StepPanel::termChosen, this, &MainWindow::openGlossary);
    connect(m_ui->actionTour, &QAction::triggered, this, &MainWindow::startTour);
    connect(m_ui->actionShortcuts, &QAction::triggered, this,
            [this] { showShortcuts(this, m_ui->menubar); });

    wireSession();
    wireStepPanel();
    connect(m_overview, &ModelOverview::backRequested, m_model, &ModelPanel::leaveOverview);
    connect(m_overview, &ModelOverview::headChosen, this, &MainWindow::openHead);

    QSettings store;
    // A first start has the form's 1400 × 900; a saved geometry may come from a larger screen
    // than today's projector.
    restoreGeometry(loadWindowGeometry(store));
    fitToScreen(*this);
    offerTour();
    m_preferences = loadPreferences(store);
    m_session->setMemoryLimit(m_preferences.memoryLimit);
    m_lesson->reopen();
}

MainWindow::~MainWindow() = default;

ViewState MainWindow::viewState() const
{
    ViewState state;
    state.walkthrough = m_session->walkthrough();
    state.run = m_session->run();
    state.choice = m_session->choice();
    state.step = m_steps->step();
    state.alternative = m_steps->alternative();
    state.batch = m_session->batch();
    state.focusedHead = m_steps->grid()->focusedHead();
    state.overview = state.run && m_views->currentWidget() == m_overview;
    return state;
}

void MainWindow::offerTour()
{
    QSettings store;
    if (loadTourOffered(store))
        return;
    saveTourOffered(store);
    auto* offer = new QPushButton(tr("New here? Take the guided tour"));
    offer->setObjectName(QStringLiteral("tourOffer"));
    offer->setFlat(true);
    statusBar()->addPermanentWidget(offer);
    connect(offer, &QPushButton::clicked, this, [this, offer] {
        offer->deleteLater();
        startTour();
    });
}

void MainWindow::openHead(int layer, engine::Block block, int head)
{
    lesson::BlockChoice c = m_model->choice();
    c.layer = layer;
    c.block = block;
    m_model->leaveOverview();
    m_model->setChoice(c);
    m_steps->setStep(*lesson::lessonStepShowing(engine::AttentionStep::Weights));
    m_steps->grid()->focusHead(head);
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
        m_session->setMemoryLimit(m_preferences.memoryLimit);
    });
    dialog->open();
}

void MainWindow::wireSession()
{
    connect(m_input, &InputPanel::settingsChanged, this, [this] {
        if (m_session->playground())
            m_session->showPlayground(m_input->settings());
    });
    connect(m_model, &ModelPanel::playgroundChosen, this, &MainWindow::showPlayground);
    connect(m_model, &ModelPanel::requestChanged, m_session, &Session::showModel);
    connect(m_model, &ModelPanel::cancelRequested, m_session, &Session::cancelModel);
    connect(m_model, &ModelPanel::choiceChanged, m_session, &Session::chooseBlock);
    connect(m_steps, &StepPanel::batchChanged, m_session, &Session::setBatch);
    connect(m_model, &ModelPanel::overviewToggled, this, [this](bool on) {
        if (on && !m_session->run()) {
            // No run (it failed, or is still loading): the overview would show an earlier one's.
            m_model->leaveOverview();
            return;
        }
        m_views->setCurrentWidget(on ? static_cast<QWidget*>(m_overview) : m_steps);
        if (on)
            m_overview->show(m_session->run(), m_session->choice());
    });

    connect(m_session, &Session::walkthroughChanged, this, &MainWindow::showWalkthrough);
    connect(m_session, &Session::releasingWalkthrough, m_steps, &StepPanel::releaseWalkthrough);
    connect(m_session, &Session::modelShown, this, &MainWindow::showModelResult);
    connect(m_session, &Session::modelKept, this,
            [this](const ModelResult& shown, const QString& notice) {
                m_model->hideProgress();
                m_model->restore(shown);
                if (!notice.isEmpty())
                    m_model->setNotice(notice);
            });
    connect(m_session, &Session::modelReplaced, this,
            [this](const lesson::ModelSource& demo, const QString& notice) {
                m_model->hideProgress();
                m_model->setRequest(demo);
                m_model->setNotice(notice);
            });
    connect(m_session, &Session::sourceUnopened, m_model, &ModelPanel::forgetSource);
    connect(m_session, &Session::progress, m_model, &ModelPanel::showProgress);
    connect(m_session, &Session::playgroundRejected, m_input, &InputPanel::showProblems);
    connect(m_session, &Session::status, this,
            [this](const QString& message) { statusBar()->showMessage(message); });
}

void MainWindow::wireStepPanel()
{
    // A head switched off from its context menu: the playground's module, or the model's head in
    // the block shown; the runners compute the consequence, the views only show it.
    connect(m_steps, &StepPanel::headSwitched, this, [this](int head, bool off) {
        if (m_session->playground()) {
            m_input->setHeadSwitchedOff(head, off);
            return;
        }
        const lesson::BlockChoice c = m_session->choice();
        m_model->setHeadSwitchedOff({c.layer, c.block, head}, off);
    });
    connect(m_steps, &StepPanel::allHeadsSwitchedOn, this, [this] {
        if (m_session->playground())
            m_input->switchAllHeadsOn();
        else
            m_model->switchAllHeadsOn();
    });
    connect(m_steps, &StepPanel::cellClicked, this, [this](int row, int column) {
        // Drawing the custom mask: clicking a score-shaped heatmap blocks or unblocks that cell.
        if (m_steps->lessonStep().scoreShaped() &&
            m_input->settings().mask == lesson::MaskKind::Custom)
            m_input->toggleBlockedCell(row, column);
    });
}

void MainWindow::showWalkthrough(const std::shared_ptr<const lesson::Walkthrough>& walkthrough,
                                 const QString& reason)
{
    if (!walkthrough) {
        m_steps->clear(reason);
        return;
    }
    if (m_session->playground())
        m_input->showProblems({});
    m_steps->setWalkthrough(walkthrough);
    const lesson::LessonStepIndex weights =
        *lesson::lessonStepShowing(engine::AttentionStep::Weights);
    if (walkthrough->weightsOnly() && m_steps->step() != weights)
        m_steps->setStep(weights); // the only step an import has data for
    if (m_session->run() && m_views->currentWidget() == m_overview)
        m_overview->show(m_session->run(), m_session->choice());
}

void MainWindow::showPlayground()
{
    m_model->hideProgress();
    m_input->setVisible(true);
    m_views->setCurrentWidget(m_steps);
    m_session->showPlayground(m_input->settings());
}

void MainWindow::showModelResult(const ModelResult& result)
{
    m_model->hideProgress();
    m_input->setVisible(false);
    m_model->showResult(result);
    if (!result.run)
        m_model->leaveOverview();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_lesson->keepForNextStart();
    event->accept();
}

GlossaryDialog* MainWindow::openGlossary(const QString& key)
{
    if (!m_glossary)
        m_glossary = new GlossaryDialog(this);
    if (!key.isEmpty())
        m_glossary->showTerm(key);
    m_glossary->show();
    m_glossary->raise();
    return m_glossary;
}

GuidedTour* MainWindow::startTour()
{
    if (auto* running = findChild<GuidedTour*>())
        running->close();
    return new GuidedTour(this);
}

} // namespace attnviz::app
