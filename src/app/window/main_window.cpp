#include "app/window/main_window.h"

#include "app/dialogs/glossary_dialog.h"
#include "app/dialogs/guided_tour.h"
#include "app/dialogs/help_boxes.h"
#include "app/dialogs/preferences_dialog.h"
#include "app/experiments/attention_sinks_dialog.h"
#include "app/experiments/head_types_dialog.h"
#include "app/experiments/importance_dialog.h"
#include "app/experiments/kv_cache_dialog.h"
#include "app/experiments/mistakes_dialog.h"
#include "app/experiments/picture_attention_dialog.h"
#include "app/experiments/rollout_dialog.h"
#include "app/experiments/rotary_dialog.h"
#include "app/experiments/scaling_dialog.h"
#include "app/experiments/window_reach_dialog.h"
#include "app/export/export_menu.h"
#include "app/panels/input_panel.h"
#include "app/panels/model_overview.h"
#include "app/panels/model_panel.h"
#include "app/panels/prediction_prompt.h"
#include "app/panels/step_panel.h"
#include "app/views/head_grid_view.h"
#include "app/window/language.h"
#include "app/window/lesson_files.h"
#include "app/window/presentation_mode.h"
#include "app/window/settings_store.h"
#include "app/window/shown_names.h"
#include "ui_main_window.h"

#include <algorithm>

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

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

    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionPreferences, &QAction::triggered, this, &MainWindow::openPreferences);
    connect(m_ui->actionMistakes, &QAction::triggered, this, &MainWindow::openMistakes);
    connect(m_ui->actionScaling, &QAction::triggered, this, &MainWindow::openScaling);
    connect(m_ui->actionImportance, &QAction::triggered, this, &MainWindow::openImportance);
    connect(m_ui->actionAttentionSinks, &QAction::triggered, this,
            &MainWindow::openAttentionSinks);
    connect(m_ui->actionKvCache, &QAction::triggered, this, &MainWindow::openKvCache);
    connect(m_ui->actionHeadTypes, &QAction::triggered, this, &MainWindow::openHeadTypes);
    connect(m_ui->actionRollout, &QAction::triggered, this, &MainWindow::openRollout);
    connect(m_ui->actionPictureAttention, &QAction::triggered, this,
            &MainWindow::openPictureAttention);
    setAcceptDrops(true);
    connect(m_ui->actionRotary, &QAction::triggered, this, &MainWindow::openRotary);
    connect(m_ui->actionWindowReach, &QAction::triggered, this, &MainWindow::openWindowReach);
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
    m_presentation = new PresentationMode(this, m_ui->actionPresentation, scroll, m_steps);
    connect(m_ui->actionAbout, &QAction::triggered, this, [this] { showAbout(this); });
    connect(m_ui->actionOpenLesson, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a lesson"), QString(),
                                                          tr("AttnViz lessons (*.attnviz)"));
        if (!path.isEmpty())
            openLessonFile(path);
    });
    connect(m_ui->actionSaveLesson, &QAction::triggered, this, [this] {
        QFileDialog dialog(this, tr("Save the lesson"), QString(),
                           tr("AttnViz lessons (*.attnviz)"));
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(QStringLiteral("attnviz"));
        if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty())
            saveLessonFile(dialog.selectedFiles().constFirst());
    });
    connect(m_ui->actionGlossary, &QAction::triggered, this, [this] { openGlossary({}); });
    connect(m_steps, &StepPanel::termChosen, this, &MainWindow::openGlossary);
    connect(m_ui->actionTour, &QAction::triggered, this, &MainWindow::startTour);
    connect(m_ui->actionShortcuts, &QAction::triggered, this,
            [this] { showShortcuts(this, m_ui->menubar); });
    connect(m_ui->menuRecent, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    fillRecentMenu();
    fillLanguageMenu();

    wireSession();
    connect(m_overview, &ModelOverview::backRequested, m_model, &ModelPanel::leaveOverview);
    connect(m_overview, &ModelOverview::headChosen, this, &MainWindow::openHead);
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
    new PredictionPrompt(m_session, m_steps, m_ui->menuExperiments);

    QSettings store;
    // A first start has the form's 1400 × 900; a saved geometry may come from a larger screen
    // than today's projector.
    restoreGeometry(loadWindowGeometry(store));
    fitToScreen();
    if (!loadTourOffered(store)) {
        // A first start offers the tour without interrupting: one line, one button.
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
    m_preferences = loadPreferences(store);
    m_session->setMemoryLimit(m_preferences.memoryLimit);
    // Where the user left off: the whole lesson kept at close; without one (a first start, or
    // the app closed by a crash) the model, step and playground kept key by key.
    if (std::optional<lesson::LessonFile> session = sessionLesson()) {
        session->language = currentLanguage().toStdString(); // the menu's language wins
        m_session->setReopenedModel(session->model.folder);
        openLesson(*session);
        return;
    }
    m_steps->setStep(loadStep(store));
    m_input->setSettings(loadPlaygroundSettings(store));
    const lesson::ModelSource saved = loadModelRequest(store);
    m_session->setReopenedModel(saved.folder);
    m_model->setRequest(saved);
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
                    if (m_session->playground())
                        return;
                    m_model->setChoice({head.layer, head.block});
                    m_model->setHeadSwitchedOff(head, true);
                });
    }
    updateModelDialogs();
    m_importance->show();
    m_importance->raise();
}

