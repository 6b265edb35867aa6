// attnviz: the desktop app (everything but main lives in attnviz_app, so tests can link it).
#include "app/panels/model_panel.h"
#include "app/panels/step_panel.h"
#include "app/window/guarded_application.h"
#include "app/window/language.h"
#include "app/window/main_window.h"
#include "app/window/settings_store.h"
#include "app/window/walkthrough_runner.h"
#include "app/window/window_lesson.h"
#include "lesson/freed_memory.h"
#include "ui_model_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QSettings>
#include <QTimer>

#include <cstdio>

namespace {

// Saves the window at every step as DIR/NN-<step>.png, and a model's overview, then quits (for
// docs/screenshots).
// What the window shows when nothing could be computed (the sentence saying why).
void saveRefusal(attnviz::app::MainWindow& window, const QString& dir)
{
    QDir().mkpath(dir);
    window.grab().save(QStringLiteral("%1/00-not-computed.png").arg(dir));
    QApplication::quit();
}

void saveEveryStep(attnviz::app::MainWindow& window, const QString& dir)
{
    using namespace attnviz;
    QDir().mkpath(dir);
    int index = 0;
    for (const lesson::LessonStepIndex step :
         lesson::shownLessonSteps(window.stepPanel()->shownTrace())) {
        window.stepPanel()->setStep(step);
        for (int i = 0; i < 5; ++i)
            QApplication::processEvents();
        const std::string_view key = lesson::kLessonSteps[step].key;
        window.grab().save(
            QStringLiteral("%1/%2-%3.png")
                .arg(dir)
                .arg(++index, 2, 10, QLatin1Char('0'))
                .arg(QString::fromLatin1(key.data(), static_cast<qsizetype>(key.size()))));
    }
    if (!window.modelPanel()->playground()) {
        window.modelPanel()->ui()->overview->setChecked(true);
        for (int i = 0; i < 5; ++i)
            QApplication::processEvents();
        window.grab().save(
            QStringLiteral("%1/%2-overview.png").arg(dir).arg(++index, 2, 10, QLatin1Char('0')));
    }
    QApplication::quit();
}

struct Options {
    QCommandLineOption screenshots{
        QStringLiteral("screenshots"),
        QStringLiteral("Save a picture of every step into <dir> and quit."), QStringLiteral("dir")};
    QCommandLineOption model{
        QStringLiteral("model"),
        QStringLiteral("Open a model: a bundled demo's name or a folder (AttnViz's own, or Hugging "
                       "Face GPT-2, BERT, Llama, Mistral, Qwen2, ViT or DeiT)."),
        QStringLiteral("folder")};
    QCommandLineOption text{QStringLiteral("text"), QStringLiteral("The text to run the model on."),
                            QStringLiteral("text")};
    QCommandLineOption image{
        QStringLiteral("image"),
        QStringLiteral("The picture (PNG or JPEG) to run a Vision Transformer on."),
        QStringLiteral("file")};
    QCommandLineOption language{
        QStringLiteral("language"),
        QStringLiteral("The interface's language for this start: en or zh_CN (View > Language "
                       "chooses it for good)."),
        QStringLiteral("code")};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(QStringLiteral("Multi-head attention, step by step."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOption(screenshots);
        parser.addOption(model);
        parser.addOption(text);
        parser.addOption(image);
        parser.addOption(language);
        parser.addPositionalArgument(
            QStringLiteral("lesson"),
            QStringLiteral("A saved lesson (.attnviz) to open, as File > Open lesson does."),
            QStringLiteral("[lesson.attnviz]"));
    }
};

void nameApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("AttnViz"));
    QCoreApplication::setApplicationName(QStringLiteral("AttnViz"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTNVIZ_VERSION));
}

// --help, --version and a mistyped option need no window: they are answered before a
// QApplication, which aborts when there is no display to connect to.
bool needsNoWindow(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == QLatin1String("-h") || arg == QLatin1String("--help") ||
            arg == QLatin1String("--help-all") || arg == QLatin1String("-?") ||
            arg == QLatin1String("-v") || arg == QLatin1String("--version"))
            return true;
    }
    return false;
}

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
        !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
        !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

} // namespace

int main(int argc, char** argv)
{
    attnviz::lesson::keepFreedMemoryForReuse();
    const Options options;
    if (needsNoWindow(argc, argv) || !hasDisplay()) {
        QCoreApplication core(argc, argv);
        nameApplication();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(core); // prints help or version and exits, or names a bad option
        std::fprintf(stderr,
                     "attnviz: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are "
                     "unset); start it in a desktop session, or use attnviz-cli, which needs "
                     "none.\n");
        return 2;
    }
    attnviz::app::GuardedApplication app(argc, argv);
    nameApplication();
    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app);

    // The language chosen in View > Language, else the system's.
    const QSettings store;
    attnviz::app::applyLanguage(
        parser.isSet(options.language)
            ? parser.value(options.language)
            : attnviz::app::loadLanguage(store, attnviz::app::systemLanguage()));

    // On the heap: switching the language replaces the window with one built in the new language.
    auto* first = new attnviz::app::MainWindow;
    first->setAttribute(Qt::WA_DeleteOnClose);
    attnviz::app::MainWindow& window = *first;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.lesson()->openFile(parser.positionalArguments().constFirst());
    if (parser.isSet(options.model)) {
        attnviz::lesson::ModelSource request;
        request.folder = parser.value(options.model).toStdString();
        request.text = parser.value(options.text).toStdString();
        request.image = parser.value(options.image).toStdString();
        window.modelPanel()->setRequest(request);
    }
    if (parser.isSet(options.screenshots)) {
        // Wait until the first computation (playground or model) is on screen.
        const QString dir = parser.value(options.screenshots);
        auto* poll = new QTimer(&window);
        QObject::connect(poll, &QTimer::timeout, &window, [&window, dir, poll] {
            if (!window.session()->idle())
                return;
            poll->stop();
            QTimer::singleShot(300, &window, [&window, dir] {
                if (window.walkthrough())
                    saveEveryStep(window, dir);
                else
                    saveRefusal(window, dir);
            });
        });
        poll->start(100);
    }
    return QApplication::exec();
}
