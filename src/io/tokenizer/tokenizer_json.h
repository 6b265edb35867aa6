#pragma once

#include "io/json.h"
#include "io/tokenizer/vocabulary.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::io {

// Reading the parts of a Hugging Face tokenizer.json that AttnViz's tokenizers share. Every
// refusal is a FormatError whose message names tokenizer.json and says what was expected.

/// Parses a tokenizer.json and checks that its "model" object has "type" `modelType` ("BPE",
/// "WordPiece"); returns the whole document.
JsonValue parseTokenizerJson(std::string_view text, std::string_view modelType);

/// The tokenizer.json's model object (present: parseTokenizerJson checked it).
const JsonValue& tokenizerModel(const JsonValue& root);

/// The "type" of a pipeline step such as "normalizer" or "pre_tokenizer"; "none" when the step is
/// null or absent. It is ready to echo: escaped with printable() and cut to kEchoedTypeLength
/// bytes, so a message may name it as it is.
std::string stepType(const JsonValue& root, std::string_view step);

/// The "type" of one step object, ready to echo as stepType's; the step itself described when it
/// has no string type.
std::string stepTypeOf(const JsonValue& step);

/// How much of a type name from the file a message echoes; Hugging Face's longest is 22 bytes.
inline constexpr std::size_t kEchoedTypeLength = 60;

/// Whether `object` has a member `key` that is the boolean `value` (absent or null is neither).
bool flagIs(const JsonValue* object, std::string_view key, bool value);

/// The string member `key` of `object`, or `fallback` when it is absent or null.
std::string stringSetting(const JsonValue& object, std::string_view key, std::string fallback);

/// One of tokenizer.json's "added_tokens", with Hugging Face's options for matching it in text.
struct AddedToken {
    std::string content;
    int id = 0;
    bool special = false;
    bool singleWord = false; ///< only where no word character touches it
    bool lstrip = false; ///< takes the whitespace before it along
    bool rstrip = false; ///< takes the whitespace after it along
    bool normalized = true; ///< matched in the normalised text rather than the raw text
};

/// The "added_tokens" with their options (absent ones as Hugging Face's defaults: normalized is
/// the opposite of special). Ids are checked as readAddedTokens says.
std::vector<AddedToken> readAddedTokenEntries(const JsonValue& root, Vocabulary& vocab);

/// The "added_tokens" as (content, id). Each must be in `vocab` under the same id or, when new,
/// take the next id, which is then appended to `vocab`.
std::vector<std::pair<std::string, int>> readAddedTokens(const JsonValue& root, Vocabulary& vocab);

} // namespace attnviz::io
