#include "io/file_set.h"

#include "io/atomic_file.h"
#include "io/temporary_names.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

std::string systemReason()
{
    return std::strerror(errno);
}

std::string existsMessage(const std::string& path)
{
    return printable(path) +
        " already exists; nothing was written (--overwrite replaces existing files).";
}

// rename() that fails with EEXIST where `to` exists — any entry, a symbolic link to nothing too
// — instead of replacing it, in one step: a check before a plain rename would race with another
// process writing the same name.
bool renameWithoutReplacing(const std::string& from, const std::string& to)
{
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS)
        return false;
    // A file system without RENAME_NOREPLACE: link() refuses an existing name just as atomically.
    if (::link(from.c_str(), to.c_str()) != 0)
        return false;
    ::unlink(from.c_str());
    return true;
}

// The folder a path names, without a trailing separator ("out/" is "out"), so that each
// missing folder is created once.
fs::path withoutTrailingSeparator(fs::path path)
{
    while (!path.has_filename() && path.has_relative_path())
        path = path.parent_path();
    return path;
}

void requireFolder(const fs::path& path)
{
    if (const std::string why = whyNotAFolder(path.string()); !why.empty())
        throw FileError("cannot write into " + printable(path.string()) + ": it is " + why +
                        ", not a folder");
}

// The renames of one commit, so that a failure part-way can take them back.
class Moves {
public:
    /// Moves a staged file to `path`. With a `backup` name, whatever is at `path` is moved
    /// there first (the set replaces it); without, an existing entry is ExistingFileError.
    void place(const std::string& staged, const std::string& path,
               const std::optional<std::string>& backup)
    {
        struct stat written { };
        if (::lstat(staged.c_str(), &written) != 0)
            throw FileError("cannot write " + printable(path) + ": " + systemReason());
        if (backup) {
            moveAside(path, *backup);
            if (::rename(staged.c_str(), path.c_str()) != 0)
                throw FileError("cannot write " + printable(path) + ": " + systemReason());
        } else if (!renameWithoutReplacing(staged, path)) {
            if (errno == EEXIST)
                throw ExistingFileError(existsMessage(path));
            throw FileError("cannot write " + printable(path) + ": " + systemReason());
        }
        m_placed.push_back({path, written.st_dev, written.st_ino});
    }

    /// Takes back each placed file, newest first, only while it is still the one this run
    /// wrote (the same inode): one another process has put there since is theirs. A replaced
    /// file returns unless its name has been taken meanwhile.
    void undo() const
    {
        for (auto it = m_placed.rbegin(); it != m_placed.rend(); ++it) {
            struct stat now { };
            if (::lstat(it->path.c_str(), &now) == 0 && now.st_dev == it->device &&
                now.st_ino == it->inode)
                ::unlink(it->path.c_str());
        }
        for (const auto& [path, backup] : m_replaced)
            renameWithoutReplacing(backup, path);
    }

private:
    struct Placed {
        std::string path;
        dev_t device;
        ino_t inode;
    };

    // A replaced file waits in the staging folder until every new file is in place.
    void moveAside(const std::string& path, const std::string& backup)
    {
        struct stat existing { };
        if (::lstat(path.c_str(), &existing) != 0)
            return;
        if (S_ISDIR(existing.st_mode))
            throw FileError("cannot write " + printable(path) + ": it is a directory");
        if (::rename(path.c_str(), backup.c_str()) != 0)
            throw FileError("cannot replace " + printable(path) + ": " + systemReason());
        m_replaced.emplace_back(path, backup);
    }

    std::vector<Placed> m_placed;
    std::vector<std::pair<std::string, std::string>> m_replaced; ///< (path, backup)
};

} // namespace

std::string whyNotAFolder(const std::string& path)
{
    struct stat entry { };
    if (::lstat(path.c_str(), &entry) != 0)
        return {};
    struct stat target { };
    if (::stat(path.c_str(), &target) != 0)
        return "a symbolic link to nothing";
    return S_ISDIR(target.st_mode) ? std::string() : "a file";
}

