#include "io/removed_on_signal.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace attnviz::io {
namespace {

// More unfinished outputs than any command holds at once (a file set's folders, its staging
// folder and the file being written); a registration beyond is dropped, and the next run's
// sweep of stale temporaries (temporary_names.h) removes what it would have covered.
constexpr int kSlots = 64;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Paths live in static memory, never on the heap: the handler may run on any thread at any
// moment and may read only what nobody frees. `state` is a sequence lock: 0 free, odd while the
// slot is written, else twice the registration's number, which orders removal newest first.
struct Slot {
    std::atomic<std::uint64_t> state{0};
    RemovedOnSignal::Kind kind = RemovedOnSignal::Kind::File;
    char path[PATH_MAX] = {};
};

Slot g_slots[kSlots];
std::atomic<std::uint64_t> g_registrations{0};
std::atomic<int> g_deferring{0};
std::atomic<int> g_pending{0}; ///< the signal that arrived, once one has

// Everything below runs inside a signal handler: system calls and memcpy/strcmp only (POSIX's
// async-signal-safe list), no allocation, no locks.

bool isDotOrDotDot(const char* name)
{
    return std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0;
}

// Removes the entries of a staging folder. Unlinking while reading may skip entries, so the
// folder is read again from its start until a pass removes nothing.
void emptyFolder(const char* path)
{
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    alignas(dirent64) char buffer[4096];
    for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        for (ssize_t n; (n = ::getdents64(fd, buffer, sizeof buffer)) > 0;)
            for (ssize_t at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
                at += entry->d_reclen;
                if (!isDotOrDotDot(entry->d_name) && ::unlinkat(fd, entry->d_name, 0) == 0)
                    removed = true;
            }
    }
    ::close(fd);
}

void removePath(const char* path, RemovedOnSignal::Kind kind)
{
    switch (kind) {
    case RemovedOnSignal::Kind::File:
        ::unlink(path);
        break;
    case RemovedOnSignal::Kind::StagingFolder:
        emptyFolder(path);
        ::rmdir(path);
        break;
    case RemovedOnSignal::Kind::CreatedFolder:
        ::rmdir(path); // fails, as it should, when anything is in it
        break;
    }
}

// Every registered path, newest first: a file before the folder it is in, an inner folder
// before the one holding it.
void removeRegistered()
{
    char path[PATH_MAX];
    for (std::uint64_t below = UINT64_MAX;;) {
        int newest = -1;
        std::uint64_t newestState = 0;
        for (int i = 0; i < kSlots; ++i) {
            const std::uint64_t s = g_slots[i].state.load();
            if (s != 0 && s % 2 == 0 && s < below && s > newestState) {
                newest = i;
                newestState = s;
            }
        }
        if (newest < 0)
            return;
        below = newestState;
        const RemovedOnSignal::Kind kind = g_slots[newest].kind;
        std::memcpy(path, g_slots[newest].path, sizeof path);
        if (g_slots[newest].state.load() == newestState) // not unregistered while copied
            removePath(path, kind);
    }
}

void endAsTheSignalWould(int signal)
{
    removeRegistered();
    struct sigaction fallback { };
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(signal, &fallback, nullptr);
    // Blocked while the handler runs, the signal is delivered (and ends the process with the
    // status a shell expects, e.g. 130 for Ctrl-C) as soon as it returns.
    ::raise(signal);
}

extern "C" void onSignal(int signal)
{
    const int savedErrno = errno;
    // Pending first, then the check: a deferral ending at this very moment sees one or the
    // other, so the signal is never lost.
    g_pending.store(signal);
    if (g_deferring.load() == 0)
        endAsTheSignalWould(signal);
    errno = savedErrno;
}

} // namespace

RemovedOnSignal::RemovedOnSignal(const std::string& path, Kind kind)
{
    if (path.size() >= PATH_MAX)
        return;
    for (int i = 0; i < kSlots; ++i) {
        std::uint64_t free = 0;
        if (!g_slots[i].state.compare_exchange_strong(free, 1))
            continue;
        g_slots[i].kind = kind;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].state.store(2 * (g_registrations.fetch_add(1) + 1));
        m_slot = i;
        return;
    }
}

RemovedOnSignal::RemovedOnSignal(RemovedOnSignal&& other) noexcept
    : m_slot(other.m_slot)
{
    other.m_slot = -1;
}

RemovedOnSignal& RemovedOnSignal::operator=(RemovedOnSignal&& other) noexcept
{
    if (this != &other) {
        if (m_slot >= 0)
            g_slots[m_slot].state.store(0);
        m_slot = other.m_slot;
        other.m_slot = -1;
    }
    return *this;
}

RemovedOnSignal::~RemovedOnSignal()
{
    if (m_slot >= 0)
        g_slots[m_slot].state.store(0);
}

void removeUnfinishedOutputOnSignals()
{
    struct sigaction action { };
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    for (const int s : kSignals)
        sigaddset(&action.sa_mask, s);
    action.sa_flags = SA_RESTART;
    for (const int s : kSignals) {
        struct sigaction previous { };
        ::sigaction(s, nullptr, &previous);
        // A signal the caller chose to ignore (nohup, a background job) stays ignored.
        if (previous.sa_handler != SIG_IGN)
            ::sigaction(s, &action, nullptr);
    }
}

SignalsDeferred::SignalsDeferred()
{
    g_deferring.fetch_add(1);
}

SignalsDeferred::~SignalsDeferred()
{
    if (g_deferring.fetch_sub(1) == 1)
        if (const int signal = g_pending.load())
            endAsTheSignalWould(signal);
}

} // namespace attnviz::io
