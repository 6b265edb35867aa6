#pragma once

#include "lesson/playground_settings.h"
#include "lesson/walkthrough.h"

#include <cstdint>
#include <memory>
#include <optional>
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
    RotaryDim,
    ScoreScale,
    SoftCap,
    Mask,
    ValidLengths,
    SlidingWindow,
    OnlineSoftmaxTile,
};

/// One reason why settings cannot be computed, shown next to its field.
struct SettingsProblem {
    SettingsField field;
    std::string message;
};

/// How much text the playground takes in a field: sentences, characters in a sentence and, when
/// tokens are words, characters in a word. Beyond them a text is not laid out on screen in
/// reasonable time (a QPlainTextEdit spends 9 s on one line of 100,000 letters without a space),
/// nor drawn as a label. A lesson's sentences are read against the same limits.
inline constexpr int kMaxSentences = 100;
inline constexpr int kMaxSentenceLength = 4096;
inline constexpr int kMaxWordLength = 100;

/// How `sentences` go beyond those limits, as a clause ("sentence 2 has 5000 characters, more
/// than the 4096 a sentence may have"); empty when they are within them.
std::string sentencesBeyondLimits(const std::vector<std::string>& sentences, TokenUnit unit);

/// Every problem with the settings; empty when they can be computed.
std::vector<SettingsProblem> checkSettings(const PlaygroundSettings& settings);

/// Bytes computing the settings takes: the embeddings, the weights, the trace of every step and
/// the engine's working memory, twice with heads switched off (the intact run beside it).
/// Settings checkSettings accepts only.
std::uint64_t playgroundBytes(const PlaygroundSettings& settings);

/// The module the settings describe (checkSettings accepts them): heads, sizes, positions,
/// QK-norm, the scale, the cap, the mask policy, the sinks.
engine::AttentionDescription playgroundDescription(const PlaygroundSettings& settings);

/// Tokenises, embeds (a seeded random table: the same token always gets the same vector), draws
/// the weights from the seed, and runs the engine. Call only with settings checkSettings accepts.
/// Throws engine::InputError, before allocating anything, when playgroundBytes is more than
/// MemoryBudget allows with `maxMemory` (the app's memory setting), as a model run would be.
std::shared_ptr<const Walkthrough> computePlayground(const PlaygroundSettings& settings,
                                                     std::optional<std::uint64_t> maxMemory = {});

/// Splits a sentence into tokens: words, or UTF-8 characters with a space shown as ␣.
std::vector<std::string> tokenize(const std::string& sentence, TokenUnit unit);

/// The padding token of a batch whose sentences differ in length.
inline constexpr const char* kPadToken = "<pad>";

} // namespace attnviz::lesson
