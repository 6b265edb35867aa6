#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace attnviz::lesson {

/// What Predict, then reveal can ask before a step is shown. Which step asks which is a column
/// of kLessonSteps; the answer and its numbers are computed in lesson/step_questions.*, the words
/// are in resources/questions/<step>.txt under the kind's name.
enum class QuestionKind {
    StrongestKey, ///< which key query i attends to most in head h (argmax of a weights row)
    HighestScore, ///< which key gets query i's highest score in head h (argmax of a scores row)
    Divisor, ///< what the scores are divided by (measured: a score over its scaled value)
    VisibleKeys, ///< how many keys query i may attend to (finite cells of a masked row)
    Shape, ///< the shape of the step's first tensor, with named axes
    ImportantHead, ///< which head changes the output most when switched off (engine ablation)
    WindowReach, ///< how far back a token hears through L layers of this window: L · (W − 1)
    CacheBytes, ///< the bytes this block's KV cache adds per token (H_kv · (d_k + d_v) · 4)
    FirstTokenShare, ///< which head parks most of its weight on the first token (a sink)
};

struct QuestionKindInfo {
    QuestionKind kind;
    std::string_view name; ///< the prefix of its fields in the question files: "strongest_key"
};

inline constexpr std::array kQuestionKinds = {
    QuestionKindInfo{QuestionKind::StrongestKey, "strongest_key"},
    QuestionKindInfo{QuestionKind::HighestScore, "highest_score"},
    QuestionKindInfo{QuestionKind::Divisor, "divisor"},
    QuestionKindInfo{QuestionKind::VisibleKeys, "visible_keys"},
    QuestionKindInfo{QuestionKind::Shape, "shape"},
    QuestionKindInfo{QuestionKind::ImportantHead, "important_head"},
    QuestionKindInfo{QuestionKind::WindowReach, "window_reach"},
    QuestionKindInfo{QuestionKind::CacheBytes, "cache_bytes"},
    QuestionKindInfo{QuestionKind::FirstTokenShare, "first_token_share"},
};

std::string_view questionKindName(QuestionKind kind);
std::optional<QuestionKind> questionKindFromName(std::string_view name);

} // namespace attnviz::lesson