FileSetWriter::FileSetWriter(std::string folder, bool overwrite)
    : m_folder(std::move(folder))
    , m_overwrite(overwrite)
{
    try {
        createFolder();
        if (::access(m_folder.c_str(), W_OK | X_OK) != 0)
            throw FileError("cannot write into " + printable(m_folder) + ": " + systemReason());
        sweepStaleTemporaries(m_folder);
        const std::string staging = (fs::path(m_folder) / stagingFolderName()).string();
        if (::mkdir(staging.c_str(), 0700) != 0)
            throw FileError("cannot write into " + printable(m_folder) + ": " + systemReason());
        m_staging = staging;
        m_removals.emplace_back(m_staging, RemovedOnSignal::Kind::StagingFolder);
    } catch (...) {
        rollBack();
        throw;
    }
}

// Creates the missing folders from the outermost, remembering those this process made. One that
// exists by the time mkdir runs (another export into the same new folder got there first) is not
// this process's: it is never removed here.
void FileSetWriter::createFolder()
{
    const fs::path target = withoutTrailingSeparator(m_folder);
    std::vector<fs::path> missing;
    struct stat entry { };
    for (fs::path p = target; p.has_relative_path();
         p = withoutTrailingSeparator(p.parent_path())) {
        if (::lstat(p.c_str(), &entry) == 0) {
            // A file further up makes mkdir say "Not a directory" below.
            if (p == target)
                requireFolder(p);
            break;
        }
        missing.push_back(p);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (::mkdir(it->c_str(), 0777) == 0) {
            m_createdFolders.push_back(it->string());
            m_removals.emplace_back(it->string(), RemovedOnSignal::Kind::CreatedFolder);
            continue;
        }
        if (errno != EEXIST)
            throw FileError("cannot create the folder " + printable(it->string()) + ": " +
                            systemReason());
        requireFolder(*it);
    }
}

FileSetWriter::~FileSetWriter()
{
    if (!m_committed)
        rollBack();
}

void FileSetWriter::expect(const std::vector<std::string>& names) const
{
    if (m_overwrite)
        return;
    struct stat entry { };
    for (const std::string& name : names) {
        const std::string path = (fs::path(m_folder) / name).string();
        if (::lstat(path.c_str(), &entry) == 0)
            throw ExistingFileError(existsMessage(path));
    }
}

std::string FileSetWriter::stagingPath(const std::string& name) const
{
    return (fs::path(m_staging) / name).string();
}

void FileSetWriter::staged(const std::string& name)
{
    if (std::find(m_names.begin(), m_names.end(), name) != m_names.end())
        throw std::invalid_argument("the export names the file " + printable(name) +
                                    " twice; every file of a set needs a name of its own");
    m_names.push_back(name);
}

void FileSetWriter::add(const std::string& name, std::span<const char> bytes)
{
    writeFileAtomically(stagingPath(name), bytes);
    staged(name);
}

std::vector<std::string> FileSetWriter::paths() const
{
    std::vector<std::string> out;
    for (const std::string& name : m_names)
        out.push_back((fs::path(m_folder) / name).string());
    return out;
}

void FileSetWriter::commit()
{
    expect(m_names);
    // Every rename below is completed or undone before a signal may end the process.
    const SignalsDeferred deferred;
    Moves moves;
    try {
        for (std::size_t i = 0; i < m_names.size(); ++i)
            moves.place(stagingPath(m_names[i]), (fs::path(m_folder) / m_names[i]).string(),
                        m_overwrite ? std::optional(stagingPath(".replaced-" + std::to_string(i)))
                                    : std::nullopt);
    } catch (...) {
        moves.undo();
        rollBack();
        throw;
    }
    m_committed = true;
    m_createdFolders.clear(); // they hold the set now
    std::error_code error;
    fs::remove_all(m_staging, error);
    m_removals.clear();
}

void FileSetWriter::rollBack()
{
    std::error_code error;
    // The staging folder is this process's alone (made by its mkdir under a random name).
    if (!m_staging.empty())
        fs::remove_all(m_staging, error);
    // Innermost first, and only while empty: whatever another process wrote there stays.
    for (auto it = m_createdFolders.rbegin(); it != m_createdFolders.rend(); ++it)
        ::rmdir(it->c_str());
    m_createdFolders.clear();
    m_removals.clear();
    m_committed = true; // nothing left to undo
}

} // namespace attnviz::io
