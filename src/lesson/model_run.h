#pragma once

#include "engine/greedy_decoder.h"
#include "engine/transformer_model.h"
#include "io/checkpoint/model_folder.h"
#include "io/image/decoded_image.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::lesson {

/// What to run a model on, as the app's model panel and the CLI's --text, --target and
/// --generate give it.
struct RunRequest {
    std::string text;
    /// A picture file, for a Vision Transformer (which reads no text); empty otherwise.
    std::string image;
    std::optional<std::string> target; ///< encoder-decoder: teacher forcing instead of decoding
    int generate = 0; ///< decoder-only: tokens to continue the text by
    engine::Ablation ablation; ///< heads switched off
    /// With heads switched off, run the final pass a second time with every head on
    /// (ModelRun::intact), for the before/after view.
    bool compareWithIntact = false;
    /// The user's memory limit in bytes (--max-memory, the app's setting); the machine's
    /// available memory bounds the run anyway (MemoryBudget).
    std::optional<std::uint64_t> maxMemory;
};

/// A model run on text: the forward pass over the whole input and output, and greedy decoding
/// step by step when it ran. Shared by the app and the CLI.
struct ModelRun {
    /// The model, its tokenizer and folder; for imported attentions (imported_run.h) the model
    /// and its layout are null and the tokenizer spells the file's tokens.
    std::shared_ptr<const io::LoadedModel> model;
    engine::ModelConfig config; ///< the model's, or the sizes an import implies
    RunRequest request;
    std::shared_ptr<const engine::ModelTrace> trace;
    /// A Vision Transformer's picture resized and cropped to the model's size, 8-bit RGB (what
    /// attention is drawn over); null for text.
    std::shared_ptr<const io::DecodedImage> picture;
    std::vector<engine::DecodingStep> decoding;
    std::string generated; ///< the decoded text (when decoding ran)
    /// compareWithIntact: the final pass over the same tokens with every head on; null otherwise.
    std::shared_ptr<const ModelRun> intact;

    /// The trace a decoding step refers to (-1: the final one).
    const engine::ModelTrace& traceAt(int decodingStep) const;
    std::shared_ptr<const engine::ModelTrace> sharedTraceAt(int decodingStep) const;
};

/// How much a full trace of this model on `tokens` tokens would take, in bytes (every
/// intermediate of every layer, as CapturePolicy::everything keeps).
std::uint64_t fullTraceBytes(const engine::ModelConfig& config, std::int64_t tokens);

/// Above this, a run keeps the attention weights and the residual stream only, and a layer's
/// other intermediates are recomputed when that layer is opened.
inline constexpr std::uint64_t kFullTraceLimit = 512ull << 20;

/// Opens a model folder (io::loadModel) held to MemoryBudget with `maxMemory`: refused with one
/// sentence, before any weight is converted, when opening would take more.
io::LoadedModel openModel(const std::string& folder, std::optional<std::uint64_t> maxMemory);

/// - encoder-only: `text` through the encoder (BERT's tokenizer adds [CLS] … [SEP]);
/// - encoder-decoder: `text` into the encoder; with `target`, the decoder reads the start token
///   and `target` (teacher forcing); without, it decodes greedily and the trace covers its
///   output;
/// The picture a Vision Transformer's folder shows first: the first PNG or JPEG, by name, in its
/// `examples` folder; empty when there is none (or the model reads text).
std::string examplePicture(const io::LoadedModel& model);

/// - decoder-only: `text` through the decoder, continued greedily by `generate` tokens;
/// - a Vision Transformer: the picture `image` (io::readImage), prepared as its folder's
///   preprocessor_config.json says (io::prepareImage), through the encoder and the classifier;
///   its text is ignored.
/// `policy`, when given, is the final forward pass's capture policy (its observer sees that pass
/// only, not the decoding steps before it); otherwise it is chosen by size (kFullTraceLimit).
/// `progress` is called after every layer of every pass (decoding steps included) with (layers
/// done, layers in the pass); it may throw to cancel the run.
/// Throws engine::InputError with one sentence when the text does not fit the model, or when the
/// run would need more memory than MemoryBudget allows, the model's weights included (checked
/// before computing anything).
ModelRun runModelOnText(std::shared_ptr<const io::LoadedModel> model, const RunRequest& request,
                        std::optional<engine::CapturePolicy> policy = std::nullopt,
                        const std::function<void(int done, int total)>& progress = {});

} // namespace attnviz::lesson
