#pragma once

#include "io/safetensors.h"

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnviz::io {

/// The weight files of a model folder: one `model.safetensors`, or the shards a
/// `model.safetensors.index.json` lists, each memory-mapped. Only safetensors are read: a folder
/// with nothing but a pickle checkpoint (`pytorch_model.bin`) is refused, since unpickling can
/// run arbitrary code.
class CheckpointFiles {
public:
    /// Throws ModelError naming the file at fault.
    explicit CheckpointFiles(const std::filesystem::path& folder);

    /// The tensor of that name in whichever file holds it, or null.
    const TensorEntry* find(const std::string& name) const;
    /// Every tensor of every file, in file order.
    std::vector<const TensorEntry*> tensors() const;
    /// After a tensor is converted: its mapped pages leave resident memory (SafetensorsFile::
    /// release), so that opening a model holds the converted weights, not the file beside them.
    void release(const TensorEntry& tensor) const;
    /// A tensor read from its file now into `buffer` (SafetensorsFile::readBytes), rather than
    /// through the mapping: how a streamed layer is read long after opening. The entry returned
    /// is `tensor` with its bytes in `buffer`. Throws ModelError when the file changed since it
    /// was opened.
    TensorEntry readInto(const TensorEntry& tensor, std::vector<char>& buffer) const;
    /// "model.safetensors", or "the shards of model.safetensors.index.json": for messages.
    const std::string& label() const { return m_label; }

private:
    std::vector<SafetensorsFile> m_files;
    std::unordered_map<std::string, const TensorEntry*> m_index;
    std::string m_label;
};

} // namespace attnviz::io
