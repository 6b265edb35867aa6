#include "cli/progress_bar.h"

#include <cstdio>
#include <string>
#include <unistd.h>

namespace attnviz::cli {

bool stderrIsTerminal()
{
    return ::isatty(STDERR_FILENO);
}

void showProgress(const char* label, int done, int total)
{
    constexpr int width = 30;
    const int filled = total ? done * width / total : width;
    std::fprintf(stderr, "\r%s [%s%s] %d/%d", label,
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), done, total);
    if (done == total)
        std::fprintf(stderr, "\n");
    std::fflush(stderr);
}

} // namespace attnviz::cli
