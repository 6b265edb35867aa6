#include "cli/headless_painting.h"

#include "io/file_error.h"

#include <cstdio>
#include <string>

namespace attnviz::cli {
namespace {

// A message handler is a plain function: the command it speaks for is kept here.
std::string g_command;

void reportCritical(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "attnviz-cli %s: Qt: %s\n", g_command.c_str(),
                     io::printable(message.toStdString()).c_str());
}

} // namespace

HeadlessPainting::HeadlessPainting(const char* command)
{
    g_command = command;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(reportCritical);
    m_application.emplace(m_argc, m_argv);
}

} // namespace attnviz::cli
