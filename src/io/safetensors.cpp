#include "io/safetensors.h"

#include "engine/tensor.h"
#include "io/atomic_file.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
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

// A tensor name as a message quotes it: escaped, on one line.
std::string named(std::string_view name)
{
    return "'" + printable(name) + "'";
}

std::vector<std::int64_t> parseShape(const std::string& name, const JsonValue* shape)
{
    if (!shape || !shape->isArray())
        throw FormatError("tensor " + named(name) +
                          " has no \"shape\" array in the header; expected e.g. [2, 3]");
    std::vector<std::int64_t> dims;
    for (const JsonValue& d : shape->asArray()) {
        if (!d.isInteger() || d.asInteger() < 0)
            throw FormatError("tensor " + named(name) + " has shape entry " + d.describe() +
                              "; expected a non-negative integer");
        dims.push_back(d.asInteger());
    }
    return dims;
}

std::pair<std::uint64_t, std::uint64_t> parseOffsets(const std::string& name,
                                                     const JsonValue* offsets)
{
    if (!offsets || !offsets->isArray() || offsets->asArray().size() != 2)
        throw FormatError("tensor " + named(name) +
                          " has no \"data_offsets\" pair in the header; expected [begin, end]");
    const JsonValue& begin = offsets->asArray()[0];
    const JsonValue& end = offsets->asArray()[1];
    if (!begin.isInteger() || !end.isInteger() || begin.asInteger() < 0 ||
        end.asInteger() < begin.asInteger())
        throw FormatError("tensor " + named(name) + " has data_offsets [" + begin.describe() +
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
    return engine::shapeText(shape);
}

SafetensorsFile SafetensorsFile::read(const std::string& path)
{
    SafetensorsFile file;
    file.m_mapping.emplace(path);
    file.parseBytes(file.m_mapping->bytes(),
                    "the header of '" +
                        printable(std::filesystem::path(path).filename().string(), 60) + "'");
    return file;
}

SafetensorsFile SafetensorsFile::parse(std::string content)
{
    SafetensorsFile file;
    file.m_content = std::move(content);
    file.parseBytes(file.m_content, "a safetensors header");
    return file;
}

void SafetensorsFile::parseBytes(std::span<const char> bytes, const std::string& source)
{
    SafetensorsFile& file = *this;

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

    const std::string_view headerText(bytes.data() + 8, static_cast<std::size_t>(headerSize));
    JsonValue header;
    try {
        header = parseJson(headerText, source);
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
            throw FormatError("tensor " + named(name) + " is described by " + entry.describe() +
                              "; expected an object with dtype, shape and data_offsets");
        const JsonValue* dtypeValue = entry.find("dtype");
        if (!dtypeValue || !dtypeValue->isString())
            throw FormatError("tensor " + named(name) +
                              " has no \"dtype\" string in the header; expected e.g. \"F32\"");
        const std::optional<DType> dtype = dtypeFromName(dtypeValue->asString());
        if (!dtype)
            throw FormatError("tensor " + named(name) + " has unknown dtype " +
                              dtypeValue->describe() +
                              "; expected a safetensors dtype such as F32");

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
                throw FormatError("tensor " + named(name) + " has shape " + tensor.shapeString() +
                                  ", too large to address");
            expectedBytes *= ud;
        }
        if (end > dataSize)
            throw FormatError("tensor " + named(name) + " has data_offsets [" +
                              std::to_string(begin) + ", " + std::to_string(end) +
                              "] outside the data, which has " + std::to_string(dataSize) +
                              " bytes; the file may be truncated");
        if (end - begin != expectedBytes)
            throw FormatError("tensor " + named(name) + " has " + std::to_string(end - begin) +
                              " bytes of data; expected " + std::to_string(expectedBytes) +
                              " for " + std::string(dtypeName(*dtype)) + " " +
                              tensor.shapeString());
        tensor.bytes = {data + begin, static_cast<std::size_t>(end - begin)};
        spans.push_back({begin, end, file.m_tensors.size()});
        file.m_index.emplace(tensor.name, file.m_tensors.size());
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
            throw FormatError("tensors " + named(file.m_tensors[furthest->index].name) + " and " +
                              named(file.m_tensors[span.index].name) +
                              " overlap in the data; expected each tensor to have its own bytes");
        if (!furthest || span.end > furthest->end)
            furthest = &span;
    }
}

void SafetensorsFile::release(const TensorEntry& tensor) const
{
    if (m_mapping)
        m_mapping->release(tensor.bytes);
}

void SafetensorsFile::readBytes(const TensorEntry& tensor, std::vector<char>& out) const
{
    if (out.size() < tensor.bytes.size())
        out.resize(tensor.bytes.size());
    if (m_mapping)
        m_mapping->readAt(tensor.bytes, out.data());
    else if (!tensor.bytes.empty())
        std::memcpy(out.data(), tensor.bytes.data(), tensor.bytes.size());
}

