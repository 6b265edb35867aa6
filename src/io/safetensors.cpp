#include "io/safetensors.h"

#include "io/atomic_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace attnviz::io {

// The format is little-endian; so is every machine AttnViz is built for.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes little-endian");

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeInfo {
    DType dtype;
    std::string_view name;
    std::size_t size;
};
constexpr std::array kDTypes = {
    DTypeInfo{DType::Bool, "BOOL", 1}, DTypeInfo{DType::U8, "U8", 1},
    DTypeInfo{DType::I8, "I8", 1},     DTypeInfo{DType::U16, "U16", 2},
    DTypeInfo{DType::I16, "I16", 2},   DTypeInfo{DType::U32, "U32", 4},
    DTypeInfo{DType::I32, "I32", 4},   DTypeInfo{DType::U64, "U64", 8},
    DTypeInfo{DType::I64, "I64", 8},   DTypeInfo{DType::F16, "F16", 2},
    DTypeInfo{DType::BF16, "BF16", 2}, DTypeInfo{DType::F32, "F32", 4},
    DTypeInfo{DType::F64, "F64", 8},
};

std::string quoted(std::string_view name)
{
    return "'" + std::string(name) + "'";
}

std::vector<std::int64_t> parseShape(const std::string& name, const JsonValue* shape)
{
    if (!shape || !shape->isArray())
        throw FormatError("tensor " + quoted(name) +
                          " has no \"shape\" array in the header; expected e.g. [2, 3]");
    std::vector<std::int64_t> dims;
    for (const JsonValue& d : shape->asArray()) {
        if (!d.isInteger() || d.asInteger() < 0)
            throw FormatError("tensor " + quoted(name) + " has shape entry " + d.describe() +
                              "; expected a non-negative integer");
        dims.push_back(d.asInteger());
    }
    return dims;
}

std::pair<std::uint64_t, std::uint64_t> parseOffsets(const std::string& name,
                                                     const JsonValue* offsets)
{
    if (!offsets || !offsets->isArray() || offsets->asArray().size() != 2)
        throw FormatError("tensor " + quoted(name) +
                          " has no \"data_offsets\" pair in the header; expected [begin, end]");
    const JsonValue& begin = offsets->asArray()[0];
    const JsonValue& end = offsets->asArray()[1];
    if (!begin.isInteger() || !end.isInteger() || begin.asInteger() < 0 ||
        end.asInteger() < begin.asInteger())
        throw FormatError("tensor " + quoted(name) + " has data_offsets [" + begin.describe() +
                          ", " + end.describe() +
                          "]; expected two non-negative integers with begin <= end");
    return {static_cast<std::uint64_t>(begin.asInteger()),
            static_cast<std::uint64_t>(end.asInteger())};
}

} // namespace

std::string_view dtypeName(DType dtype)
{
    for (const DTypeInfo& info : kDTypes)
        if (info.dtype == dtype)
            return info.name;
    return "?";
}

std::optional<DType> dtypeFromName(std::string_view name)
{
    for (const DTypeInfo& info : kDTypes)
        if (info.name == name)
            return info.dtype;
    return std::nullopt;
}

std::size_t dtypeSize(DType dtype)
{
    for (const DTypeInfo& info : kDTypes)
        if (info.dtype == dtype)
            return info.size;
    return 0;
}

std::int64_t TensorEntry::elementCount() const
{
    std::int64_t n = 1;
    for (std::int64_t d : shape)
        n *= d;
    return n;
}

std::string TensorEntry::shapeString() const
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

SafetensorsFile SafetensorsFile::read(const std::string& path)
{
    return parse(readFile(path));
}

