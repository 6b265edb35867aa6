#pragma once

#include "io/file_error.h"

#include <span>
#include <string>
#include <vector>

namespace attnviz::io {

/// A set of files written into one folder all or nothing: every file is first written (and
/// flushed) into a hidden temporary folder inside the target, and moved into place by commit().
/// On any failure, or when destroyed uncommitted, everything this run wrote is removed — the
/// staged files, files already moved, and folders it created — and files it was replacing are
/// put back. Failures are FileError naming the file.
class FileSetWriter {
public:
    /// Creates `folder` (and its parents) when missing; FileError when it cannot, or when the
    /// path is a file.
    FileSetWriter(std::string folder, bool overwrite);
    FileSetWriter(const FileSetWriter&) = delete;
    FileSetWriter& operator=(const FileSetWriter&) = delete;
    ~FileSetWriter();

    /// Refuses, before anything is written, names that exist in the folder (unless overwriting).
    /// Throws ExistingFileError.
    void expect(const std::vector<std::string>& names) const;
    /// Writes one file of the set (a plain file name, no folders).
    void add(const std::string& name, std::span<const char> bytes);
    /// Where to write a file of the set yourself (for writers that take a path); add() it by
    /// calling staged() once written.
    std::string stagingPath(const std::string& name) const;
    void staged(const std::string& name);
    /// Moves every file into place; rolls everything back and throws FileError on failure.
    void commit();

    const std::string& folder() const { return m_folder; }
    /// The final paths of the files added so far.
    std::vector<std::string> paths() const;

private:
    void rollBack();

    std::string m_folder;
    std::string m_staging;
    bool m_overwrite;
    bool m_committed = false;
    std::vector<std::string> m_names;
    std::vector<std::string> m_createdFolders; ///< outermost last
};

/// An export refused because a file it would write already exists (the user's choice to make,
/// not a failure of the disk): the CLI reports it as bad input.
class ExistingFileError : public FileError {
public:
    using FileError::FileError;
};

} // namespace attnviz::io
