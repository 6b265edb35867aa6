#pragma once

#include "engine/model_config.h"
#include "engine/model_trace.h"
#include "engine/model_weights.h"
#include "engine/multi_head_attention.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace attnviz::engine {

/// What one forward pass reads: token ids for the encoder and for the decoder.
struct ModelInput {
    std::vector<int> source; ///< the encoder's ids (empty for a decoder-only model)
    std::vector<int> sourceTypes; ///< BERT's segment ids per source token; empty = all 0
    std::vector<int> target; ///< the decoder's ids (empty for an encoder-only model)
    /// A Vision Transformer's picture, [channels, height, width], already prepared (resized and
    /// normalised); it takes the place of `source`.
    Tensor pixels;
};

/// Which heads are switched off, per layer and attention block (D2L 10.3's ablation).
struct Ablation {
    struct Head {
        int layer = 0;
        Block block = Block::Self;
        int head = 0;
        bool operator==(const Head&) const = default;
    };
    std::vector<Head> heads;
    std::vector<int> headsOf(int layer, Block block) const;
    bool empty() const { return heads.empty(); }
    bool operator==(const Ablation&) const = default;
};

/// How many numbers layer `layer` of the encoder (`decoder` false) or the decoder holds: the
/// shapes the model holds every layer's weights to, so a streamed model is counted without
/// reading its layers.
std::int64_t layerParameterCount(const ModelConfig& config, bool decoder, int layer);

/// The multiply-adds of one pass of the decoder over `newTokens` tokens that come after
/// `cachedTokens` whose keys and values are cached, up to the logits of the last token: the
/// projections, norms aside, of the new tokens in every layer, each new query against the keys
/// its causal mask (and window) lets it see, the feed-forward blocks, cross-attention over
/// `sourceTokens` encoder outputs (its keys and values projected again each pass, as the engine
/// does), and the output layer for one row. Decoding the token after t tokens costs
/// decoderMultiplyAdds(c, t, 1, S) with a cache and decoderMultiplyAdds(c, 0, t + 1, S) without:
/// the lesson's "work per token", counted from the shapes the engine multiplies.
std::int64_t decoderMultiplyAdds(const ModelConfig& config, std::int64_t cachedTokens,
                                 std::int64_t newTokens, std::int64_t sourceTokens = 0);

/// One layer as the model computes with it: its configuration, the attention modules, which own
/// their projections, and the rest of the layer's weights.
struct ModelLayer {
    LayerConfig config;
    std::vector<MultiHeadAttention> attention; ///< in the order of weights.attention
    LayerWeights weights; ///< norms and feed-forward; the attention matrices are in `attention`
    /// The module of an attention block, or null when the layer has none.
    const MultiHeadAttention* module(Block block) const;
};

/// A whole Transformer (Vaswani et al.; D2L 11.7): embeddings and positions, encoder layers
/// (self-attention, feed-forward), decoder layers (masked self-attention, cross-attention over the
/// encoder's output, feed-forward), residual connections and a norm (LayerNorm or RMSNorm) before
/// or after each sublayer; today's decoder-only models (Llama and its kin) are the same with
/// rotary positions, grouped K/V heads, sliding windows and gated feed-forward blocks. Every
/// activation the capture policy asks for lands in a ModelTrace; attention reuses
/// MultiHeadAttention, so each block's trace is the single-module trace the walkthrough explains.
/// The model knows ids, not text: tokenizers live in io.
class TransformerModel {
public:
    /// Checks the configuration and that the weights have its shapes (InputError otherwise).
    TransformerModel(ModelConfig config, ModelWeights weights);
    // The modules point into the weights; a model stays where it was built (hold it by pointer).
    TransformerModel(const TransformerModel&) = delete;
    TransformerModel& operator=(const TransformerModel&) = delete;

    const ModelConfig& config() const { return m_config; }
    /// Embeddings, final norms and output weights. The layers are not here: see layer().
    const ModelWeights& weights() const { return m_weights; }
    /// Whether layers are read from the checkpoint each time a pass needs them
    /// (ModelWeights::layerSource) rather than held in memory.
    bool streamsLayers() const { return m_weights.layerSource != nullptr; }
    /// Layer `layer` of the encoder (`decoder` false) or the decoder. Streamed, it is loaded
    /// unless it was the last one loaded: opening a block's walkthrough recomputes the layer and
    /// then takes its module, one read. Throws InputError for a layer the model does not have.
    /// `part`: what the caller will use; a streamed layer loaded for its attention alone has
    /// empty feed-forward weights.
    std::shared_ptr<const ModelLayer> layer(bool decoder, int layer,
                                            LayerPart part = LayerPart::Whole) const;

