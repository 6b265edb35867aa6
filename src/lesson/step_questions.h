#pragma once

#include "lesson/lesson_steps.h"
#include "lesson/question_kind.h"
#include "lesson/walkthrough.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::lesson {

/// What "Predict, then reveal" can ask before a step is shown. Which kinds a step asks, and in
/// which words, is written in resources/questions/<step key>.txt; the answers come from here.
/// One answer the student can click.
struct QuestionChoice {
    std::string label; ///< "key 5 “mat”", "head 2", "(batch=1, head=4, query=6, d_k=4)"
    int value = -1; ///< the key or head it names (-1 for shapes and divisors)
};

/// A question about one lesson step of one walkthrough, with its answer taken from the trace
/// (or, for ImportantHead, from engine runs with each head switched off).
struct StepQuestion {
    QuestionKind kind = QuestionKind::Shape;
    LessonStepIndex step = 0;
    int batch = 0;
    int head = -1; ///< the head asked about (-1: none)
    int query = -1; ///< the query row asked about (-1: none)
    std::vector<QuestionChoice> choices;
    std::size_t answer = 0; ///< index into choices
    /// The numbers behind the answer, for the texts' placeholders: {query}, {token}, {head},
    /// {key}, {keyToken}, {weight}, {answer}, … (which ones depends on the kind).
    std::vector<std::pair<std::string, std::string>> values;

    const QuestionChoice& correct() const { return choices.at(answer); }
    /// The value of a placeholder ("" if there is none of that name).
    std::string value(std::string_view name) const;
    /// `text` with every `{name}` of `values` replaced.
    std::string fill(std::string_view text) const;
};

/// A question of `kind` about step `step` of `w` for batch item `batch`; `seed` chooses among
/// the heads, rows and orders of choices a question could use (the same seed, the same
/// question). nullopt when the kind does not fit the step or the walkthrough cannot answer it:
/// an import has no shapes or scores, a single head has no other head to compare, a module
/// whose inputs were not kept cannot be run again with a head off.
std::optional<StepQuestion> stepQuestion(const Walkthrough& w, LessonStepIndex step,
                                         QuestionKind kind, int batch, std::uint32_t seed);

/// The first of `kinds`, starting at `seed % kinds.size()` and going round, that can be asked.
std::optional<StepQuestion> stepQuestion(const Walkthrough& w, LessonStepIndex step,
                                         std::span<const QuestionKind> kinds, int batch,
                                         std::uint32_t seed);

/// The relative change |output with `head` off − output| / |output| of batch item `batch`, per
/// head (heads the walkthrough already switched off: -1). Runs the module once per head; empty
/// when it cannot be run again (whyNotRecomputable).
std::vector<double> headSwitchOffChanges(const Walkthrough& w, int batch);

} // namespace attnviz::lesson
