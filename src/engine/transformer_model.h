#pragma once

#include "engine/model_config.h"
#include "engine/model_trace.h"
#include "engine/model_weights.h"
#include "engine/multi_head_attention.h"
#include "engine/vocabulary.h"

#include <vector>

namespace attnviz::engine {

/// A whole Transformer (Vaswani et al.; D2L 11.7): embeddings and positions, encoder layers
/// (self-attention, feed-forward), decoder layers (masked self-attention, cross-attention over the
/// encoder's output, feed-forward), residual connections and LayerNorm before or after each
/// sublayer. Every activation lands in a ModelTrace; attention reuses MultiHeadAttention, so each
/// block's trace is the single-module trace the walkthrough explains.
class TransformerModel {
public:
    /// Checks the configuration (InputError); the weights must have the shapes of
    /// `weightSpecs(config)` (the model loader checks them against the file).
    TransformerModel(ModelConfig config, ModelWeights weights, Vocabulary vocabulary);
    // The modules point into the weights; a model stays where it was built (hold it by pointer).
    TransformerModel(const TransformerModel&) = delete;
    TransformerModel& operator=(const TransformerModel&) = delete;

    const ModelConfig& config() const { return m_config; }
    const Vocabulary& vocabulary() const { return m_vocabulary; }

    /// One forward pass over one sequence pair: `source` feeds the encoder, `target` the decoder
    /// (teacher forcing: every target position at once, each seeing only earlier ones). A
    /// decoder-only model takes no source, an encoder-only model no target. Throws InputError for
    /// empty or over-long inputs and unknown ids.
    ModelTrace forward(const std::vector<int>& source, const std::vector<int>& target) const;

    /// The attention module of a block (for its weights); throws std::out_of_range when absent.
    const MultiHeadAttention& attentionModule(int layer, Block block) const;

private:
    struct Stack {
        const StackWeights* weights = nullptr;
        std::vector<std::vector<MultiHeadAttention>> attention; ///< per layer, per attention block
    };
    void checkIds(const std::vector<int>& ids, const char* what) const;
    void runStack(const Stack& stack, const std::vector<int>& ids, const Tensor* memory, bool decoder,
                  StackTrace& trace) const;

    ModelConfig m_config;
    ModelWeights m_weights; ///< attention projections moved into the stacks' modules
    Vocabulary m_vocabulary;
    Stack m_encoder;
    Stack m_decoder;
};

} // namespace attnviz::engine
