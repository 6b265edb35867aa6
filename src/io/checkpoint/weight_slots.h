#pragma once

#include "engine/layer_norm.h"
#include "engine/tensor.h"
#include "io/checkpoint/checkpoint_layout.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::io {

/// The usual ways a checkpoint stores a weight, as WeightSlots that fill the engine's fields.
/// A matrix stored as the engine keeps it (`nn.Linear`: [out, in]).
WeightSlot matrixSlot(std::vector<std::string> names, engine::RowMatrix& into, std::int64_t rows,
                      std::int64_t cols);
/// A stored [rows × cols] matrix turned over: its columns split evenly among `parts`, each part
/// receiving its columns as rows. A strip of 32 stored rows is converted at a time and
/// transposed a tile at a time: an element-by-element transpose of a 768 × 3072 matrix misses the
/// cache on every read, and converting the whole tensor first zero-fills and copies it once more
/// (together a quarter of opening GPT-2).
void transposeInto(const StoredTensor& values, std::int64_t rows, std::int64_t cols,
                   std::initializer_list<engine::RowMatrix*> parts);
/// A matrix stored transposed, [in, out] (GPT-2's Conv1D: y = x W + b), into the engine's [out,
/// in].
WeightSlot transposedSlot(std::vector<std::string> names, engine::RowMatrix& into,
                          std::int64_t rows, std::int64_t cols);
WeightSlot vectorSlot(std::vector<std::string> names, Eigen::RowVectorXf& into, std::int64_t size);
WeightSlot optionalVectorSlot(std::vector<std::string> names,
                              std::optional<Eigen::RowVectorXf>& into, std::int64_t size);

/// A visitor that marks every slot as layer `layer`'s before passing it on to `visit`.
WeightVisitor inLayer(const WeightVisitor& visit, std::size_t layer);
/// A visitor that marks every slot as part of a feed-forward block before passing it on.
WeightVisitor inFeedForward(const WeightVisitor& visit);

/// A LayerNorm's gain and bias under `base + ".weight"` / `".bias"` (and `".gamma"` / `".beta"`
/// where `oldNames` is set, as TensorFlow-converted BERT checkpoints name them).
void visitLayerNorm(const WeightVisitor& visit, const std::string& base,
                    engine::LayerNormWeights& into, std::int64_t size, bool oldNames = false);

} // namespace attnviz::io
