#pragma once

#include "io/json.h"

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
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
    /// Reads and parses `path`; throws FileError or FormatError.
    static SafetensorsFile read(const std::string& path);
    /// Parses bytes already in memory; throws FormatError.
    static SafetensorsFile parse(std::string content);

    const std::vector<TensorEntry>& tensors() const { return m_tensors; }
    const TensorEntry* find(std::string_view name) const;
    /// The `__metadata__` object (empty when the file has none).
    const JsonValue& metadata() const { return m_metadata; }

private:
    std::string m_content;
    std::vector<TensorEntry> m_tensors;
    JsonValue m_metadata{JsonValue::Object{}};
};

/// Collects tensors and metadata and writes them as one safetensors file, atomically.
class SafetensorsWriter {
public:
    void addF32(std::string name, std::vector<std::int64_t> shape, std::span<const float> values);
    /// Any dtype, from little-endian bytes (`bytes.size()` must match dtype and shape).
    void addRaw(std::string name, DType dtype, std::vector<std::int64_t> shape, std::string bytes);
    void setMetadata(std::string key, std::string value);
    /// The complete file as bytes.
    std::string serialize() const;
    /// Throws FileError; never leaves a partial file at `path`.
    void write(const std::string& path) const;

private:
    struct Pending {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::string bytes;
    };
    std::vector<Pending> m_tensors;
    std::vector<std::pair<std::string, std::string>> m_metadata;
};

} // namespace attnviz::io