    /// One forward pass over one sequence pair: `source` feeds the encoder, `target` the decoder
    /// (teacher forcing: every target position at once, each seeing only earlier ones). A
    /// decoder-only model takes no source, an encoder-only model no target. Throws InputError for
    /// empty or over-long inputs, unknown ids and ablated heads the model does not have.
    ModelTrace forward(const ModelInput& input, const CapturePolicy& policy = {},
                       const Ablation& ablation = {}) const;
    ModelTrace forward(const std::vector<int>& source, const std::vector<int>& target) const;

    /// One step of decoding with a KV cache: the decoder reads `input.target`, the tokens after
    /// the ones `cache` holds, at positions n, n + 1, …; each masked self-attention block
    /// projects only these tokens and reads every earlier key and value from the cache, which
    /// grows by them (MultiHeadAttention::forwardWithCache). An encoder-decoder model runs its
    /// encoder on `input.source` at the first step and keeps its output in the cache; later
    /// steps take no source. The first step with the whole prompt is the prefill, each later one
    /// a single token. The trace's decoder covers the new tokens (`targetIds`), and its
    /// attention blocks have Nk = every token read. Throws InputError as forward() does, also
    /// when the cache would pass max_length; the cache is unchanged when a step is refused.
    ModelTrace forwardWithCache(const ModelInput& input, DecoderCache& cache,
                                const CapturePolicy& policy = {},
                                const Ablation& ablation = {}) const;

    /// Layer `layer` of the stack that holds `block`, recomputed with every intermediate from the
    /// layer input the trace kept (and the encoder's output, for cross-attention): opening one
    /// layer of a long run costs one layer, not a whole forward pass.
    LayerTrace recomputeLayer(const ModelTrace& trace, Block block, int layer,
                              const Ablation& ablation = {}) const;
    /// The same, stopping after attention block `block`: what a walkthrough of that block needs,
    /// without the feed-forward block that costs most of a wide model's layer.
    LayerTrace recomputeAttention(const ModelTrace& trace, Block block, int layer,
                                  const Ablation& ablation = {}) const;

    /// The attention module of a block (for its weights), sharing the life of its layer; throws
    /// InputError when absent.
    std::shared_ptr<const MultiHeadAttention> attentionModule(int layer, Block block) const;

private:
    struct Stack {
        const StackWeights* weights = nullptr;
        std::vector<std::shared_ptr<const ModelLayer>> layers; ///< empty when streamed
    };
    std::shared_ptr<const ModelLayer> buildLayer(LayerWeights weights, bool decoder,
                                                 int layer) const;
    const Stack& stackFor(bool decoder) const { return decoder ? m_decoder : m_encoder; }
    int layerCount(bool decoder) const;
    LayerTrace recompute(const ModelTrace& trace, Block block, int layer, const Ablation& ablation,
                         std::optional<Block> stopAfter) const;
    void checkWeights() const;
    void checkStackWeights(const StackWeights& stack, bool decoder) const;
    void checkLayerWeights(const LayerWeights& weights, int layer, bool decoder,
                           LayerPart part = LayerPart::Whole) const;
    void checkIds(const std::vector<int>& ids, const char* what) const;
    void checkAblation(const Ablation& ablation) const;
    void embed(const Stack& stack, const std::vector<int>& ids, const std::vector<int>& types,
               StackTrace& trace, std::int64_t firstPosition = 0) const;
    /// Runs a stack's layers over `trace.input`; with `cache`, each masked self-attention block
    /// reads and extends its layer's cache.
    void runStack(const Stack& stack, const Tensor* memory, bool decoder,
                  const CapturePolicy& policy, const Ablation& ablation, StackTrace& trace,
                  DecoderCache* cache = nullptr) const;
    /// Runs one layer on `x` (up to and including block `stopAfter` when given); returns the
    /// layer's output. With `cache`, its masked self-attention reads and extends it.
    Tensor runLayer(const ModelLayer& layer, int index, const Tensor& x, const Tensor* memory,
                    bool decoder, const AttentionKeep& keep, const Ablation& ablation,
                    LayerTrace& out, std::optional<Block> stopAfter = std::nullopt,
                    KeyValueCache* cache = nullptr) const;
    void computeLogits(const Tensor& last, bool allPositions, Tensor& logits) const;
    /// forward() for a Vision Transformer: the picture's patches through the encoder and the
    /// classifier.
    ModelTrace forwardImage(const ModelInput& input, const CapturePolicy& policy,
                            const Ablation& ablation) const;

    ModelConfig m_config;
    ModelWeights m_weights; ///< the layers moved into the stacks' ModelLayers
    Stack m_encoder;
    Stack m_decoder;
    /// Streamed: the last layer loaded (runs and walkthroughs load from several threads).
    mutable std::mutex m_lastLoadedMutex;
    mutable std::shared_ptr<const ModelLayer> m_lastLoaded;
    mutable std::pair<bool, int> m_lastLoadedAt{false, -1};
    mutable LayerPart m_lastLoadedPart = LayerPart::Whole;
};

} // namespace attnviz::engine
