#include "engine/random_case.h"

#include <cmath>

namespace attnviz::test {
namespace {

engine::RowMatrix randomMatrix(std::int64_t rows, std::int64_t cols, float scale,
                               std::mt19937& random)
{
    std::normal_distribution<float> normal(0.0f, scale);
    engine::RowMatrix m(rows, cols);
    for (float& x : m.reshaped())
        x = normal(random);
    return m;
}

engine::Tensor randomSequence(std::int64_t batch, const char* tokens, std::int64_t n,
                              std::int64_t width, float scale, std::mt19937& random)
{
    engine::Tensor t({{"batch", batch}, {tokens, n}, {"feature", width}});
    std::normal_distribution<float> normal(0.0f, scale);
    for (float& x : t.values())
        x = normal(random);
    return t;
}

} // namespace

RandomCase makeRandomCase(const CaseShape& s, std::mt19937& random, float inputScale)
{
    RandomCase c;
    c.heads = s.heads;
    const int kv = s.kvHeads ? s.kvHeads : s.heads;
    c.query = randomSequence(s.batch, "query", s.queries, s.dq, inputScale, random);
    c.key = randomSequence(s.batch, "key", s.keys, s.dk, inputScale, random);
    c.value = randomSequence(s.batch, "key", s.keys, s.dv, 1.0f, random);
    const auto init = [](std::int64_t in) { return 1.0f / std::sqrt(static_cast<float>(in)); };
    c.weights.wQ = randomMatrix(s.heads * s.pqk, s.dq, init(s.dq), random);
    c.weights.wK = randomMatrix(kv * s.pqk, s.dk, init(s.dk), random);
    c.weights.wV = randomMatrix(kv * s.pv, s.dv, init(s.dv), random);
    c.weights.wO = randomMatrix(s.po, s.heads * s.pv, init(s.heads * s.pv), random);
    if (s.bias) {
        c.weights.bQ = randomMatrix(1, s.heads * s.pqk, 0.1f, random);
        c.weights.bK = randomMatrix(1, kv * s.pqk, 0.1f, random);
        c.weights.bV = randomMatrix(1, kv * s.pv, 0.1f, random);
        c.weights.bO = randomMatrix(1, s.po, 0.1f, random);
    }
    return c;
}

engine::AttentionMask makeRandomMask(const CaseShape& s, std::mt19937& random)
{
    std::bernoulli_distribution coin(0.5);
    engine::AttentionMask mask;
    mask.causal = coin(random);
    if (coin(random)) {
        engine::AttentionMask::ValidLengths v;
        v.perQuery = coin(random);
        std::uniform_int_distribution<std::int64_t> length(0, s.keys + 1);
        v.lengths.resize(static_cast<std::size_t>(v.perQuery ? s.batch * s.queries : s.batch));
        for (auto& l : v.lengths)
            l = length(random);
        mask.validLengths = v;
    }
    if (coin(random)) {
        engine::AttentionMask::Explicit e;
        e.perBatch = coin(random);
        e.allowed.resize(static_cast<std::size_t>((e.perBatch ? s.batch : 1) * s.queries * s.keys));
        std::bernoulli_distribution open(0.75);
        for (auto& a : e.allowed)
            a = open(random) ? 1 : 0;
        mask.explicitMask = e;
    }
    return mask;
}

} // namespace attnviz::test
