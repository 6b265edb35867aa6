#pragma once

#include "engine/attention_mask.h"
#include "engine/attention_weights.h"
#include "engine/tensor.h"

#include <random>

namespace attnviz::test {

/// Sizes of a multi-head attention problem.
struct CaseShape {
    std::int64_t batch = 1, queries = 4, keys = 4;
    std::int64_t dq = 8, dk = 8, dv = 8;
    int heads = 2;
    int kvHeads = 0; ///< K/V heads (grouped-query attention); 0 = as many as `heads`
    std::int64_t pqk = 4, pv = 4, po = 8;
    bool bias = true;
};

/// Inputs and weights drawn from a seeded normal distribution, scaled like PyTorch's init.
struct RandomCase {
    engine::Tensor query, key, value;
    engine::AttentionWeights weights;
    int heads = 0;
};

RandomCase makeRandomCase(const CaseShape& shape, std::mt19937& random, float inputScale = 1.0f);

/// A mask with every kind switched on or off at random.
engine::AttentionMask makeRandomMask(const CaseShape& shape, std::mt19937& random);

} // namespace attnviz::test
