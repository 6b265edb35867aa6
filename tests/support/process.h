#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace attnviz::test {

struct ProcessResult {
    int exitCode = -1;
    std::string out;
    std::string err;
    bool timedOut = false; ///< killed after ProcessLimits::seconds
    long maxResidentKb = 0; ///< the child's peak resident memory (getrusage's ru_maxrss)
};

/// Optional bounds on a child process; the defaults (0) bound nothing.
struct ProcessLimits {
    int seconds = 0; ///< wall-clock time, after which the child is killed (SIGKILL)
    /// RLIMIT_DATA of the child: heap and other private writable memory, where a runaway
    /// allocation fails; files mapped read-only (a sparse 100 GB input) do not count.
    std::uint64_t dataBytes = 0;
};

/// Runs a program with arguments (no shell) and collects its exit code, stdout and stderr.
inline ProcessResult runProcess(const std::string& program, const std::vector<std::string>& args,
                                const ProcessLimits& limits = {})
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path();
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(std::rand());
    const std::string outPath = (dir / ("attnviz-out-" + tag)).string();
    const std::string errPath = (dir / ("attnviz-err-" + tag)).string();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    ProcessResult result;
    pid_t pid = 0;
    if (posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ) == 0) {
        // glibc's posix_spawn returns once the child has exec'd, before the program's own code
        // can allocate much, so the limit applies to everything the program does.
        if (limits.dataBytes) {
            const rlimit bound{limits.dataBytes, limits.dataBytes};
            ::prlimit(pid, RLIMIT_DATA, &bound, nullptr);
        }
        int status = 0;
        rusage usage{};
        if (limits.seconds <= 0) {
            ::wait4(pid, &status, 0, &usage);
        } else {
            const auto deadline =
                std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds);
            while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
                if (std::chrono::steady_clock::now() > deadline) {
                    ::kill(pid, SIGKILL);
                    ::wait4(pid, &status, 0, &usage);
                    result.timedOut = true;
                    break;
                }
                ::usleep(5000);
            }
        }
        result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        result.maxResidentKb = usage.ru_maxrss;
    }
    posix_spawn_file_actions_destroy(&actions);
    const auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    result.out = slurp(outPath);
    result.err = slurp(errPath);
    fs::remove(outPath);
    fs::remove(errPath);
    return result;
}

} // namespace attnviz::test
