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

/// A child started by startProcess: its stdout and stderr go to files until finishProcess.
struct StartedProcess {
    pid_t pid = -1;
    std::string outPath;
    std::string errPath;
};

/// Starts a program with arguments (no shell), without waiting for it.
inline StartedProcess startProcess(const std::string& program, const std::vector<std::string>& args,
                                   const ProcessLimits& limits = {})
{
    namespace fs = std::filesystem;
    static int started = 0;
    const fs::path dir = fs::temp_directory_path();
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(++started) + "-" +
        std::to_string(std::rand());
    StartedProcess child{-1, (dir / ("attnviz-out-" + tag)).string(),
                         (dir / ("attnviz-err-" + tag)).string()};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, child.outPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, child.errPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&child.pid, program.c_str(), &actions, nullptr, argv.data(), environ) != 0)
        child.pid = -1;
    // glibc's posix_spawn returns once the child has exec'd, before the program's own code can
    // allocate much, so the limit applies to everything the program does.
    if (child.pid > 0 && limits.dataBytes) {
        const rlimit bound{limits.dataBytes, limits.dataBytes};
        ::prlimit(child.pid, RLIMIT_DATA, &bound, nullptr);
    }
    posix_spawn_file_actions_destroy(&actions);
    return child;
}

/// Waits for a started child (killing it after `limits.seconds`, if set) and collects its exit
/// code — 128 + the signal's number when a signal ended it — stdout and stderr.
inline ProcessResult finishProcess(const StartedProcess& child, const ProcessLimits& limits = {})
{
    ProcessResult result;
    if (child.pid > 0) {
        int status = 0;
        rusage usage{};
        if (limits.seconds <= 0) {
            ::wait4(child.pid, &status, 0, &usage);
        } else {
            const auto deadline =
                std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds);
            while (::wait4(child.pid, &status, WNOHANG, &usage) == 0) {
                if (std::chrono::steady_clock::now() > deadline) {
                    ::kill(child.pid, SIGKILL);
                    ::wait4(child.pid, &status, 0, &usage);
                    result.timedOut = true;
                    break;
                }
                ::usleep(5000);
            }
        }
        result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        result.maxResidentKb = usage.ru_maxrss;
    }
    const auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    result.out = slurp(child.outPath);
    result.err = slurp(child.errPath);
    std::filesystem::remove(child.outPath);
    std::filesystem::remove(child.errPath);
    return result;
}

/// Runs a program with arguments (no shell) and collects its exit code, stdout and stderr.
inline ProcessResult runProcess(const std::string& program, const std::vector<std::string>& args,
                                const ProcessLimits& limits = {})
{
    return finishProcess(startProcess(program, args, limits), limits);
}

} // namespace attnviz::test
