#pragma once

#include <QGuiApplication>

#include <optional>

namespace attnviz::cli {

/// The Qt application a command needs to draw images (fonts, painters) without a display: the
/// offscreen platform, and Qt's own chatter (a missing XDG_RUNTIME_DIR and the like) kept off
/// stderr, where it would break the one-sentence contract; only Qt's critical messages pass, as
/// "attnviz-cli COMMAND: Qt: …". One per process, for as long as the command draws.
class HeadlessPainting {
public:
    explicit HeadlessPainting(const char* command);
    HeadlessPainting(const HeadlessPainting&) = delete;
    HeadlessPainting& operator=(const HeadlessPainting&) = delete;

private:
    int m_argc = 1;
    char m_name[12] = "attnviz-cli";
    char* m_argv[2] = {m_name, nullptr};
    std::optional<QGuiApplication> m_application;
};

} // namespace attnviz::cli