bool SafetensorsFile::holds(const TensorEntry& tensor) const
{
    // std::less_equal orders pointers into different arrays too.
    return !m_tensors.empty() &&
        std::less_equal<const TensorEntry*>{}(&m_tensors.front(), &tensor) &&
        std::less_equal<const TensorEntry*>{}(&tensor, &m_tensors.back());
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const
{
    const auto it = m_index.find(std::string(name));
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

namespace {

// Below this much data a writer keeps everything in memory and writes a compact file at the end;
// above it, the data streams to disk behind room reserved for the header.
constexpr std::size_t kSpillBytes = 64u << 20;

std::string lengthField(std::uint64_t size)
{
    std::string field(8, '\0');
    std::memcpy(field.data(), &size, 8);
    return field;
}

std::string padded(std::string header, std::size_t size)
{
    header.append(size - header.size(), ' ');
    return header;
}

} // namespace

struct SafetensorsWriter::State {
    struct Entry {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::uint64_t begin, end;
    };
    std::vector<Entry> entries;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::uint64_t dataSize = 0;
    std::string path; ///< empty: in memory only
    std::size_t reserved = 0; ///< header room before the data, once spilled to the file
    std::optional<AtomicFile> file; ///< open once the data outgrew kSpillBytes
    std::string memory; ///< the data, until spilled

    void append(std::span<const char> bytes)
    {
        if (!file && !path.empty() && memory.size() + bytes.size() > kSpillBytes) {
            file.emplace(path);
            file->write(std::string(8 + reserved, ' '));
            file->write(memory);
            memory.clear();
            memory.shrink_to_fit();
        }
        if (file)
            file->write(bytes);
        else
            memory.append(bytes.data(), bytes.size());
        dataSize += bytes.size();
    }

    std::string header() const
    {
        nlohmann::ordered_json h = nlohmann::ordered_json::object();
        if (!metadata.empty()) {
            nlohmann::ordered_json meta = nlohmann::ordered_json::object();
            for (const auto& [key, value] : metadata)
                meta[key] = value;
            h["__metadata__"] = std::move(meta);
        }
        for (const Entry& e : entries)
            h[e.name] = {{"dtype", std::string(dtypeName(e.dtype))},
                         {"shape", e.shape},
                         {"data_offsets", {e.begin, e.end}}};
        // Invalid UTF-8 in a name or value is replaced rather than refused: a dump must not fail
        // at its last step because a token was a partial UTF-8 sequence.
        std::string text = h.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        // Readers that map the file expect the data to start 8-byte aligned; the format pads the
        // header with spaces for that.
        const std::size_t aligned = (text.size() + 7) / 8 * 8;
        return padded(std::move(text), aligned);
    }
};

SafetensorsWriter::SafetensorsWriter()
    : m_state(std::make_unique<State>())
{
}

SafetensorsWriter::SafetensorsWriter(SafetensorsWriter&&) noexcept = default;
SafetensorsWriter& SafetensorsWriter::operator=(SafetensorsWriter&&) noexcept = default;
SafetensorsWriter::~SafetensorsWriter() = default;

SafetensorsWriter SafetensorsWriter::toFile(const std::string& path,
                                            std::size_t reservedHeaderBytes)
{
    SafetensorsWriter w;
    w.m_state->path = path;
    w.m_state->reserved = (reservedHeaderBytes + 7) / 8 * 8;
    return w;
}

SafetensorsWriter SafetensorsWriter::inMemory()
{
    return SafetensorsWriter();
}

void SafetensorsWriter::addF32(std::string name, std::vector<std::int64_t> shape,
                               std::span<const float> values)
{
    addRaw(
        std::move(name), DType::F32, std::move(shape),
        std::span<const char>(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
}

void SafetensorsWriter::addRaw(std::string name, DType dtype, std::vector<std::int64_t> shape,
                               std::span<const char> bytes)
{
    State& s = *m_state;
    const std::uint64_t begin = s.dataSize;
    if (!bytes.empty()) // an empty span's data() may be null, which memcpy must not see
        s.append(bytes);
    s.entries.push_back({std::move(name), dtype, std::move(shape), begin, s.dataSize});
}

void SafetensorsWriter::setMetadata(std::string key, std::string value)
{
    m_state->metadata.emplace_back(std::move(key), std::move(value));
}

std::string SafetensorsWriter::finish()
{
    State& s = *m_state;
    const std::string header = s.header();
    if (s.path.empty())
        return lengthField(header.size()) + header + s.memory;
    if (!s.file) {
        AtomicFile file(s.path);
        file.write(lengthField(header.size()) + header);
        file.write(s.memory);
        file.commit();
        return {};
    }
    if (header.size() <= s.reserved) {
        // The format allows trailing spaces in the header; they fill the reserved room.
        s.file->writeAt(0, lengthField(s.reserved) + padded(header, s.reserved));
        s.file->commit();
        return {};
    }
    // The header outgrew its room: write it in front of a copy of the data.
    AtomicFile copy(s.path);
    copy.write(lengthField(header.size()) + header);
    std::vector<char> buffer(1 << 20);
    for (std::uint64_t offset = 8 + s.reserved; offset < 8 + s.reserved + s.dataSize;) {
        const ssize_t n =
            ::pread(s.file->descriptor(), buffer.data(), buffer.size(), static_cast<off_t>(offset));
        if (n <= 0)
            throw FileError("cannot write " + printable(s.path) +
                            ": its temporary data could not be read back");
        copy.write(std::span<const char>(buffer.data(), static_cast<std::size_t>(n)));
        offset += static_cast<std::uint64_t>(n);
    }
    copy.commit();
    return {};
}

} // namespace attnviz::io
