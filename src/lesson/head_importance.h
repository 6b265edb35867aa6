#pragma once

#include "engine/transformer_model.h"
#include "io/checkpoint/model_folder.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// What a model is judged on when heads are switched off: `heldout.txt` in its folder
/// (docs/model-format.md), or a text given by the user.
struct EvaluationSet {
    std::vector<std::string> inputs;
    /// One per input for an encoder-decoder with known answers ("input<TAB>answer" lines); empty
    /// otherwise.
    std::vector<std::string> answers;
    std::string description; ///< "500 held-out examples (heldout.txt)"
};

/// `folder/heldout.txt` when the folder has one, else nullopt. One example per line; blank lines
/// are skipped; a line with a tab is "input<TAB>answer" (then every line must have one). Throws
/// io::FormatError naming the line for a damaged file, io::FileError when it cannot be read.
std::optional<EvaluationSet> readEvaluationSet(const std::filesystem::path& folder);

/// The first `count` examples of `data` (all of them when it has fewer), described as such.
EvaluationSet firstExamples(EvaluationSet data, std::size_t count);

/// How the result of a run is scored.
enum class ImportanceMetric {
    ExactMatch, ///< encoder-decoder with answers: every answer token (and the end) predicted
    Loss, ///< decoders: mean cross-entropy of the next token, in nats
    OutputChange, ///< encoder-only: |h_off - h| / |h| of the encoder's output, averaged
};

struct HeadImportance {
    engine::Ablation::Head head;
    double value = 0; ///< the metric with this head switched off
    double harm = 0; ///< how much worse than with every head on (≥ 0 is worse, in metric units)
};

/// D2L 10.3's exercise: every attention head of a model switched off alone, each scored on the
/// same data as the intact model.
struct ImportanceReport {
    ImportanceMetric metric = ImportanceMetric::Loss;
    std::string data; ///< what it was measured on
    double baseline = 0; ///< the metric with every head on
    std::vector<HeadImportance> heads; ///< per layer, per attention block, per head
    /// Indices into `heads`, the most harmful switch-off first (ties in model order).
    std::vector<std::size_t> ranking() const;
};

/// "exact-match accuracy", "loss (nats per token)", "relative change of the encoder output".
std::string metricName(ImportanceMetric metric);
/// Whether a higher value of the metric is better.
bool higherIsBetter(ImportanceMetric metric);

/// Runs the intact model and then one forward pass per head and example with that head off
/// (teacher forcing, so an encoder-decoder's exact match is that of greedy decoding without
/// decoding step by step). An encoder-decoder without answers is scored by the loss of its own
/// greedy output. `progress(done, total)` counts passes and may throw to cancel. Throws
/// engine::InputError with one sentence for an empty set, an example the model cannot read, or
/// a pass that would need more memory than MemoryBudget allows with `maxMemory`.
ImportanceReport headImportance(const io::LoadedModel& model, const EvaluationSet& data,
                                const std::function<void(int done, int total)>& progress = {},
                                std::optional<std::uint64_t> maxMemory = {});

} // namespace attnviz::lesson