void MainWindow::openAttentionSinks()
{
    if (!m_sinks)
        m_sinks = new AttentionSinksDialog(this);
    updateModelDialogs();
    m_sinks->show();
    m_sinks->raise();
}

void MainWindow::openRotary()
{
    if (!m_rotary)
        m_rotary = new RotaryDialog(this);
    showFollowing(m_rotary);
}

void MainWindow::openWindowReach()
{
    if (!m_windowReach)
        m_windowReach = new WindowReachDialog(this);
    updateModelDialogs();
    m_windowReach->show();
    m_windowReach->raise();
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

void MainWindow::openHeadTypes()
{
    if (!m_headTypes) {
        m_headTypes = new HeadTypesDialog(this);
        connect(m_headTypes, &HeadTypesDialog::headChosen, this, &MainWindow::openHead);
    }
    updateModelDialogs();
    m_headTypes->show();
    m_headTypes->raise();
}

void MainWindow::openRollout()
{
    if (!m_rollout)
        m_rollout = new RolloutDialog(this);
    updateModelDialogs();
    m_rollout->show();
    m_rollout->raise();
}

void MainWindow::openPictureAttention()
{
    if (!m_pictureAttention)
        m_pictureAttention = new PictureAttentionDialog(this);
    updateModelDialogs();
    m_pictureAttention->show();
    m_pictureAttention->raise();
}

namespace {

// The local picture file a drag carries, if it carries exactly one.
QString droppedPicture(const QMimeData* data)
{
    if (!data || !data->hasUrls() || data->urls().size() != 1 || !data->urls().front().isLocalFile())
        return {};
    const QString path = data->urls().front().toLocalFile();
    const QString ext = QFileInfo(path).suffix().toLower();
    return ext == QLatin1String("png") || ext == QLatin1String("jpg") || ext == QLatin1String("jpeg")
        ? path
        : QString();
}

} // namespace

bool MainWindow::openPicture(const QString& path)
{
    if (!m_model->setPicture(path)) {
        statusBar()->showMessage(
            tr("%1 is a picture: open a Vision Transformer first (the demo shapes, or a Hugging "
               "Face ViT or DeiT folder).")
                .arg(shownFileName(path)));
        return false;
    }
    statusBar()->showMessage(tr("Running the model on %1").arg(shownFileName(path)));
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!droppedPicture(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = droppedPicture(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    openPicture(path);
}

void MainWindow::openKvCache()
{
    if (!m_kvCache)
        m_kvCache = new KvCacheDialog(this);
    updateModelDialogs();
    m_kvCache->show();
    m_kvCache->raise();
}

// The experiments that read the model shown follow it.
void MainWindow::updateModelDialogs()
{
    const std::shared_ptr<const lesson::ModelRun> run =
        m_session->playground() ? nullptr : m_session->modelResult().run;
    if (m_sinks)
        m_sinks->setRun(run, m_preferences.memoryLimit);
    if (m_kvCache)
        m_kvCache->setRun(run, m_preferences.memoryLimit);
    if (m_windowReach)
        m_windowReach->setRun(run);
    if (m_headTypes)
        m_headTypes->setRun(run);
    if (m_rollout)
        m_rollout->setRun(run);
    if (m_pictureAttention)
        m_pictureAttention->setRun(run);
    if (!m_importance)
        return;
    const ModelResult& shown = m_session->modelResult();
    m_importance->setModel(shown.model, shown.request.text, m_preferences.memoryLimit);
}

void MainWindow::showFollowing(FollowingDialog* dialog)
{
    connect(m_session, &Session::shownChanged, dialog, &FollowingDialog::setWalkthrough,
            Qt::UniqueConnection);
    dialog->setWalkthrough(m_session->walkthrough(), m_session->batch());
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
    connect(m_session, &Session::viewReady, this, &MainWindow::applyView);
    connect(m_session, &Session::status, this,
            [this](const QString& message) { statusBar()->showMessage(message); });
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
    updateModelDialogs();
}

void MainWindow::showModelResult(const ModelResult& result)
{
    m_model->hideProgress();
    m_input->setVisible(false);
    updateModelDialogs();
    m_model->showResult(result);
    if (!result.run)
        m_model->leaveOverview();
}

void MainWindow::saveSession()
{
    QSettings store;
    saveWindowGeometry(store, saveGeometry());
    saveStep(store, m_steps->step());
    savePlaygroundSettings(store, m_input->settings());
    saveModelRequest(store, m_model->request());
    saveSessionLesson(lesson());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSession();
    event->accept();
}

lesson::LessonFile MainWindow::lesson() const
{
    lesson::LessonFile l;
    if (!m_model->playground()) {
        l.model = m_model->request();
        l.choice = m_model->choice();
    }
    l.playground = m_input->settings();
    const std::string_view key = m_steps->lessonStep().key;
    l.step.assign(key.begin(), key.end());
    l.alternative = std::max(0, m_steps->alternative());
    l.batch = std::max(0, m_session->batch());
    l.focusedHead = m_steps->grid()->focusedHead();
    l.sharedColourRange = m_steps->sharedColourRange();
    l.numbersInCells = m_steps->numbersInCells();
    l.language = currentLanguage().toStdString();
    return l;
}

void MainWindow::openLesson(const lesson::LessonFile& lesson)
{
    if (QString::fromStdString(lesson.language) != currentLanguage() &&
        std::any_of(kLanguages.begin(), kLanguages.end(),
                    [&](const Language& l) { return lesson.language == l.code; })) {
        rebuildIn(QString::fromStdString(lesson.language), lesson);
        return;
    }
    m_session->awaitView(lesson);
    m_steps->setSharedColourRange(lesson.sharedColourRange);
    m_steps->setNumbersInCells(lesson.numbersInCells);
    if (const auto step = lesson::lessonStepIndex(lesson.step))
        m_steps->setStep(*step);
    m_input->setSettings(lesson.playground);
    if (lesson.model.playground() && m_model->playground())
        m_session->showPlayground(m_input->settings()); // the same settings emit no change
    else
        m_model->setRequest(lesson.model);
}

void MainWindow::applyView(const lesson::LessonFile& view)
{
    if (!view.model.playground())
        m_model->setChoice(view.choice);
    if (const auto step = lesson::lessonStepIndex(view.step))
        m_steps->setStep(*step);
    m_steps->setBatchIndex(view.batch);
    m_steps->setAlternative(view.alternative);
    if (view.focusedHead >= 0)
        m_steps->grid()->focusHead(view.focusedHead);
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

void MainWindow::warn(const QString& title, const QString& sentence)
{
    statusBar()->showMessage(sentence);
    // Window-modal but not blocking, so tests and a start from the command line go on.
    auto* box = new QMessageBox(QMessageBox::Warning, title, sentence, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

bool MainWindow::openLessonFile(const QString& path)
{
    const LessonRead read = readLessonFile(path);
    if (!read.lesson) {
        warn(tr("Lesson not opened"), read.error);
        return false;
    }
    rememberLesson(path);
    statusBar()->showMessage(tr("Opened the lesson %1").arg(shownFileName(path)));
    openLesson(*read.lesson);
    return true;
}

QString MainWindow::saveLessonFile(const QString& path)
{
    const QString error = writeLessonFile(path, lesson());
    if (!error.isEmpty()) {
        warn(tr("Lesson not saved"), error);
        return error;
    }
    rememberLesson(path);
    statusBar()->showMessage(tr("Saved the lesson as %1").arg(shownFileName(path)));
    return {};
}

void MainWindow::fillRecentMenu()
{
    QMenu* menu = m_ui->menuRecent;
    menu->clear();
    const QStringList paths = recentLessons();
    for (const QString& path : paths) {
        QAction* action = menu->addAction(shownFileName(path));
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { openLessonFile(path); });
    }
    if (paths.isEmpty()) {
        menu->addAction(tr("No lessons yet"))->setEnabled(false);
        return;
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Clear the list")), &QAction::triggered, this,
            [] { forgetRecentLessons(); });
}

void MainWindow::fillLanguageMenu()
{
    auto* group = new QActionGroup(this);
    for (const Language& language : kLanguages) {
        const QString code = QString::fromLatin1(language.code);
        QAction* action = m_ui->menuLanguage->addAction(QString::fromUtf8(language.nativeName));
        action->setObjectName(QStringLiteral("language_") + code);
        action->setCheckable(true);
        action->setChecked(code == currentLanguage());
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] {
            if (code != currentLanguage())
                switchLanguage(code);
        });
    }
}

MainWindow* MainWindow::switchLanguage(const QString& code)
{
    // A lesson still waiting for its run is the one to rebuild around, not the half shown.
    return rebuildIn(code, m_session->pendingView().value_or(lesson()));
}

void MainWindow::fitToScreen()
{
    // Never larger than the screen (a 1280 × 720 projector) nor partly off it, so that nothing
    // starts cut off; again once shown, since the first layout may ask for more than the content
    // later needs.
    const auto fit = [this] {
        const QScreen* screen = QGuiApplication::primaryScreen();
        if (isFullScreen() || isMaximized() || !screen)
            return;
        const QRect room = screen->availableGeometry();
        resize(size().boundedTo(room.size()));
        const QRect frame = frameGeometry();
        move(std::clamp(frame.left(), room.left(),
                        std::max(room.left(), room.right() + 1 - frame.width())),
             std::clamp(frame.top(), room.top(),
                        std::max(room.top(), room.bottom() + 1 - frame.height())));
    };
    fit();
    QTimer::singleShot(0, this, fit);
}

MainWindow* MainWindow::rebuildIn(const QString& code, const lesson::LessonFile& shown)
{
    saveSession();
    saveSessionLesson(shown);
    applyLanguage(code);
    QSettings store;
    saveLanguage(store, currentLanguage());
    auto* next = new MainWindow;
    next->setAttribute(Qt::WA_DeleteOnClose);
    next->restoreGeometry(saveGeometry());
    next->fitToScreen();
    next->show();
    // Closed without saving again: the session is the lesson handed to the new window.
    setAttribute(Qt::WA_DeleteOnClose);
    hide();
    deleteLater();
    return next;
}

} // namespace attnviz::app
