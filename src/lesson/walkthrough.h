#pragma once

#include "engine/attention_mask.h"
#include "engine/attention_trace.h"
#include "engine/attention_weights.h"
#include "engine/model_weights.h"
#include "engine/multi_head_attention.h"
#include "engine/tensor.h"
#include "io/image/decoded_image.h"
#include "io/tokenizer/tokenizer.h"
#include "lesson/playground_settings.h"

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace attnviz::lesson {

/// A walkthrough of the random-weights playground: the module was drawn from the settings, and X
/// is a seeded token embedding plus the positional encoding.
struct PlaygroundSource {
    PlaygroundSettings settings;
    engine::Tensor embedding; ///< [batch, query, feature] token embeddings of the queries
    engine::Tensor positional; ///< [position, feature] (zeros when switched off)
};

/// A walkthrough of one attention block of a model run: X is what the block read (the layer
/// below, normalised first with pre-norm), the weights are the block's own.
struct ModelBlockSource {
    std::string model; ///< the model's name
    int layer = 0;
    engine::Block block = engine::Block::Self;
    int decodingStep = -1; ///< -1: the run's final trace; k: greedy decoding step k
    std::string queryInputOrigin; ///< "X = LayerNorm(the output of decoder layer 0)"
    std::string keyValueInputOrigin; ///< "X_kv = the encoder's output" (cross-attention)
    /// A Vision Transformer's picture as it read it (its tokens are patches of it, `patchSize`
    /// pixels square); null for a model that reads text.
    std::shared_ptr<const io::DecodedImage> picture;
    int patchSize = 0;
};

/// A walkthrough of an `attnviz-cli mha` case file: inputs and weights as the file holds them;
/// tokens are position numbers, since a case holds vectors, not text.
struct CaseSource {
    std::string name; ///< the case file's name
};

/// One block of attention weights computed elsewhere (io::ImportedAttentions): the trace holds
/// the weights only, and there are no inputs or projection weights to show.
struct ImportSource {
    std::string name; ///< the model the file names, or the file's name
    int layer = 0;
    engine::Block block = engine::Block::Self;
};

using WalkthroughSource =
    std::variant<PlaygroundSource, ModelBlockSource, CaseSource, ImportSource>;

/// One multi-head attention module's computation, ready to be walked through step by step: what
/// it read, its weights, its trace and the tokens along each axis. Immutable once made; views
/// and exports hold it through a shared pointer and read from it. The tensors it points to are
/// shared, not copied: a model block's trace is a slice of the model run.
struct Walkthrough {
    WalkthroughSource source;
    /// Queries and keys come from different sequences (a cross block, a case with its own keys,
    /// the playground with key/value sentences).
    bool crossAttention = false;
    std::vector<std::vector<std::string>> queryTokens; ///< [batch][query], as shown
    std::vector<std::vector<std::string>> keyTokens; ///< [batch][key], as shown
    /// [batch][token]: one line per token for tooltips (its vocabulary spelling, id and bytes;
    /// io::Tokenizer::tokenDetails) when a tokenizer made the tokens; empty otherwise.
    std::vector<std::vector<io::TokenDetail>> queryTokenDetails;
    std::vector<std::vector<io::TokenDetail>> keyTokenDetails;
    std::vector<int> keyLengths; ///< real (unpadded) keys per batch item
    /// [batch, query, feature] X_q and [batch, key, feature] X_kv; null in a model block made
    /// for a few steps only when the run did not keep them (walkthroughForBlock).
    std::shared_ptr<const engine::Tensor> queryInput;
    std::shared_ptr<const engine::Tensor> keyValueInput;
    /// The module that computed the trace: weights and description. Null for an import, and for
    /// a few kept steps of a model that streams its layers (walkthroughForBlock). A
    /// lesson that computes the block again (a question, an experiment, a mistake) runs this
    /// module, or one `describedAs` another description, never one rebuilt from a head count.
    std::shared_ptr<const engine::MultiHeadAttention> module;
    std::shared_ptr<const engine::AttentionTrace> trace;
    /// The mask in force: the inputs' valid lengths or custom mask with the module's own policy.
    engine::AttentionMask mask;
    /// Where the queries and keys sit (rotary positions); empty: 0 … N − 1.
    engine::TokenPositions positions;
    double milliseconds = 0; ///< how long the engine took, when this walkthrough ran it
    /// With heads switched off: the same block with every head on (for ablationDifference), when
    /// its source could run it; null otherwise.
    std::shared_ptr<const Walkthrough> intact;
    /// The trace holds (heads off) − (every head on), not values of one run: views use a signed
    /// scale at every step.
    bool difference = false;

    int dk() const { return static_cast<int>(trace->queryKeySize()); }
    int dv() const { return static_cast<int>(trace->valueSize()); }
    int heads() const { return static_cast<int>(trace->numHeads()); }
    int batch() const { return static_cast<int>(trace->batchSize()); }
    /// The width of the queries' input, D (0 for an import, which does not know it).
    int modelWidth() const { return module ? static_cast<int>(module->queryInputSize()) : 0; }
    /// The module's weights; null for an import.
    const engine::AttentionWeights* weights() const
    {
        return module ? &module->weights() : nullptr;
    }
    /// The description of the module that made the trace.
    const engine::AttentionDescription& description() const { return trace->description; }
    /// The options that run `module` again over the same tokens as the trace.
    engine::AttentionOptions rerunOptions(const engine::AttentionKeep& keep) const
    {
        return {keep, trace->ablatedHeads, positions};
    }
    /// Everything but the attention weights is missing (ImportSource).
    bool weightsOnly() const { return std::holds_alternative<ImportSource>(source); }
};

} // namespace attnviz::lesson
