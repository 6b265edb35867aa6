// Nothing partial outlives a signal (#22): SIGINT, SIGTERM and SIGHUP remove what a writer has
// not finished, the process still ends as the signal says, a commit is never cut in the middle,
// and what a process killed beyond help (SIGKILL) left is swept away by the next writer.
#include "io/atomic_file.h"
#include "io/file_set.h"
#include "io/input_file.h"
#include "io/removed_on_signal.h"
#include "io/temporary_names.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;

using RemovedOnSignal = TempFolderTest;

// The child writes part of a file set into a folder it creates, and the signal arrives.
void interruptedFileSet(const std::string& folder, int signal)
{
    io::removeUnfinishedOutputOnSignals();
    io::FileSetWriter set(folder, false);
    set.add("a.csv", std::string_view("1,2"));
    io::AtomicFile unfinished(set.stagingPath("b.csv"));
    unfinished.write(std::string_view("3,"));
    std::raise(signal);
}

TEST_F(RemovedOnSignal, AnInterruptedFileSetLeavesNothingForEachSignal)
{
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        SCOPED_TRACE(strsignal(signal));
        const std::string folder = path("new/deeper");
        EXPECT_EXIT(interruptedFileSet(folder, signal), ::testing::KilledBySignal(signal), "");
        EXPECT_EQ(entries(m_dir), std::vector<std::string>{}) << "the folders it made remain";
    }
}

TEST_F(RemovedOnSignal, AnInterruptedFileKeepsWhatItWasToReplace)
{
    io::writeFileAtomically(path("trace.safetensors"), std::string_view("old"));
    const auto interrupted = [&] {
        io::removeUnfinishedOutputOnSignals();
        io::AtomicFile file(path("trace.safetensors"));
        file.write(std::string_view("new but unfinished"));
        std::raise(SIGTERM);
    };
    EXPECT_EXIT(interrupted(), ::testing::KilledBySignal(SIGTERM), "");
    EXPECT_EQ(entries(m_dir), std::vector<std::string>{"trace.safetensors"});
    EXPECT_EQ(io::readFile(path("trace.safetensors")), "old");
}

// A folder the set made holds another process's file by the time the signal comes: it stays.
TEST_F(RemovedOnSignal, AFolderItMadeIsRemovedOnlyWhileEmpty)
{
    const auto interrupted = [&] {
        io::removeUnfinishedOutputOnSignals();
        io::FileSetWriter set(path("new"), false);
        std::ofstream(path("new/theirs.txt")) << "keep";
        std::raise(SIGINT);
    };
    EXPECT_EXIT(interrupted(), ::testing::KilledBySignal(SIGINT), "");
    EXPECT_EQ(entries(m_dir / "new"), std::vector<std::string>{"theirs.txt"});
}

// A signal during a deferred stretch (a commit's renames) waits for its end, then acts.
TEST_F(RemovedOnSignal, ADeferredSignalActsWhenTheStretchEnds)
{
    const auto deferred = [&] {
        io::removeUnfinishedOutputOnSignals();
        {
            const io::SignalsDeferred wait;
            std::raise(SIGHUP);
            std::ofstream(path("reached")) << "the stretch went on";
        }
        std::ofstream(path("too far")) << "the signal never acted";
    };
    EXPECT_EXIT(deferred(), ::testing::KilledBySignal(SIGHUP), "");
    EXPECT_EQ(entries(m_dir), std::vector<std::string>{"reached"});
}

TEST_F(RemovedOnSignal, AnIgnoredSignalStaysIgnored)
{
    const auto ignoring = [&] {
        std::signal(SIGHUP, SIG_IGN); // as nohup starts a program
        io::removeUnfinishedOutputOnSignals();
        io::writeFileAtomically(path("a.txt"), std::string_view("x"));
        std::raise(SIGHUP);
        std::exit(0);
    };
    EXPECT_EXIT(ignoring(), ::testing::ExitedWithCode(0), "");
    EXPECT_EQ(entries(m_dir), std::vector<std::string>{"a.txt"});
}

/// A process id that ran and has ended: a child that exits at once, waited for.
pid_t deadProcess()
{
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

// What a process killed by SIGKILL (or a power cut) leaves: its temporary file and its staging
// folder with a staged file in it. The next writer into the folder sweeps both away, and only
// those: a living process's temporaries and names that merely look alike stay.
TEST_F(RemovedOnSignal, TheNextWriterSweepsWhatDeadProcessesLeft)
{
    const std::string dead = std::to_string(deadProcess());
    const std::string alive = std::to_string(::getpid());
    for (const std::string& name :
         {".attnviz-" + dead + "-1f2e.tmp", ".attnviz-" + alive + "-1f2e.tmp",
          ".attnviz-x" + dead + "-1f2e.tmp", ".attnviz-" + dead + "-1f2e.tmp.keep",
          ".attnviz-" + dead + "-XYZ.tmp"})
        std::ofstream(path(name)) << "partial";
    fs::create_directory(path(".attnviz-export-" + dead + "-ab12"));
    std::ofstream(path(".attnviz-export-" + dead + "-ab12/layer0_weights.png")) << "partial";
    fs::create_directory(path(".attnviz-export-" + alive + "-ab12"));

    io::writeFileAtomically(path("result.txt"), std::string_view("done"));

    std::vector<std::string> kept{
        ".attnviz-" + alive + "-1f2e.tmp", ".attnviz-" + dead + "-1f2e.tmp.keep",
        ".attnviz-" + dead + "-XYZ.tmp",   ".attnviz-export-" + alive + "-ab12",
        ".attnviz-x" + dead + "-1f2e.tmp", "result.txt"};
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(entries(m_dir), kept);
}

TEST_F(RemovedOnSignal, AFileSetSweepsItsFolderToo)
{
    const std::string stale = ".attnviz-export-" + std::to_string(deadProcess()) + "-9";
    fs::create_directory(path(stale));
    io::FileSetWriter set(dir(), false);
    set.add("a.csv", std::string_view("1"));
    set.commit();
    EXPECT_EQ(entries(m_dir), std::vector<std::string>{"a.csv"});
}

TEST_F(RemovedOnSignal, TemporaryNamesCarryThisProcessAndNeverRepeat)
{
    const std::string pid = std::to_string(::getpid());
    const std::string file = io::temporaryFileName();
    EXPECT_TRUE(file.starts_with(".attnviz-" + pid + "-") && file.ends_with(".tmp")) << file;
    EXPECT_TRUE(io::stagingFolderName().starts_with(".attnviz-export-" + pid + "-"));
    EXPECT_NE(io::temporaryFileName(), file);
}

} // namespace
} // namespace attnviz::test
