#pragma once

#include "engine/attention_trace.h"
#include "engine/model_config.h"
#include "engine/model_trace.h"
#include "engine/transformer_model.h"
#include "io/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz::lesson {

/// How much memory one computation may take, checked against an estimate before anything is
/// allocated: a small file can ask for a 30000 × 30000 attention matrix, and the answer must be
/// one sentence, not a machine swapping for minutes or `std::bad_alloc`.
struct MemoryBudget {
    std::uint64_t limit = 0;
    std::string source; ///< where the limit comes from, for the message

    /// The smaller of `userLimit` (--max-memory, the app's setting) and 80 % of the memory the
    /// machine has available now (Linux's MemAvailable; a generous fixed guess elsewhere).
    static MemoryBudget forThisMachine(std::optional<std::uint64_t> userLimit = std::nullopt);

    /// Throws engine::InputError, "<what> needs about 13.4 GiB of memory; <source> allows
    /// 2.0 GiB.", when `bytes` exceeds the limit.
    void check(std::uint64_t bytes, std::string_view what) const;
};

/// While it lives, every JSON document read on this thread is held to MemoryBudget with
/// `maxMemory` before it is built: "Reading tokenizer.json needs about 1.2 GiB of memory; …". Set
/// where a model, a case or an import is opened, so that every file read below it is counted.
class BudgetedJsonReading : public io::JsonMemoryScope {
public:
    explicit BudgetedJsonReading(std::optional<std::uint64_t> maxMemory);
};

/// What MemAvailable in /proc/meminfo says, or nullopt where it cannot be read.
std::optional<std::uint64_t> availableMemoryBytes();

/// "1.5 GiB", "640.0 MiB", "12.0 KiB": for messages, in the binary units --max-memory reads.
std::string formatBytes(std::uint64_t bytes);
/// "2G", "1.5GB", "512M", "800MiB", "100000": bytes, or nullopt for anything else (or zero).
std::optional<std::uint64_t> parseByteSize(std::string_view text);

/// Bytes a single attention module's trace keeps (the steps of `keep`), plus its working memory.
std::uint64_t attentionTraceBytes(const engine::AttentionTrace::Sizes& sizes,
                                  const engine::AttentionDescription& description,
                                  std::int64_t outputWidth, const engine::AttentionKeep& keep);

/// Bytes a model's weights take in memory, as 32-bit floats: all of them, or for a model that
/// streams its layers, all but the layers and the largest layer.
std::uint64_t modelWeightBytes(const engine::TransformerModel& model);

/// Bytes a forward pass of `config` over `tokens` tokens keeps under `policy`, plus the working
/// memory of the layer being computed.
std::uint64_t modelRunBytes(const engine::ModelConfig& config, std::int64_t tokens,
                            const engine::CapturePolicy& policy);

} // namespace attnviz::lesson
