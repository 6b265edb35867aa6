#include "io/checkpoint/hf_tokenizer_files.h"

#include "io/checkpoint/model_error.h"
#include "io/input_file.h"
#include "io/json.h"
#include "io/safetensors.h"

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

bool present(const fs::path& path)
{
    std::error_code error;
    return fs::exists(path, error);
}

// Runs a tokenizer constructor, turning its file and format errors into the loader's ModelError.
template <typename Build> auto reading(Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const FormatError& e) {
        throw ModelError(e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
}

std::string contentOf(const fs::path& path)
{
    return readFile(path.string());
}

} // namespace

ByteLevelBpe loadGpt2Tokenizer(const fs::path& folder)
{
    const fs::path vocab = folder / "vocab.json", merges = folder / "merges.txt",
                   json = folder / "tokenizer.json";
    if (present(vocab) || present(merges)) {
        if (!present(vocab) || !present(merges))
            throw ModelError(
                std::string("The GPT-2 folder has ") +
                (present(vocab) ? "vocab.json but no merges.txt" : "merges.txt but no vocab.json") +
                "; its tokenizer needs both (or a tokenizer.json).");
        return reading(
            [&] { return ByteLevelBpe::fromVocabAndMerges(contentOf(vocab), contentOf(merges)); });
    }
    if (present(json))
        return reading([&] { return ByteLevelBpe::fromTokenizerJson(contentOf(json)); });
    throw ModelError("The GPT-2 folder has no tokenizer: AttnViz reads vocab.json with merges.txt, "
                     "or tokenizer.json.");
}

WordPiece loadBertTokenizer(const fs::path& folder)
{
    const fs::path config = folder / "tokenizer_config.json";
    if (present(config)) {
        const JsonValue settings = reading([&] {
            try {
                return parseJson(contentOf(config));
            } catch (const JsonError& e) {
                throw ModelError(std::string("tokenizer_config.json is not valid JSON: ") +
                                 e.what());
            }
        });
        const JsonValue* lower = settings.isObject() ? settings.find("do_lower_case") : nullptr;
        if (lower && lower->isBool() && !lower->asBool())
            throw ModelError("tokenizer_config.json says \"do_lower_case\": false (a cased BERT); "
                             "AttnViz reads the lower-casing (uncased) BERT tokenizer only.");
    }
    const fs::path vocab = folder / "vocab.txt", json = folder / "tokenizer.json";
    if (present(vocab))
        return reading([&] { return WordPiece::fromVocabTxt(contentOf(vocab)); });
    if (present(json))
        return reading([&] { return WordPiece::fromTokenizerJson(contentOf(json)); });
    throw ModelError(
        "The BERT folder has no tokenizer: AttnViz reads vocab.txt, or tokenizer.json.");
}

} // namespace attnviz::io
