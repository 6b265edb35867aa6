#pragma once

// The fuzz targets of tests/fuzz, one per reader of untrusted input. Each takes one input, runs it
// through the reader, and returns normally when the reader accepts it or refuses it with one of
// the exceptions its documentation names. Anything else escapes: another exception (including
// Finding, thrown when an accepted input breaks a promise the reader makes), a crash or a
// sanitizer report. The same functions serve libFuzzer (tests/fuzz/*_fuzz.cpp, clang) and the
// regression test that replays tests/fuzz/regressions/ in the normal build
// (tests/io/fuzz_regressions_test.cpp).
#include <array>
#include <stdexcept>
#include <string_view>

namespace attnviz::fuzz {

/// An accepted input for which a reader broke a documented promise (decode(encode(x)) == x, a
/// JSON document that does not read back the same, ...).
class Finding : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// io::parseJson; what it accepts must read back the same when written out again.
void fuzzJson(std::string_view input);
/// io::SafetensorsFile::parse; every tensor it accepts must lie inside the data it was given.
void fuzzSafetensors(std::string_view input);
/// io::loadAttentionCase on a parsed safetensors file, then the engine's module on the case when
/// that is cheap.
void fuzzCase(std::string_view input);
/// io::loadModel on a folder written from the input (fuzz_support.h: Chunks), then a short run.
void fuzzModelFolder(std::string_view input);
/// The GPT-2 and BERT tokenizers: built from fuzzed files, or the real vocabularies of
/// tests/data/hf on fuzzed text.
void fuzzTokenizers(std::string_view input);
/// io::readAttentionImport on a parsed safetensors file.
void fuzzImport(std::string_view input);
/// lesson::parseLessonFile; what it accepts must read back the same when written out again.
void fuzzLesson(std::string_view input);
/// io::decodeImage within a memory budget, then the picture prepared for a small ViT.
void fuzzPictures(std::string_view input);

struct Target {
    std::string_view name; ///< as in build/fuzz/fuzz_<name> and tests/fuzz/regressions/<name>/
    void (*run)(std::string_view);
};

inline constexpr std::array kTargets = {
    Target{"json", fuzzJson},
    Target{"safetensors", fuzzSafetensors},
    Target{"case", fuzzCase},
    Target{"model_folder", fuzzModelFolder},
    Target{"tokenizers", fuzzTokenizers},
    Target{"import", fuzzImport},
    Target{"lesson", fuzzLesson},
    Target{"pictures", fuzzPictures},
};

} // namespace attnviz::fuzz
