#include "io/file_set.h"

#include "io/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <unistd.h>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

std::string reason(const std::error_code& error)
{
    return error.message();
}

} // namespace

FileSetWriter::FileSetWriter(std::string folder, bool overwrite)
    : m_folder(std::move(folder))
    , m_overwrite(overwrite)
{
    std::error_code error;
    const fs::path target(m_folder);
    if (fs::exists(target, error) && !fs::is_directory(target, error))
        throw FileError("cannot write into " + printable(m_folder) +
                        ": it is a file, not a folder");
    // Create missing folders one by one, remembering them so a failed run can remove them.
    std::vector<fs::path> missing;
    for (fs::path p = target; !p.empty() && !fs::exists(p, error); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path())
            break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (!fs::create_directory(*it, error) && error) {
            rollBack();
            throw FileError("cannot create the folder " + printable(it->string()) + ": " +
                            reason(error));
        }
        m_createdFolders.insert(m_createdFolders.begin(), it->string());
    }
    if (::access(m_folder.c_str(), W_OK | X_OK) != 0) {
        const std::string why = std::strerror(errno);
        rollBack();
        throw FileError("cannot write into " + printable(m_folder) + ": " + why);
    }
    std::random_device seed;
    std::ostringstream name;
    name << ".attnviz-export-" << getpid() << '-' << std::hex << std::mt19937_64(seed())();
    m_staging = (target / name.str()).string();
    if (!fs::create_directory(m_staging, error)) {
        rollBack();
        throw FileError("cannot write into " + printable(m_folder) + ": " + reason(error));
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
    std::error_code error;
    for (const std::string& name : names) {
        const fs::path path = fs::path(m_folder) / name;
        if (fs::exists(path, error))
            throw ExistingFileError(
                printable(path.string()) +
                " already exists; nothing was written (--overwrite replaces existing files).");
    }
}

std::string FileSetWriter::stagingPath(const std::string& name) const
{
    return (fs::path(m_staging) / name).string();
}

void FileSetWriter::staged(const std::string& name)
{
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
    std::error_code error;
    // Replaced files wait in the staging folder until every new file is in place.
    std::vector<std::pair<fs::path, fs::path>> moved; // staged -> final
    std::vector<std::pair<fs::path, fs::path>> replaced; // final -> backup
    const auto undo = [&] {
        for (auto it = moved.rbegin(); it != moved.rend(); ++it)
            fs::rename(it->second, it->first, error);
        for (const auto& [final, backup] : replaced)
            fs::rename(backup, final, error);
    };
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        const fs::path staged = fs::path(m_staging) / m_names[i];
        const fs::path final = fs::path(m_folder) / m_names[i];
        if (fs::is_directory(final, error)) {
            undo();
            rollBack();
            throw FileError("cannot write " + printable(final.string()) + ": it is a directory");
        }
        if (fs::exists(final, error)) {
            const fs::path backup = fs::path(m_staging) / (".replaced-" + std::to_string(i));
            fs::rename(final, backup, error);
            if (error) {
                undo();
                rollBack();
                throw FileError("cannot replace " + printable(final.string()) + ": " +
                                reason(error));
            }
            replaced.emplace_back(final, backup);
        }
        fs::rename(staged, final, error);
        if (error) {
            const std::string why = reason(error);
            undo();
            rollBack();
            throw FileError("cannot write " + printable(final.string()) + ": " + why);
        }
        moved.emplace_back(staged, final);
    }
    m_committed = true;
    fs::remove_all(m_staging, error);
}

void FileSetWriter::rollBack()
{
    std::error_code error;
    if (!m_staging.empty())
        fs::remove_all(m_staging, error);
    // Folders this run created, innermost first; they hold nothing of anyone else's.
    for (const std::string& folder : m_createdFolders)
        fs::remove_all(folder, error);
    m_createdFolders.clear();
    m_committed = true; // nothing left to undo
}

} // namespace attnviz::io
