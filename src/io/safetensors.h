#pragma once

#include "io/input_file.h"
#include "io/json.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnviz::io {

/// A file whose content breaks the safetensors format or AttnViz's expectations of it. The message
/// is one sentence naming the tensor or field at fault and what was expected.
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Element types of the safetensors format.
enum class DType { Bool, U8, I8, U16, I16, U32, I32, U64, I64, F16, BF16, F32, F64 };

std::string_view dtypeName(DType dtype);
std::optional<DType> dtypeFromName(std::string_view name);
std::size_t dtypeSize(DType dtype);

/// One tensor of a safetensors file: where its bytes are and how to read them.
struct TensorEntry {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::span<const char> bytes;

    std::int64_t elementCount() const;
    /// "[2, 4, 8]"
    std::string shapeString() const;
};

/// A parsed safetensors file (8-byte little-endian header length, JSON header, data). Parsing
/// checks everything a reader can trust afterwards: the header is a JSON object, every tensor has
/// a known dtype, a non-negative shape and offsets inside the data that match its size, and no two
/// tensors share bytes.
class SafetensorsFile {
public:
    /// Maps `path` into memory and parses it; throws FileError or FormatError.
    static SafetensorsFile read(const std::string& path);
    /// Parses bytes already in memory; throws FormatError.
    static SafetensorsFile parse(std::string content);

    const std::vector<TensorEntry>& tensors() const { return m_tensors; }
    const TensorEntry* find(std::string_view name) const;
    /// The `__metadata__` object (empty when the file has none).
    const JsonValue& metadata() const { return m_metadata; }
    /// Once a tensor of a mapped file is read and converted: its pages leave resident memory
    /// (MappedFile::release). Nothing happens for a file parsed from memory or another file's
    /// tensor.
    void release(const TensorEntry& tensor) const;
    /// A tensor's bytes copied out of the file with read calls, not through the mapping
    /// (MappedFile::readAt: a file changed since it was opened gives FileError, not SIGBUS).
    /// `out` is resized to the tensor's bytes (reusing its allocation when large enough).
    void readBytes(const TensorEntry& tensor, std::vector<char>& out) const;
    /// Whether `tensor` is one of this file's.
    bool holds(const TensorEntry& tensor) const;

private:
    /// `source` names the file in a memory refusal: "the header of 'case.safetensors'".
    void parseBytes(std::span<const char> bytes, const std::string& source);

    std::optional<MappedFile> m_mapping;
    std::string m_content;
    std::vector<TensorEntry> m_tensors;
    std::unordered_map<std::string, std::size_t> m_index;
    JsonValue m_metadata{JsonValue::Object{}};
};

/// Writes a safetensors file one tensor at a time. The data is streamed to its destination as it
/// is added, so a multi-gigabyte trace is never held in memory; the header, which must come
/// first in the file, is written last into room reserved for it (and, if it outgrows that room,
/// the data is copied once behind a larger header). To a file, the write is atomic: nothing
/// appears at the path until finish() succeeds.
class SafetensorsWriter {
public:
    /// A writer into `path`; `reservedHeaderBytes` is a guess at the header's size.
    static SafetensorsWriter toFile(const std::string& path,
                                    std::size_t reservedHeaderBytes = 64 * 1024);
    /// A writer whose finish() returns the file's bytes (tests, small files).
    static SafetensorsWriter inMemory();

    SafetensorsWriter(SafetensorsWriter&&) noexcept;
    SafetensorsWriter& operator=(SafetensorsWriter&&) noexcept;
    ~SafetensorsWriter();

    void addF32(std::string name, std::vector<std::int64_t> shape, std::span<const float> values);
    /// Any dtype, from little-endian bytes (`bytes.size()` must match dtype and shape).
    void addRaw(std::string name, DType dtype, std::vector<std::int64_t> shape,
                std::span<const char> bytes);
    void setMetadata(std::string key, std::string value);
    /// Writes the header. In memory: returns the whole file; to a file: commits it and returns
    /// nothing. Throws FileError when the file cannot be written.
    std::string finish();

private:
    SafetensorsWriter();
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace attnviz::io
