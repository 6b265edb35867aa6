#include "io/checkpoint/checkpoint_files.h"

#include "io/checkpoint/model_error.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

SafetensorsFile openWeights(const fs::path& path)
{
    const std::string name = path.filename().string();
    try {
        return SafetensorsFile::read(path.string());
    } catch (const FormatError& e) {
        throw ModelError(printable(name) + " is damaged: " + e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
}

} // namespace

CheckpointFiles::CheckpointFiles(const fs::path& folder)
{
    std::error_code error;
    const fs::path single = folder / "model.safetensors";
    const fs::path index = folder / "model.safetensors.index.json";
    // A model.safetensors that cannot be looked at (a symbolic link loop) is there but
    // unreadable: openWeights says why, rather than calling it missing.
    if (fs::exists(single, error) || error) {
        m_label = "model.safetensors";
        m_files.push_back(openWeights(single));
    } else if (fs::exists(index, error)) {
        m_label = "model.safetensors.index.json";
        JsonValue json;
        try {
            json = parseJson(readFile(index.string(), 64u << 20), m_label);
        } catch (const JsonError& e) {
            throw ModelError(std::string("model.safetensors.index.json is not valid JSON: ") +
                             e.what());
        } catch (const FileError& e) {
            throw ModelError(e.what());
        }
        const JsonValue* map = json.find("weight_map");
        if (!map || !map->isObject())
            throw ModelError("model.safetensors.index.json has no \"weight_map\" object naming "
                             "each tensor's shard.");
        std::set<std::string> shards;
        for (const auto& [name, file] : map->asObject()) {
            if (!file.isString() || file.asString().find('/') != std::string::npos ||
                file.asString().empty() || file.asString().starts_with("."))
                throw ModelError("model.safetensors.index.json maps '" + printable(name) + "' to " +
                                 file.describe() +
                                 "; expected the file name of a shard in the same folder.");
            shards.insert(file.asString());
        }
        for (const std::string& shard : shards)
            m_files.push_back(openWeights(folder / shard));
    } else if (fs::exists(folder / "pytorch_model.bin", error) ||
               fs::exists(folder / "pytorch_model.bin.index.json", error)) {
        throw ModelError("'" + printable(folder.string()) +
                         "' holds only pytorch_model.bin, a pickle checkpoint, which AttnViz never "
                         "opens because "
                         "unpickling can run code; save the model with safe_serialization=True to "
                         "get model.safetensors.");
    } else {
        throw ModelError("'" + printable(folder.string()) +
                         "' has no model.safetensors with the weights.");
    }
    for (const SafetensorsFile& file : m_files)
        for (const TensorEntry& t : file.tensors())
            if (!m_index.emplace(t.name, &t).second)
                throw ModelError("The checkpoint holds tensor '" + printable(t.name) +
                                 "' in two shards.");
}

const TensorEntry* CheckpointFiles::find(const std::string& name) const
{
    const auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : it->second;
}

std::vector<const TensorEntry*> CheckpointFiles::tensors() const
{
    std::vector<const TensorEntry*> all;
    for (const SafetensorsFile& file : m_files)
        for (const TensorEntry& t : file.tensors())
            all.push_back(&t);
    return all;
}

void CheckpointFiles::release(const TensorEntry& tensor) const
{
    for (const SafetensorsFile& file : m_files)
        file.release(tensor);
}

TensorEntry CheckpointFiles::readInto(const TensorEntry& tensor, std::vector<char>& buffer) const
{
    for (const SafetensorsFile& file : m_files)
        if (file.holds(tensor)) {
            try {
                file.readBytes(tensor, buffer);
            } catch (const FileError& e) {
                throw ModelError(e.what());
            }
            TensorEntry copy = tensor;
            copy.bytes = {buffer.data(), tensor.bytes.size()};
            return copy;
        }
    throw ModelError(m_label + " does not hold tensor '" + printable(tensor.name) + "'.");
}

} // namespace attnviz::io
