#pragma once

// What the fuzz targets share: the multi-file container, the list of documented rejections, and
// the libFuzzer entry point.
#include "fuzz_targets.h"

#include "engine/input_error.h"
#include "io/checkpoint/hf_tokenizer_files.h"
#include "io/checkpoint/model_error.h"
#include "io/file_error.h"
#include "io/input_file.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "io/tokenizer/byte_level_bpe.h"
#include "io/tokenizer/word_piece.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::fuzz {

/// Several files in one fuzz input: a sequence of chunks, each a selector byte, a 4-byte
/// little-endian length and that many bytes. A length past the end of the input takes what is
/// left, so every byte string decodes to something; fewer than 5 bytes at the end are ignored.
/// What a selector means is up to the target (it takes the selector modulo its number of slots).
struct Chunk {
    std::uint8_t selector = 0;
    std::string_view bytes;
};

/// The file of a model folder each model_folder chunk is appended to (selector % size()); seeds
/// are written with the same selectors.
inline constexpr std::array<const char*, 10> kModelFolderFiles = {
    "config.json",
    "vocab.json",
    "model.safetensors",
    "merges.txt",
    "vocab.txt",
    "tokenizer.json",
    "tokenizer_config.json",
    "model.safetensors.index.json",
    "model-00001-of-00002.safetensors",
    "model-00002-of-00002.safetensors",
};

inline std::vector<Chunk> decodeChunks(std::string_view input)
{
    std::vector<Chunk> chunks;
    while (input.size() >= 5) {
        std::uint32_t length = 0;
        std::memcpy(&length, input.data() + 1, 4); // little-endian, like every machine we run on
        const auto selector = static_cast<std::uint8_t>(input[0]);
        input.remove_prefix(5);
        const std::size_t n = std::min<std::size_t>(length, input.size());
        chunks.push_back({selector, input.substr(0, n)});
        input.remove_prefix(n);
    }
    return chunks;
}

inline void appendChunk(std::string& out, std::uint8_t selector, std::string_view bytes)
{
    const auto length = static_cast<std::uint32_t>(bytes.size());
    out += static_cast<char>(selector);
    out.append(reinterpret_cast<const char*>(&length), 4);
    out += bytes;
}

/// Whether rejections are printed (ATTNVIZ_FUZZ_VERBOSE=1): to see why a seed is refused.
inline bool verbose()
{
    static const bool on = [] {
        const char* v = std::getenv("ATTNVIZ_FUZZ_VERBOSE");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

inline void noteRejection(const char* kind, const std::exception& e)
{
    if (verbose())
        std::fprintf(stderr, "rejected (%s): %s\n", kind, e.what());
}

/// Runs `body`, treating the exceptions the readers document as a normal refusal of the input:
/// io::FormatError, io::FileError, io::ModelError, io::JsonError, engine::InputError and
/// std::invalid_argument. Returns whether `body` ran to the end. Anything else propagates.
template <typename Body> bool acceptingDocumentedRejections(Body&& body)
{
    try {
        body();
        return true;
    } catch (const io::FormatError& e) {
        noteRejection("FormatError", e);
    } catch (const io::FileError& e) {
        noteRejection("FileError", e);
    } catch (const io::ModelError& e) {
        noteRejection("ModelError", e);
    } catch (const io::JsonError& e) {
        noteRejection("JsonError", e);
    } catch (const engine::InputError& e) {
        noteRejection("InputError", e);
    } catch (const std::invalid_argument& e) {
        noteRejection("invalid_argument", e);
    }
    return false;
}

/// Throws Finding with `what` unless `condition` holds.
inline void require(bool condition, const std::string& what)
{
    if (!condition)
        throw Finding(what);
}

/// GPT-2's and bert-base-uncased's real tokenizers (tests/data/hf), built once.
inline const io::ByteLevelBpe& realGpt2()
{
    static const io::ByteLevelBpe tokenizer = io::ByteLevelBpe::fromVocabAndMerges(
        io::readFile(ATTNVIZ_TEST_DATA_DIR "/hf/gpt2/vocab.json"),
        io::readFile(ATTNVIZ_TEST_DATA_DIR "/hf/gpt2/merges.txt"));
    return tokenizer;
}

/// The real tokenizer folders of tests/data/tokenizers, loaded once.
inline const io::TokenizerPipeline& realLlama3()
{
    static const std::unique_ptr<io::TokenizerPipeline> tokenizer =
        io::loadTokenizerPipeline(ATTNVIZ_TEST_DATA_DIR "/tokenizers/llama3");
    return *tokenizer;
}

inline const io::TokenizerPipeline& realLlama2()
{
    static const std::unique_ptr<io::TokenizerPipeline> tokenizer =
        io::loadTokenizerPipeline(ATTNVIZ_TEST_DATA_DIR "/tokenizers/llama2");
    return *tokenizer;
}

inline const io::WordPiece& realBert()
{
    static const io::WordPiece tokenizer =
        io::WordPiece::fromVocabTxt(io::readFile(ATTNVIZ_TEST_DATA_DIR "/hf/bert/vocab.txt"));
    return tokenizer;
}

} // namespace attnviz::fuzz

// libFuzzer's entry point for one target, in the harness binaries only (ATTNVIZ_LIBFUZZER is set
// by tests/fuzz/CMakeLists.txt); the regression test calls the target functions directly.
#ifdef ATTNVIZ_LIBFUZZER
#define ATTNVIZ_FUZZ_ENTRY_POINT(function)                                                         \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)              \
    {                                                                                              \
        function(std::string_view(reinterpret_cast<const char*>(data), size));                     \
        return 0;                                                                                  \
    }
#else
#define ATTNVIZ_FUZZ_ENTRY_POINT(function)
#endif
