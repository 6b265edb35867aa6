#pragma once

#include "engine/greedy_decoder.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::engine {

/// A model run on text, as the app and the CLI do it.
struct ModelRun {
    std::shared_ptr<const ModelTrace> trace; ///< the forward pass over the whole input and output
    std::vector<DecodingStep> decoding;      ///< greedy decoding, step by step (when it ran)
    std::string generated;                   ///< the decoded text (when decoding ran)
};

/// - encoder-only: `text` through the encoder;
/// - encoder-decoder: `text` into the encoder; with `target`, the decoder reads the start token
///   and `target` (teacher forcing); without, it decodes greedily and the trace covers its
///   output;
/// - decoder-only: `text` through the decoder, continued greedily by `generate` tokens.
/// Throws InputError with one sentence when the text does not fit the model.
ModelRun runModelOnText(const TransformerModel& model, const std::string& text,
                        const std::optional<std::string>& target, int generate = 0);

} // namespace attnviz::engine
