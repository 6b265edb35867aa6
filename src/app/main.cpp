// attnviz: the desktop app (everything but main lives in attnviz_app, so tests can link it).
#include "app/main_window.h"
#include "app/model_panel.h"
#include "app/step_panel.h"
#include "app/walkthrough_runner.h"
#include "ui_model_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>

namespace {

// Saves the window at every step as DIR/NN-<step>.png, and a model's overview, then quits (for
// docs/screenshots).
void saveEveryStep(attnviz::app::MainWindow& window, const QString& dir)
{
    using namespace attnviz;
    QDir().mkpath(dir);
    int index = 0;
    for (lesson::LessonStepIndex step = 0; step < lesson::kLessonSteps.size(); ++step) {
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

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnViz"));
    QApplication::setApplicationName(QStringLiteral("AttnViz"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNVIZ_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Multi-head attention, step by step."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption screenshots(
        QStringLiteral("screenshots"),
        QStringLiteral("Save a picture of every step into <dir> and quit."), QStringLiteral("dir"));
    parser.addOption(screenshots);
    const QCommandLineOption model(
        QStringLiteral("model"),
        QStringLiteral("Open a model: a bundled demo's name or a folder (AttnViz's own, Hugging "
                       "Face GPT-2 or BERT)."),
        QStringLiteral("folder"));
    const QCommandLineOption text(QStringLiteral("text"),
                                  QStringLiteral("The text to run the model on."),
                                  QStringLiteral("text"));
    parser.addOption(model);
    parser.addOption(text);
    parser.process(app);

    attnviz::app::MainWindow window;
    window.show();
    if (parser.isSet(model)) {
        attnviz::app::ModelRequest request;
        request.folder = parser.value(model);
        request.text = parser.value(text);
        window.modelPanel()->setRequest(request);
    }
    if (parser.isSet(screenshots)) {
        // Wait until the first computation (playground or model) is on screen.
        const QString dir = parser.value(screenshots);
        auto* poll = new QTimer(&window);
        QObject::connect(poll, &QTimer::timeout, &window, [&window, dir, poll] {
            if (!window.walkthrough() || window.runner()->busy() || window.modelRunner()->busy())
                return;
            poll->stop();
            QTimer::singleShot(300, &window, [&window, dir] { saveEveryStep(window, dir); });
        });
        poll->start(100);
    }
    return QApplication::exec();
}
