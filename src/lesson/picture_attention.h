#pragma once

#include "engine/model_config.h"
#include "engine/model_trace.h"
#include "lesson/attention_rollout.h"

#include <string>
#include <vector>

namespace attnviz::lesson {

/// What a Vision Transformer's attention over its picture is read from: one layer's weights, or
/// the rollout of every layer (attentionRollout).
enum class PictureSource { Weights, Rollout };

/// Which row of attention to draw over the picture.
struct PictureQuery {
    PictureSource source = PictureSource::Weights;
    int layer = 0; ///< Weights: the layer read
    int head = -1; ///< Weights: one head, or −1 for the mean of the layer's heads
    RolloutOptions rollout; ///< Rollout: the head fusion and discard ratio
    /// The token whose row is drawn: 0 the CLS token, 1 DeiT's distillation token, then the
    /// patches row by row.
    int token = 0;
};

/// A row of attention laid out as the picture's patches.
struct PictureAttention {
    int patchRows = 0;
    int patchColumns = 0;
    int patchSize = 0; ///< pixels of the model's input per patch side
    std::vector<double> patches; ///< patchRows × patchColumns, row-major: the weight of each
    double onFirstTokens = 0; ///< the row's weight on CLS (and the distillation token)
    std::string title; ///< "layer 3 · mean of 4 heads · from [CLS]"
};

/// The token's name as the picture's tokenizer spells it: "[CLS]", "[DIST]" or "row,column".
std::string pictureTokenName(const engine::ImageInput& image, int token);
/// The patch at pixel (x, y) of the model's input, as a token index; −1 outside the picture.
int pictureTokenAt(const engine::ImageInput& image, double x, double y);

/// The query's row over the picture, from batch item 0 of the run's kept weights. Throws
/// engine::InputError with one sentence for a model that reads no picture, a layer, head or token
/// out of range, or weights the run did not keep.
PictureAttention pictureAttention(const engine::ModelTrace& trace,
                                  const engine::ModelConfig& config, const PictureQuery& query);

/// The mean distance, in pixels of the model's input, over which each head of the encoder
/// attends (Dosovitskiy et al. 2021, Figure 7): for every patch query, the weights on the patches
/// (renormalised to sum to 1 over patches) times the distance between patch centres; averaged
/// over queries. Layers × heads, layer-major. Throws as pictureAttention does.
std::vector<double> meanAttentionDistanceInPixels(const engine::ModelTrace& trace,
                                                  const engine::ModelConfig& config);

} // namespace attnviz::lesson
