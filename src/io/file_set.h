#pragma once

#include "io/file_error.h"
#include "io/removed_on_signal.h"

#include <span>
#include <string>
#include <vector>

namespace attnviz::io {

/// A set of files written into one folder all or nothing: every file is first written (and
/// flushed) into a hidden staging folder inside the target, and moved into place by commit().
/// On any failure, or when destroyed uncommitted, what this run made is removed — the staging
/// folder, the files it moved into place while each is still the one it wrote, and the folders
/// it created while they are empty — and files it was replacing are put back. Another process
/// writing the same folder at the same time loses nothing: without `overwrite` no existing name
/// is ever replaced, not even one that appeared a moment ago. SIGINT, SIGTERM and SIGHUP remove
/// the unfinished set too (RemovedOnSignal). Failures are FileError naming the file.
class FileSetWriter {
public:
    /// Creates `folder` (and its parents) when missing; FileError when it cannot, or when the
    /// path is not a folder.
    FileSetWriter(std::string folder, bool overwrite);
    FileSetWriter(const FileSetWriter&) = delete;
    FileSetWriter& operator=(const FileSetWriter&) = delete;
    ~FileSetWriter();

    /// Refuses, before anything is written, names that exist in the folder (unless overwriting):
    /// any entry, a symbolic link to nothing too. Throws ExistingFileError.
    void expect(const std::vector<std::string>& names) const;
    /// Writes one file of the set (a plain file name, no folders).
    void add(const std::string& name, std::span<const char> bytes);
    /// Where to write a file of the set yourself (for writers that take a path); add() it by
    /// calling staged() once written. A name given twice is std::invalid_argument: the second
    /// file would silently have replaced the first.
    std::string stagingPath(const std::string& name) const;
    void staged(const std::string& name);
    /// Moves every file into place; rolls everything back and throws FileError on failure, or
    /// ExistingFileError when a name was taken meanwhile (without `overwrite`).
    void commit();

    const std::string& folder() const { return m_folder; }
    /// The final paths of the files added so far.
    std::vector<std::string> paths() const;

private:
    void createFolder();
    void rollBack();

    std::string m_folder;
    std::string m_staging;
    bool m_overwrite;
    bool m_committed = false;
    std::vector<std::string> m_names;
    /// Folders this process made (its mkdir succeeded), outermost first.
    std::vector<std::string> m_createdFolders;
    std::vector<RemovedOnSignal> m_removals; ///< the created folders, then the staging folder
};

/// Why `path` cannot be the folder of a file set although something is there ("a file", "a
/// symbolic link to nothing"), or empty when it is a folder or nothing is there.
std::string whyNotAFolder(const std::string& path);

/// An export refused because a file it would write already exists (the user's choice to make,
/// not a failure of the disk): the CLI reports it as bad input.
class ExistingFileError : public FileError {
public:
    using FileError::FileError;
};

} // namespace attnviz::io