SafetensorsFile SafetensorsFile::parse(std::string content)
{
    SafetensorsFile file;
    file.m_content = std::move(content);
    const std::string& bytes = file.m_content;

    if (bytes.size() < 8)
        throw FormatError("the file is truncated: it has " + std::to_string(bytes.size()) +
                          " bytes, fewer than the 8-byte header length that starts a safetensors "
                          "file");
    std::uint64_t headerSize = 0;
    std::memcpy(&headerSize, bytes.data(), 8);
    if (headerSize > bytes.size() - 8)
        throw FormatError("the header length " + std::to_string(headerSize) +
                          " goes beyond the end of the file, which has only " +
                          std::to_string(bytes.size() - 8) + " bytes after the length field");
    if (headerSize > kMaxHeaderBytes)
        throw FormatError("the header length " + std::to_string(headerSize) +
                          " is larger than the 100 MB a safetensors header may have");

    const std::string_view headerText(bytes.data() + 8, headerSize);
    JsonValue header;
    try {
        header = parseJson(headerText);
    } catch (const JsonError& e) {
        throw FormatError(std::string("the header is not valid JSON (") + e.what() +
                          "); expected a JSON object describing the tensors");
    }
    if (!header.isObject())
        throw FormatError("the header is " + header.describe() +
                          ", not a JSON object; expected an object describing the tensors");

    const std::uint64_t dataSize = bytes.size() - 8 - headerSize;
    const char* data = bytes.data() + 8 + headerSize;
    struct Span {
        std::uint64_t begin, end;
        std::size_t index;
    };
    std::vector<Span> spans;

    for (const auto& [name, entry] : header.asObject()) {
        if (name == "__metadata__") {
            if (!entry.isObject())
                throw FormatError("__metadata__ is " + entry.describe() +
                                  "; expected a JSON object of strings");
            file.m_metadata = entry;
            continue;
        }
        if (!entry.isObject())
            throw FormatError("tensor " + quoted(name) + " is described by " + entry.describe() +
                              "; expected an object with dtype, shape and data_offsets");
        const JsonValue* dtypeValue = entry.find("dtype");
        if (!dtypeValue || !dtypeValue->isString())
            throw FormatError("tensor " + quoted(name) +
                              " has no \"dtype\" string in the header; expected e.g. \"F32\"");
        const std::optional<DType> dtype = dtypeFromName(dtypeValue->asString());
        if (!dtype)
            throw FormatError("tensor " + quoted(name) + " has unknown dtype " +
                              dtypeValue->describe() + "; expected a safetensors dtype such as F32");

        TensorEntry tensor;
        tensor.name = name;
        tensor.dtype = *dtype;
        tensor.shape = parseShape(name, entry.find("shape"));
        const auto [begin, end] = parseOffsets(name, entry.find("data_offsets"));

        // Checked in steps so that an absurd shape cannot overflow the byte count.
        std::uint64_t expectedBytes = dtypeSize(*dtype);
        for (std::int64_t d : tensor.shape) {
            const auto ud = static_cast<std::uint64_t>(d);
            if (ud != 0 && expectedBytes > std::numeric_limits<std::uint64_t>::max() / ud)
                throw FormatError("tensor " + quoted(name) + " has shape " +
                                  tensor.shapeString() + ", too large to address");
            expectedBytes *= ud;
        }
        if (end > dataSize)
            throw FormatError("tensor " + quoted(name) + " has data_offsets [" +
                              std::to_string(begin) + ", " + std::to_string(end) +
                              "] outside the data, which has " + std::to_string(dataSize) +
                              " bytes; the file may be truncated");
        if (end - begin != expectedBytes)
            throw FormatError("tensor " + quoted(name) + " has " + std::to_string(end - begin) +
                              " bytes of data; expected " + std::to_string(expectedBytes) +
                              " for " + std::string(dtypeName(*dtype)) + " " +
                              tensor.shapeString());
        tensor.bytes = {data + begin, static_cast<std::size_t>(end - begin)};
        spans.push_back({begin, end, file.m_tensors.size()});
        file.m_tensors.push_back(std::move(tensor));
    }

    // Sorted by start, a tensor overlaps an earlier one exactly when it starts before the
    // furthest end reached so far. Empty tensors own no bytes and cannot overlap.
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.begin < b.begin; });
    const Span* furthest = nullptr;
    for (const Span& span : spans) {
        if (span.end == span.begin)
            continue;
        if (furthest && span.begin < furthest->end)
            throw FormatError("tensors " + quoted(file.m_tensors[furthest->index].name) + " and " +
                              quoted(file.m_tensors[span.index].name) +
                              " overlap in the data; expected each tensor to have its own bytes");
        if (!furthest || span.end > furthest->end)
            furthest = &span;
    }
    return file;
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const
{
    for (const TensorEntry& t : m_tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

void SafetensorsWriter::addF32(std::string name, std::vector<std::int64_t> shape,
                               std::span<const float> values)
{
    std::string bytes(values.size_bytes(), '\0');
    if (!values.empty()) // an empty span's data() may be null, which memcpy must not see
        std::memcpy(bytes.data(), values.data(), values.size_bytes());
    addRaw(std::move(name), DType::F32, std::move(shape), std::move(bytes));
}

void SafetensorsWriter::addRaw(std::string name, DType dtype, std::vector<std::int64_t> shape,
                               std::string bytes)
{
    m_tensors.push_back({std::move(name), dtype, std::move(shape), std::move(bytes)});
}

void SafetensorsWriter::setMetadata(std::string key, std::string value)
{
    m_metadata.emplace_back(std::move(key), std::move(value));
}

std::string SafetensorsWriter::serialize() const
{
    std::string header = "{";
    if (!m_metadata.empty()) {
        header += "\"__metadata__\":{";
        for (std::size_t i = 0; i < m_metadata.size(); ++i)
            header += (i ? "," : "") + jsonQuote(m_metadata[i].first) + ":" +
                      jsonQuote(m_metadata[i].second);
        header += "}";
    }
    std::uint64_t offset = 0;
    for (const Pending& t : m_tensors) {
        if (header.size() > 1)
            header += ",";
        header += jsonQuote(t.name) + ":{\"dtype\":\"" + std::string(dtypeName(t.dtype)) +
                  "\",\"shape\":[";
        for (std::size_t i = 0; i < t.shape.size(); ++i)
            header += (i ? "," : "") + std::to_string(t.shape[i]);
        header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
                  std::to_string(offset + t.bytes.size()) + "]}";
        offset += t.bytes.size();
    }
    header += "}";
    // Readers that map the file expect the data to start 8-byte aligned; the format pads the
    // header with spaces for that.
    header.append((8 - header.size() % 8) % 8, ' ');

    std::string out(8, '\0');
    const std::uint64_t headerSize = header.size();
    std::memcpy(out.data(), &headerSize, 8);
    out.reserve(8 + header.size() + offset);
    out += header;
    for (const Pending& t : m_tensors)
        out += t.bytes;
    return out;
}

void SafetensorsWriter::write(const std::string& path) const
{
    const std::string bytes = serialize();
    writeFileAtomically(path, bytes);
}

} // namespace attnviz::io
