#pragma once

#include "lesson/playground_settings.h"
#include "lesson/walkthrough.h"

#include <memory>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// The fields of the playground's settings a problem can be attached to.
enum class SettingsField {
    QuerySentences,
    KeyValueSentences,
    ModelWidth,
    Heads,
    QueryKeySize,
    ValueSize,
    OutputWidth,
    KeyValueHeads,
    Positions,
    Mask,
    ValidLengths,
    SlidingWindow,
};

/// One reason why settings cannot be computed, shown next to its field.
struct SettingsProblem {
    SettingsField field;
    std::string message;
};

/// Every problem with the settings; empty when they can be computed.
std::vector<SettingsProblem> checkSettings(const PlaygroundSettings& settings);

/// Tokenises, embeds (a seeded random table: the same token always gets the same vector), draws
/// the weights from the seed, and runs the engine. Call only with settings checkSettings accepts.
std::shared_ptr<const Walkthrough> computePlayground(const PlaygroundSettings& settings);

/// Splits a sentence into tokens: words, or UTF-8 characters with a space shown as ␣.
std::vector<std::string> tokenize(const std::string& sentence, TokenUnit unit);

/// The padding token of a batch whose sentences differ in length.
inline constexpr const char* kPadToken = "<pad>";

} // namespace attnviz::lesson
