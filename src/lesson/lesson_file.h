#pragma once

#include "engine/transformer_model.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground_settings.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::lesson {

/// A trained model (or imported attentions) and what to run it on: what the model panel asks
/// for, what a model run is computed from and what a lesson file saves, as one value.
struct ModelSource {
    /// A model's folder, a bundled demo's name or an attention import's file; empty: the
    /// random-weights playground.
    std::string folder;
    std::string text; ///< the model's input text
    std::optional<std::string> target; ///< encoder-decoder: teacher forcing instead of decoding
    int generate = 0; ///< decoder-only: tokens to continue the text by
    /// A Vision Transformer's picture file (PNG or JPEG); empty for a model that reads text.
    std::string image;
    engine::Ablation ablation; ///< the model's heads switched off

    bool playground() const { return folder.empty(); }
    bool operator==(const ModelSource&) const = default;
};

/// A saved lesson (an .attnviz file, docs/lesson-files.md): what the window shows, so that a
/// teacher prepares a lesson at home and opens it in class, and the app reopens where the user
/// left off. Plain data; the window fills it from its panels and applies it back.
struct LessonFile {
    /// The newest format version this program reads and writes; a newer file is refused.
    /// 2: the playground's K/V heads, rotary positions and sliding window (written only by a
    /// lesson that uses them, so version 1 programs still open the others).
    static constexpr int kVersion = 3;

    ModelSource model; ///< what runs, unless it names no folder
    PlaygroundSettings playground; ///< used when `model` names no folder

    std::string step = "input"; ///< a lesson step's key (lesson_steps.h)
    BlockChoice choice; ///< the model's layer, block and decoding step
    int alternative = 0; ///< the view of the step (lesson_steps.h)
    int batch = 0; ///< the playground's batch item
    int focusedHead = -1; ///< −1: all heads
    bool sharedColourRange = false; ///< one colour range for all heads, rather than one each
    bool numbersInCells = false;
    std::string language = "en"; ///< the interface's language code

    bool operator==(const LessonFile&) const = default;
};

/// The file's text: indented JSON, members in a fixed order, ending with a newline.
std::string lessonFileText(const LessonFile& lesson);

/// Reads a lesson file's text. Anything wrong — not JSON, not a lesson, a newer version, a member
/// of the wrong type or out of range, an unknown step or block — throws engine::InputError with
/// one sentence naming the member and what was expected (values escaped with io::printable).
/// Members a version-1 file may omit take their defaults; unknown members are ignored, so a
/// later minor addition does not make the file unreadable.
LessonFile parseLessonFile(std::string_view text);

/// The largest lesson file read: a lesson is a few kilobytes; the cap keeps a wrong file (a
/// checkpoint picked by mistake) from being read whole.
inline constexpr std::uint64_t kMaxLessonFileBytes = 4u << 20;

} // namespace attnviz::lesson
