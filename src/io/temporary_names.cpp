#include "io/temporary_names.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = ".attnviz-";
constexpr std::string_view kStaging = "export-";
constexpr std::string_view kFileSuffix = ".tmp";

std::string uniqueName(std::string_view kind, std::string_view suffix)
{
    static thread_local std::mt19937_64 random{std::random_device()()};
    std::ostringstream name;
    name << kPrefix << kind << ::getpid() << '-' << std::hex << random() << suffix;
    return name.str();
}

/// A temporary name this program makes, taken apart.
struct TemporaryName {
    pid_t pid;
    bool stagingFolder;
};

bool isLowerHex(std::string_view text)
{
    return !text.empty() && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::optional<TemporaryName> parseName(std::string_view name)
{
    if (!name.starts_with(kPrefix))
        return std::nullopt;
    name.remove_prefix(kPrefix.size());
    const bool staging = name.starts_with(kStaging);
    if (staging)
        name.remove_prefix(kStaging.size());
    else if (name.ends_with(kFileSuffix))
        name.remove_suffix(kFileSuffix.size());
    else
        return std::nullopt;
    const auto dash = name.find('-');
    long pid = 0;
    const std::string_view digits = name.substr(0, dash);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (dash == std::string_view::npos || ec != std::errc() ||
        end != digits.data() + digits.size() || pid <= 0 || pid > INT_MAX ||
        !isLowerHex(name.substr(dash + 1)))
        return std::nullopt;
    return TemporaryName{static_cast<pid_t>(pid), staging};
}

bool processRuns(pid_t pid)
{
    // EPERM: it runs, as another user.
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// Whether `folder` is swept for the first time in this process: a set of a thousand files writes
// a thousand temporary files into one staging folder, which needs reading once.
bool firstSweepOf(const std::string& folder)
{
    static std::mutex mutex;
    static std::set<std::string> swept;
    const std::lock_guard lock(mutex);
    return swept.insert(folder).second;
}

} // namespace

std::string temporaryFileName()
{
    return uniqueName("", kFileSuffix);
}

std::string stagingFolderName()
{
    return uniqueName(kStaging, "");
}

void sweepStaleTemporaries(const std::string& folder)
{
    if (!firstSweepOf(folder))
        return;
    std::error_code error;
    for (auto it = fs::directory_iterator(folder.empty() ? "." : folder, error);
         !error && it != fs::directory_iterator(); it.increment(error)) {
        const fs::path& path = it->path();
        const auto name = parseName(path.filename().string());
        struct stat info { };
        if (!name || processRuns(name->pid) || ::lstat(path.c_str(), &info) != 0 ||
            info.st_uid != ::geteuid())
            continue;
        std::error_code ignored;
        if (name->stagingFolder && S_ISDIR(info.st_mode))
            fs::remove_all(path, ignored);
        else if (!name->stagingFolder && S_ISREG(info.st_mode))
            ::unlink(path.c_str());
    }
}

} // namespace attnviz::io
