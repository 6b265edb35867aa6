// io::SafetensorsFile::parse, the in-memory form of what read() does to a mapped file. For an
// accepted file, every promise of the class is checked: each tensor's bytes lie inside the data
// and match its dtype and shape, no two tensors share bytes, find() finds each by name.
#include "fuzz_support.h"

#include <algorithm>

namespace attnviz::fuzz {

void fuzzSafetensors(std::string_view input)
{
    const std::string content(input);
    std::optional<io::SafetensorsFile> file;
    if (!acceptingDocumentedRejections([&] { file.emplace(io::SafetensorsFile::parse(content)); }))
        return;
    // parse() keeps its own copy of the bytes; the spans must point into it, after the header.
    std::vector<std::pair<const char*, const char*>> spans;
    for (const io::TensorEntry& t : file->tensors()) {
        require(file->find(t.name) == &t, "find() does not give back tensor " + t.name);
        std::uint64_t bytes = io::dtypeSize(t.dtype);
        for (const std::int64_t d : t.shape) {
            require(d >= 0, "a negative dimension was accepted");
            bytes *= static_cast<std::uint64_t>(d);
        }
        require(bytes == t.bytes.size(),
                "tensor " + t.name + " has " + std::to_string(t.bytes.size()) + " bytes for " +
                    std::to_string(bytes) + " expected");
        require(t.elementCount() * static_cast<std::int64_t>(io::dtypeSize(t.dtype)) ==
                    static_cast<std::int64_t>(t.bytes.size()),
                "elementCount() disagrees with the bytes of tensor " + t.name);
        (void)t.shapeString();
        if (!t.bytes.empty()) {
            // Reading every byte lets AddressSanitizer check the span.
            static volatile unsigned sink = 0;
            unsigned sum = 0;
            for (const char c : t.bytes)
                sum += static_cast<unsigned char>(c);
            sink = sink + sum;
            spans.emplace_back(t.bytes.data(), t.bytes.data() + t.bytes.size());
        }
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
        require(spans[i].first >= spans[i - 1].second, "two tensors share bytes");
    (void)file->metadata().describe();
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzSafetensors)
