// The variants an attention module's description names — grouped K/V heads, QK-norm (per head
// and over the whole projection), rotary positions on all or part of each head, a score scale,
// soft-capping, an ALiBi score bias, a causal mask with a sliding window, learned sinks — drawn
// at random and combined with the per-call mask, explicit positions and switched-off heads:
//  * the exact, the fused and the stage-by-stage pass agree on every step the description has,
//    and all leave the steps it lacks empty;
//  * each agrees with plain loops in double written here from the definitions (no engine stage
//    function is called);
//  * on each pass, what it keeps does not change a bit of what it computes;
//  * a switched-off head's concat columns are zero and nothing else changes before the concat.
// Then properties that tie the variants to the plain module (grouped K/V heads are repeated K/V
// heads; rotary scores depend on relative position only; a window as long as the input is no
// window), and the sentences impossible descriptions are refused with.
#include "engine/attention_description.h"
#include "engine/attention_paths.h"
#include "engine/attention_stages.h"
#include "engine/attention_trace.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/naive_attention.h"
#include "engine/random_case.h"
#include "engine/thread_count.h"
#include "support/tensor_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace attnviz::test {
namespace {

using engine::AttentionDescription;
using engine::AttentionKeep;
using engine::AttentionMask;
using engine::AttentionOptions;
using engine::AttentionStep;
using engine::AttentionTrace;
using engine::AttentionWeights;
using engine::InputError;
using engine::MultiHeadAttention;
using engine::RowMatrix;
using engine::Tensor;
using engine::TokenPositions;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------
// One random problem: a description, weights that fit it, inputs, a per-call mask, positions and
// switched-off heads.

struct Variant {
    AttentionDescription d;
    AttentionWeights w;
    Tensor query, key, value;
    AttentionMask mask;
    TokenPositions positions;
    std::vector<int> ablated;
    std::string label;

    MultiHeadAttention module() const { return MultiHeadAttention(w, d); }
    AttentionOptions options(AttentionKeep keep = AttentionKeep::all(),
                             engine::AttentionPath path = engine::AttentionPath::Automatic) const
    {
        AttentionOptions o;
        o.keep = keep;
        o.ablatedHeads = ablated;
        o.positions = positions;
        o.path = path;
        return o;
    }
    AttentionOptions options(engine::AttentionPath path) const
    {
        return options(AttentionKeep::all(), path);
    }
    std::int64_t batch() const { return query.dim(0); }
    std::int64_t queries() const { return query.dim(1); }
    std::int64_t keys() const { return key.dim(1); }
};

// The sizes the tests start from: every size different, so that a mix-up of two shows.
CaseShape variantShape()
{
    return {.batch = 1,
            .queries = 4,
            .keys = 4,
            .dq = 6,
            .dk = 5,
            .dv = 4,
            .heads = 4,
            .kvHeads = 2,
            .pqk = 4,
            .pv = 3,
            .po = 5,
            .bias = true};
}

// Weights and inputs of the given sizes, and the description of their heads (nothing else).
Variant makeVariant(const CaseShape& s, std::mt19937& random)
{
    RandomCase r = makeRandomCase(s, random);
    Variant c;
    c.d = AttentionDescription::fromWeights(r.weights, s.heads, s.kvHeads);
    c.w = std::move(r.weights);
    c.query = std::move(r.query);
    c.key = std::move(r.key);
    c.value = std::move(r.value);
    return c;
}

template <typename T> T pick(std::initializer_list<T> options, std::mt19937& random)
{
    std::uniform_int_distribution<std::size_t> at(0, options.size() - 1);
    return *(options.begin() + at(random));
}

std::int64_t uniform(std::int64_t low, std::int64_t high, std::mt19937& random)
{
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

bool chance(double p, std::mt19937& random)
{
    return std::bernoulli_distribution(p)(random);
}

std::string describe(const Variant& c)
{
    const AttentionDescription& d = c.d;
    std::ostringstream s;
    s << "B=" << c.batch() << " Nq=" << c.queries() << " Nk=" << c.keys() << " H=" << d.queryHeads
      << " Hkv=" << d.keyValueHeads << " Pqk=" << d.queryKeySize << " Pv=" << d.valueSize
      << " Po=" << c.w.wO.rows() << " bias=" << c.w.bQ.has_value();
    if (d.queryKeyNorm)
        s << " qk_norm(" << engine::queryKeyNormScopeName(d.queryKeyNorm->scope)
          << ", eps=" << d.queryKeyNorm->epsilon << (d.queryKeyNorm->unitOffset ? ", 1+w" : "")
          << ")";
    if (d.rotary)
        s << " rotary(theta=" << d.rotary->theta << ", r=" << d.rotary->rotatedSize << ")";
    if (d.scoreScale)
        s << " scale=" << *d.scoreScale;
    if (d.logitSoftCap)
        s << " softcap=" << *d.logitSoftCap;
    if (d.scoreBias)
        s << " alibi";
    if (d.learnedSinks)
        s << " sinks";
    if (d.mask.causal)
        s << " causal";
    if (d.mask.slidingWindow)
        s << " window=" << *d.mask.slidingWindow;
    if (c.mask.causal)
        s << " call-causal";
    if (c.mask.window)
        s << " call-window=" << *c.mask.window;
    if (c.mask.validLengths)
        s << " valid_lens" << (c.mask.validLengths->perQuery ? "[B,Nq]" : "[B]");
    if (c.mask.explicitMask)
        s << " mask" << (c.mask.explicitMask->perBatch ? "[B,Nq,Nk]" : "[Nq,Nk]");
    if (!c.positions.query.empty())
        s << " query_positions";
    if (!c.positions.key.empty())
        s << " key_positions";
    if (!c.ablated.empty()) {
        s << " ablated={";
        for (int h : c.ablated)
            s << h << ",";
        s << "}";
    }
    return s.str();
}

std::vector<std::int64_t> randomPositions(std::int64_t count, std::int64_t maxPosition,
                                          std::mt19937& random)
{
    std::vector<std::int64_t> p(static_cast<std::size_t>(count));
    for (auto& x : p)
        x = uniform(0, maxPosition, random);
    return p;
}

Variant randomVariant(std::mt19937& random, int trial)
{
    CaseShape s = variantShape();
    const bool large = chance(0.15, random);
    const bool longKeys = !large && chance(0.1, random);
    s.batch = uniform(1, large ? 2 : 3, random);
    if (large) {
        // More query rows than the fast path's 64-row block, and not a multiple of it.
        s.queries = pick<std::int64_t>({65, 70, 64, 129, 100}, random);
        s.keys = pick<std::int64_t>({3, 9, 64, 70, 81}, random);
    } else if (longKeys) {
        // A few queries over many keys (a decoding step over a long cache).
        s.queries = uniform(1, 4, random);
        s.keys = pick<std::int64_t>({65, 70, 100}, random);
    } else {
        s.queries = uniform(1, 9, random);
        s.keys = chance(0.3, random) ? s.queries : uniform(1, 9, random);
    }
    s.dq = uniform(1, 10, random);
    s.dk = uniform(1, 10, random);
    s.dv = uniform(1, 10, random);
    s.heads = large ? pick({1, 2, 4}, random) : pick({1, 2, 3, 4, 6, 8}, random);
    std::vector<int> divisors;
    for (int k = 1; k <= s.heads; ++k)
        if (s.heads % k == 0)
            divisors.push_back(k);
    s.kvHeads = divisors[static_cast<std::size_t>(
        uniform(0, static_cast<std::int64_t>(divisors.size()) - 1, random))];
    const bool rotary = chance(0.5, random);
    s.pqk = rotary ? 2 * static_cast<int>(uniform(1, 4, random))
                   : static_cast<int>(uniform(1, 8, random));
    s.pv = static_cast<int>(uniform(1, 6, random));
    s.po = static_cast<int>(uniform(1, 10, random));
    s.bias = chance(0.5, random);

    Variant c = makeVariant(s, random);
    AttentionDescription& d = c.d;
    if (rotary) {
        engine::RotaryPositions r;
        r.theta = pick({10.0, 10000.0, 1e6, 500000.0, 2.5}, random);
        r.rotatedSize =
            chance(0.5, random) ? 0 : 2 * static_cast<int>(uniform(1, s.pqk / 2, random));
        d.rotary = r;
    }
    const bool alibi = chance(0.4, random);
    if (alibi) {
        engine::ScoreBias bias;
        const bool geometric = chance(0.5, random);
        std::uniform_real_distribution<float> slope(-0.5f, 1.0f);
        for (int h = 0; h < s.heads; ++h)
            bias.slopes.push_back(geometric ? std::pow(2.0f, -8.0f * (h + 1) / s.heads)
                                            : slope(random));
        d.scoreBias = bias;
    }
    if (chance(0.3, random))
        d.scoreScale = 1.0 / std::uniform_real_distribution<double>(0.25, 12.0)(random);
    if (chance(0.3, random)) {
        engine::QueryKeyNorm norm;
        norm.scope = chance(0.5, random) ? engine::QueryKeyNorm::Scope::PerHead
                                         : engine::QueryKeyNorm::Scope::WholeProjection;
        norm.epsilon = pick({1e-6, 1e-5, 0.5}, random);
        norm.unitOffset = chance(0.4, random);
        d.queryKeyNorm = norm;
        const bool perHead = norm.scope == engine::QueryKeyNorm::Scope::PerHead;
        std::normal_distribution<float> gain(norm.unitOffset ? 0.0f : 1.0f, 0.4f);
        const auto gains = [&](std::int64_t n) {
            Eigen::RowVectorXf g(n);
            for (float& x : g)
                x = gain(random);
            return g;
        };
        c.w.qNorm = gains(perHead ? s.pqk : s.heads * s.pqk);
        c.w.kNorm = gains(perHead ? s.pqk : s.kvHeads * s.pqk);
    }
    if (chance(0.3, random))
        d.logitSoftCap = pick({0.5, 2.0, 30.0}, random);
    if (chance(0.3, random)) {
        d.learnedSinks = true;
        std::normal_distribution<float> logit(0.0f, 1.5f);
        c.w.sinks = Eigen::RowVectorXf(s.heads);
        for (float& x : *c.w.sinks)
            x = logit(random);
    }
    d.mask.causal = chance(0.5, random);
    if (d.mask.causal && chance(0.5, random))
        d.mask.slidingWindow = uniform(1, std::max(s.queries, s.keys) + 2, random);

    // The per-call mask, which combines with the module's own.
    if (!d.mask.causal && chance(0.25, random))
        c.mask.causal = true;
    if ((d.mask.causal || c.mask.causal) && chance(0.25, random))
        c.mask.window = uniform(1, s.queries + 2, random);
    if (chance(0.4, random)) {
        AttentionMask::ValidLengths v;
        v.perQuery = chance(0.5, random);
        v.lengths.resize(static_cast<std::size_t>(v.perQuery ? s.batch * s.queries : s.batch));
        for (auto& l : v.lengths)
            l = uniform(0, s.keys + 1, random); // 0 blocks whole rows
        c.mask.validLengths = v;
    }
    if (chance(0.4, random)) {
        AttentionMask::Explicit e;
        e.perBatch = chance(0.5, random);
        const std::int64_t rows = (e.perBatch ? s.batch : 1) * s.queries;
        e.allowed.resize(static_cast<std::size_t>(rows * s.keys));
        for (auto& a : e.allowed)
            a = chance(0.75, random) ? 1 : 0;
        if (chance(0.5, random)) { // a row with every key blocked
            const std::int64_t row = uniform(0, rows - 1, random);
            std::fill_n(e.allowed.begin() + row * s.keys, s.keys, std::uint8_t{0});
        }
        c.mask.explicitMask = e;
    }

    // Positions: ALiBi's bias grows with distance, so its positions stay small enough that float
    // can still tell neighbouring biased scores apart.
    const std::int64_t maxPosition =
        alibi ? 300 : pick<std::int64_t>({300, 100000, engine::kMaxPosition}, random);
    switch (uniform(0, 3, random)) {
    case 0: // 0 … N − 1
        break;
    case 1: // anywhere, repeats allowed
        c.positions.query = randomPositions(s.batch * s.queries, maxPosition, random);
        c.positions.key = randomPositions(s.batch * s.keys, maxPosition, random);
        break;
    case 2: { // a decoding step: the keys are a prefix, the queries come last
        const std::int64_t offset = uniform(0, std::min<std::int64_t>(maxPosition, 1000), random);
        for (std::int64_t b = 0; b < s.batch; ++b) {
            for (std::int64_t j = 0; j < s.keys; ++j)
                c.positions.key.push_back(offset + j);
            for (std::int64_t i = 0; i < s.queries; ++i)
                c.positions.query.push_back(
                    std::max<std::int64_t>(0, offset + s.keys - s.queries + i));
        }
        break;
    }
    default: // one side given, the other 0 … N − 1
        if (chance(0.5, random))
            c.positions.query = randomPositions(s.batch * s.queries, maxPosition, random);
        else
            c.positions.key = randomPositions(s.batch * s.keys, maxPosition, random);
        break;
    }

    if (chance(0.4, random))
        for (int h = 0; h < s.heads; ++h)
            if (chance(0.4, random))
                c.ablated.push_back(h);

    c.label = "trial " + std::to_string(trial) + ": " + describe(c);
    return c;
}

// ---------------------------------------------------------------------------------------------
// The definitions as plain loops in double. Every step is rounded to float before the next one
// reads it, as the engine's steps are, so each comparison measures one step's arithmetic.

std::int64_t positionOf(const std::vector<std::int64_t>& positions, std::int64_t b,
                        std::int64_t length, std::int64_t i)
{
    return positions.empty() ? i : positions[static_cast<std::size_t>(b * length + i)];
}

// Whether query i of batch item b may not look at key j: the module's causal mask and window and
// the call's mask, each read from its own definition.
bool blockedAt(const Variant& c, std::int64_t b, std::int64_t i, std::int64_t j)
{
    const std::int64_t nq = c.queries(), nk = c.keys();
    const bool causal = c.d.mask.causal || c.mask.causal;
    if (causal && j > i)
        return true;
    for (const auto& window : {c.d.mask.slidingWindow, c.mask.window})
        if (window && i - j >= *window)
            return true;
    if (c.mask.validLengths) {
        const auto& v = *c.mask.validLengths;
        if (j >= v.lengths[static_cast<std::size_t>(v.perQuery ? b * nq + i : b)])
            return true;
    }
    if (c.mask.explicitMask) {
        const auto& e = *c.mask.explicitMask;
        const std::int64_t row = e.perBatch ? b * nq + i : i;
        if (e.allowed[static_cast<std::size_t>(row * nk + j)] == 0)
            return true;
    }
    return false;
}

// Rotary positions as Hugging Face's rotate_half reads them: features i and i + r/2 are the real
// and imaginary parts of one complex number, multiplied by e^{i·position·θ^(−2i/r)}; features
// from r on pass unchanged.
Tensor naiveRotary(const Tensor& x, const AttentionDescription& d,
                   const std::vector<std::int64_t>& positions)
{
    const std::int64_t B = x.dim(0), heads = x.dim(1), N = x.dim(2), P = x.dim(3);
    const std::int64_t r = d.rotary->rotatedSize > 0 ? d.rotary->rotatedSize : P;
    const std::int64_t half = r / 2;
    Tensor y = x;
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < heads; ++h)
            for (std::int64_t n = 0; n < N; ++n) {
                const double position = static_cast<double>(positionOf(positions, b, N, n));
                float* row = y.data() + ((b * heads + h) * N + n) * P;
                const float* in = x.data() + ((b * heads + h) * N + n) * P;
                for (std::int64_t i = 0; i < half; ++i) {
                    const double inverseFrequency =
                        1.0 / std::pow(d.rotary->theta, static_cast<double>(2 * i) / r);
                    const std::complex<double> z(in[i], in[i + half]);
                    const std::complex<double> turned =
                        z * std::polar(1.0, position * inverseFrequency);
                    row[i] = static_cast<float>(turned.real());
                    row[i + half] = static_cast<float>(turned.imag());
                }
            }
    return y;
}

// RMSNorm as Qwen3 (each head's row) and OLMo 2 (a token's rows of every head together) write
// it: x / √(mean(x²) + ε) · w, or · (1 + w) in Gemma's form.
Tensor naiveNorm(const Tensor& x, const Eigen::RowVectorXf& gain, const engine::QueryKeyNorm& norm)
{
    const std::int64_t B = x.dim(0), heads = x.dim(1), N = x.dim(2), P = x.dim(3);
    const bool perHead = norm.scope == engine::QueryKeyNorm::Scope::PerHead;
    Tensor y = x;
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t n = 0; n < N; ++n) {
            double whole = 0;
            for (std::int64_t h = 0; h < heads; ++h)
                for (std::int64_t p = 0; p < P; ++p)
                    whole += std::pow(static_cast<double>(x.at({b, h, n, p})), 2);
            for (std::int64_t h = 0; h < heads; ++h) {
                double own = 0;
                for (std::int64_t p = 0; p < P; ++p)
                    own += std::pow(static_cast<double>(x.at({b, h, n, p})), 2);
                const double meanSquare = perHead ? own / P : whole / (heads * P);
                for (std::int64_t p = 0; p < P; ++p) {
                    const double w = gain(perHead ? p : h * P + p) + (norm.unitOffset ? 1.0 : 0.0);
                    y.data()[y.flatIndex({b, h, n, p})] = static_cast<float>(
                        x.at({b, h, n, p}) / std::sqrt(meanSquare + norm.epsilon) * w);
                }
            }
        }
    return y;
}

AttentionTrace naiveVariant(const Variant& c)
{
    const AttentionDescription& d = c.d;
    const std::int64_t B = c.batch(), Nq = c.queries(), Nk = c.keys(), H = d.queryHeads,
                       G = d.keyValueHeads, group = H / G;
    AttentionTrace t;
    t.qProj = naiveLinear(c.query, c.w.wQ, c.w.bQ, "query");
    t.kProj = naiveLinear(c.key, c.w.wK, c.w.bK, "key");
    t.vProj = naiveLinear(c.value, c.w.wV, c.w.bV, "key");
    t.qHeads = naiveSplit(t.qProj, H, "query", "d_k");
    t.kHeads = naiveSplit(t.kProj, G, "key", "d_k");
    t.vHeads = naiveSplit(t.vProj, G, "key", "d_v");
    if (d.queryKeyNorm) {
        t.qNormed = naiveNorm(t.qHeads, *c.w.qNorm, *d.queryKeyNorm);
        t.kNormed = naiveNorm(t.kHeads, *c.w.kNorm, *d.queryKeyNorm);
    }
    // Rotary positions turn the normalised heads (Qwen3: q_norm, then RoPE).
    const Tensor& qBefore = d.queryKeyNorm ? t.qNormed : t.qHeads;
    const Tensor& kBefore = d.queryKeyNorm ? t.kNormed : t.kHeads;
    if (d.rotary) {
        t.qRotated = naiveRotary(qBefore, d, c.positions.query);
        t.kRotated = naiveRotary(kBefore, d, c.positions.key);
    }
    const Tensor& Q = d.rotary ? t.qRotated : qBefore;
    const Tensor& K = d.rotary ? t.kRotated : kBefore;
    const std::int64_t Pqk = Q.dim(3), Pv = t.vHeads.dim(3);
    const double scale = d.scoreScale ? *d.scoreScale : 1.0 / std::sqrt(static_cast<double>(Pqk));

    const std::vector<engine::Axis> scoreAxes = {
        {"batch", B}, {"head", H}, {"query", Nq}, {"key", Nk}};
    t.scores = Tensor(scoreAxes);
    t.scaled = Tensor(scoreAxes);
    if (d.logitSoftCap)
        t.capped = Tensor(scoreAxes);
    if (d.scoreBias)
        t.biased = Tensor(scoreAxes);
    if (d.learnedSinks)
        t.sinkWeights = Tensor({{"batch", B}, {"head", H}, {"query", Nq}});
    t.masked = Tensor(scoreAxes);
    t.weights = Tensor(scoreAxes);
    t.context = Tensor({{"batch", B}, {"head", H}, {"query", Nq}, {"d_v", Pv}});
    constexpr double inf = std::numeric_limits<double>::infinity();

    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i) {
            bool open = false;
            for (std::int64_t j = 0; j < Nk; ++j)
                open |= !blockedAt(c, b, i, j);
            if (!open)
                t.fullyMaskedRows.push_back({b, i});
        }

    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t g = h / group; // repeat_kv: query head h reads K/V head h / (H/G)
            for (std::int64_t i = 0; i < Nq; ++i) {
                const std::int64_t row = ((b * H + h) * Nq + i) * Nk;
                const float* q = Q.data() + ((b * H + h) * Nq + i) * Pqk;
                for (std::int64_t j = 0; j < Nk; ++j) {
                    const float* k = K.data() + ((b * G + g) * Nk + j) * Pqk;
                    double dot = 0;
                    for (std::int64_t p = 0; p < Pqk; ++p)
                        dot += static_cast<double>(q[p]) * k[p];
                    t.scores.data()[row + j] = static_cast<float>(dot);
                    t.scaled.data()[row + j] =
                        static_cast<float>(static_cast<double>(t.scores.data()[row + j]) * scale);
                    float before = t.scaled.data()[row + j];
                    if (d.logitSoftCap) { // Gemma 2: after the scale, before the mask
                        const double cap = *d.logitSoftCap;
                        before = static_cast<float>(cap * std::tanh(before / cap));
                        t.capped.data()[row + j] = before;
                    }
                    if (d.scoreBias) {
                        const double distance =
                            static_cast<double>(positionOf(c.positions.query, b, Nq, i)) -
                            static_cast<double>(positionOf(c.positions.key, b, Nk, j));
                        before = static_cast<float>(
                            static_cast<double>(before) -
                            d.scoreBias->slopes[static_cast<std::size_t>(h)] * distance);
                        t.biased.data()[row + j] = before;
                    }
                    t.masked.data()[row + j] =
                        blockedAt(c, b, i, j) ? -std::numeric_limits<float>::infinity() : before;
                }
                // Softmax over the keys (and gpt-oss' sink, a logit that joins the row and is
                // dropped); a row with nothing to attend to gets zeros.
                double top = -inf;
                for (std::int64_t j = 0; j < Nk; ++j)
                    top = std::max(top, static_cast<double>(t.masked.data()[row + j]));
                const double sink = d.learnedSinks ? (*c.w.sinks)(h) : -inf;
                top = std::max(top, sink);
                std::vector<double> e(static_cast<std::size_t>(Nk), 0.0);
                double sum = d.learnedSinks ? std::exp(sink - top) : 0.0;
                if (top != -inf)
                    for (std::int64_t j = 0; j < Nk; ++j) {
                        e[static_cast<std::size_t>(j)] =
                            std::exp(static_cast<double>(t.masked.data()[row + j]) - top);
                        sum += e[static_cast<std::size_t>(j)];
                    }
                for (std::int64_t j = 0; j < Nk; ++j)
                    t.weights.data()[row + j] =
                        static_cast<float>(sum > 0 ? e[static_cast<std::size_t>(j)] / sum : 0.0);
                if (d.learnedSinks)
                    t.sinkWeights.data()[(b * H + h) * Nq + i] =
                        static_cast<float>(std::exp(sink - top) / sum);
                for (std::int64_t p = 0; p < Pv; ++p) {
                    double acc = 0;
                    for (std::int64_t j = 0; j < Nk; ++j)
                        acc += static_cast<double>(t.weights.data()[row + j]) *
                            t.vHeads.data()[((b * G + g) * Nk + j) * Pv + p];
                    t.context.data()[((b * H + h) * Nq + i) * Pv + p] = static_cast<float>(acc);
                }
            }
        }

    t.concat = Tensor({{"batch", B}, {"query", Nq}, {"feature", H * Pv}});
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 0; i < Nq; ++i)
            for (std::int64_t h = 0; h < H; ++h) {
                const bool off =
                    std::find(c.ablated.begin(), c.ablated.end(), h) != c.ablated.end();
                for (std::int64_t p = 0; p < Pv; ++p)
                    t.concat.data()[(b * Nq + i) * H * Pv + h * Pv + p] =
                        off ? 0.0f : t.context.data()[((b * H + h) * Nq + i) * Pv + p];
            }
    t.output = naiveLinear(t.concat, c.w.wO, c.w.bO, "query");
    return t;
}

// ---------------------------------------------------------------------------------------------

::testing::AssertionResult bitIdentical(const Tensor& actual, const Tensor& expected)
{
    if (actual.shape() != expected.shape())
        return ::testing::AssertionFailure()
            << "shape " << actual.shapeString() << " vs " << expected.shapeString();
    if (actual.size() != 0 &&
        std::memcmp(actual.data(), expected.data(), static_cast<std::size_t>(actual.size()) * 4) !=
            0) {
        for (std::int64_t k = 0; k < actual.size(); ++k)
            if (std::memcmp(actual.data() + k, expected.data() + k, 4) != 0)
                return ::testing::AssertionFailure()
                    << "flat index " << k << ": " << actual.data()[k] << " vs "
                    << expected.data()[k];
    }
    return ::testing::AssertionSuccess();
}

// Collects the failures of one trial so that a broken engine reports a few trials, not hundreds.
struct TrialCheck {
    std::string label;
    bool failed = false;
    void operator()(const ::testing::AssertionResult& r, const std::string& what)
    {
        if (!r) {
            failed = true;
            ADD_FAILURE() << label << "\n  " << what << ": " << r.message();
        }
    }
    void operator()(bool ok, const std::string& what)
    {
        (*this)(ok ? ::testing::AssertionSuccess() : ::testing::AssertionFailure(), what);
    }
};

std::string name(AttentionStep step)
{
    return std::string(engine::stepName(step));
}

AttentionKeep randomKeep(std::mt19937& random)
{
    AttentionKeep keep{};
    for (AttentionStep step : engine::kAttentionSteps)
        if (chance(0.5, random))
            keep.add(step);
    return keep;
}

// Keeps `keep` of a pass into `into` and checks every kept step against the pass that kept
// everything, bit for bit, and that the others are empty.
void checkKeep(const Variant& c, const MultiHeadAttention& m, const AttentionKeep& keep,
               engine::AttentionPath path, const AttentionTrace& all, AttentionTrace& into,
               TrialCheck& check, const std::string& which)
{
    m.forward(c.query, c.key, c.value, c.mask, into, c.options(keep, path));
    for (AttentionStep step : engine::kAttentionSteps) {
        const bool kept =
            (keep.has(step) || step == AttentionStep::Output) && engine::stepPresent(step, c.d);
        if (kept)
            check(bitIdentical(into.step(step), all.step(step)),
                  which + ": kept step " + name(step) + " differs from keeping everything");
        else
            check(into.step(step).rank() == 0,
                  which + ": step " + name(step) + " was not kept but has " +
                      into.step(step).shapeString());
    }
    check(into.fullyMaskedRows == all.fullyMaskedRows, which + ": fully masked rows differ");
    check(into.ablatedHeads == c.ablated, which + ": ablated heads differ");
    check(into.description == c.d, which + ": description differs");
    check(into.sizes == all.sizes, which + ": sizes differ");
}

// Every test runs the engine on one thread, except the one that compares thread counts. The random
// trials make thousands of small OpenMP regions; on a 2-core machine busy with a build, every
// region of a two-thread pass waits for the other thread to be scheduled, which took the trials
// from 0.1 s to 7 s.
class AttentionVariants : public ::testing::Test {
protected:
    void SetUp() override { engine::setThreadCount(1); }
    void TearDown() override { engine::setThreadCount(0); }
};

TEST_F(AttentionVariants, RandomDescriptionsAgreeAcrossPathsAndWithNaiveLoops)
{
    std::mt19937 random(20240521);
    constexpr int kTrials = 300;
    int failedTrials = 0;
    AttentionTrace reused; // refilled by every trial, whatever the last one had
    std::map<std::string, int> seen; // how often each variant came up
    for (int trial = 0; trial < kTrials && failedTrials < 8; ++trial) {
        const Variant c = randomVariant(random, trial);
        const AttentionDescription& d = c.d;
        const std::pair<const char*, bool> features[] = {
            {"grouped K/V heads", d.keyValueHeads > 1 && d.keyValueHeads < d.queryHeads},
            {"one K/V head for several query heads", d.keyValueHeads == 1 && d.queryHeads > 1},
            {"QK-norm per head",
             d.queryKeyNorm && d.queryKeyNorm->scope == engine::QueryKeyNorm::Scope::PerHead},
            {"QK-norm of the whole projection",
             d.queryKeyNorm &&
                 d.queryKeyNorm->scope == engine::QueryKeyNorm::Scope::WholeProjection},
            {"rotary positions", d.rotary.has_value()},
            {"a part of each head rotated", d.rotary && d.rotatedSize() < d.queryKeySize},
            {"a score scale", d.scoreScale.has_value()},
            {"soft-capping", d.logitSoftCap.has_value()},
            {"ALiBi", d.scoreBias.has_value()},
            {"learned sinks", d.learnedSinks},
            {"a causal module", d.mask.causal},
            {"a sliding window", d.mask.slidingWindow.has_value()},
            {"a window of the call", c.mask.window.has_value()},
            {"valid lengths", c.mask.validLengths.has_value()},
            {"an explicit mask", c.mask.explicitMask.has_value()},
            {"explicit positions", !c.positions.query.empty() || !c.positions.key.empty()},
            {"switched-off heads", !c.ablated.empty()},
            {"more than 64 query rows", c.queries() > 64},
            {"Nq != Nk", c.queries() != c.keys()},
        };
        for (const auto& [feature, present] : features)
            seen[feature] += present ? 1 : 0;
        TrialCheck check{c.label};
        const MultiHeadAttention m = c.module();

        // (a) the definitions, and every pass against them and against the first
        const AttentionTrace naive = naiveVariant(c);
        std::vector<AttentionTrace> traces;
        for (const engine::AttentionPath path : kEveryPath) {
            const std::string p = pathName(path);
            const AttentionTrace& t =
                traces.emplace_back(m.forward(c.query, c.key, c.value, c.mask, c.options(path)));
            check(t.path == path, p + ": the trace names the pass " + pathName(t.path));
            for (AttentionStep step : engine::kAttentionSteps) {
                if (!engine::stepPresent(step, c.d)) {
                    check(t.step(step).rank() == 0,
                          p + " filled " + name(step) + ", which the description lacks");
                    continue;
                }
                check(t.step(step).rank() != 0, p + " left " + name(step) + " empty");
                check(tensorsNear(t.step(step), naive.step(step)),
                      p + " vs naive loops, step " + name(step));
                check(tensorsNear(t.step(step), traces.front().step(step)),
                      p + " vs " + pathName(traces.front().path) + ", step " + name(step));
            }
            check(t.fullyMaskedRows == naive.fullyMaskedRows, p + ": fully masked rows");
            check(t.description == c.d, p + ": the trace's description");
            check(t.sizes.keyValueHeads == c.d.keyValueHeads && t.sizes.heads == c.d.queryHeads,
                  p + ": the trace's head counts");
        }

        // (b) on each pass, what is kept changes nothing that is computed
        const AttentionKeep fixed[] = {
            AttentionKeep{},
            AttentionKeep::only({AttentionStep::Weights}),
            AttentionKeep::only({AttentionStep::Context}),
            AttentionKeep::only({AttentionStep::Masked}),
            AttentionKeep::only({AttentionStep::Scores}),
            AttentionKeep::only({AttentionStep::Biased, AttentionStep::Weights}),
            AttentionKeep::only({AttentionStep::Capped, AttentionStep::SinkWeights}),
            AttentionKeep::only(
                {AttentionStep::QRotated, AttentionStep::KRotated, AttentionStep::Weights}),
            AttentionKeep::only({AttentionStep::Scaled, AttentionStep::Context}),
        };
        for (std::size_t k = 0; k < kEveryPath.size(); ++k) {
            const engine::AttentionPath path = kEveryPath[k];
            const std::string p = pathName(path) + ", ";
            AttentionTrace fresh;
            checkKeep(c, m, fixed[trial % std::size(fixed)], path, traces[k], fresh, check,
                      p + "fixed keep");
            checkKeep(c, m, randomKeep(random), path, traces[k], reused, check,
                      p + "random keep into a reused trace");
            checkKeep(c, m, AttentionKeep::all(), path, traces[k], reused, check,
                      p + "keep all into a reused trace");
        }

        // (c) switched-off heads
        if (!c.ablated.empty()) {
            AttentionOptions open = c.options();
            open.ablatedHeads.clear();
            const std::int64_t Pv = c.d.valueSize;
            for (std::size_t k = 0; k < kEveryPath.size(); ++k) {
                const AttentionTrace* t = &traces[k];
                open.path = kEveryPath[k];
                const AttentionTrace on = m.forward(c.query, c.key, c.value, c.mask, open);
                const std::string p = pathName(kEveryPath[k]);
                check(t->ablatedHeads == c.ablated, p + ": ablated heads in the trace");
                check(bitIdentical(t->context, on.context),
                      p + ": an ablated head's context is still computed");
                for (std::int64_t b = 0; b < c.batch(); ++b)
                    for (int h = 0; h < c.d.queryHeads; ++h) {
                        const bool off =
                            std::find(c.ablated.begin(), c.ablated.end(), h) != c.ablated.end();
                        const auto cols = t->concat.matrix({b}).middleCols(h * Pv, Pv);
                        if (off)
                            check(cols.isZero(0) && !cols.hasNaN(),
                                  p + ": concat columns of ablated head " + std::to_string(h));
                        else
                            check(cols == on.concat.matrix({b}).middleCols(h * Pv, Pv),
                                  p + ": concat columns of head " + std::to_string(h) +
                                      " changed when other heads were switched off");
                    }
            }
        }
        seen["fully masked rows"] += naive.fullyMaskedRows.empty() ? 0 : 1;
        failedTrials += check.failed ? 1 : 0;
    }
    // The generator keeps drawing every variant (a change to it must not silently drop one).
    for (const auto& [feature, count] : seen)
        EXPECT_GE(count, 15) << "only " << count << " of " << kTrials << " trials had " << feature;
    EXPECT_EQ(seen.size(), 20u);
}

TEST_F(AttentionVariants, RandomDescriptionsGiveTheSameResultsOnTwoThreads)
{
    // The float passes spread blocks and products over the threads; the exact one runs on one.
    std::mt19937 random(99);
    for (int trial = 0; trial < 10; ++trial) {
        const Variant c = randomVariant(random, trial);
        const MultiHeadAttention m = c.module();
        for (const engine::AttentionPath path :
             {engine::AttentionPath::Fused, engine::AttentionPath::ByStages}) {
            const std::string label = c.label + ", " + pathName(path);
            engine::setThreadCount(1);
            const AttentionTrace one = m.forward(c.query, c.key, c.value, c.mask, c.options(path));
            engine::setThreadCount(2);
            const AttentionTrace two = m.forward(c.query, c.key, c.value, c.mask, c.options(path));
            AttentionTrace twoWeightsOnly;
            m.forward(c.query, c.key, c.value, c.mask, twoWeightsOnly,
                      c.options(AttentionKeep::only({AttentionStep::Weights}), path));
            engine::setThreadCount(1);
            for (AttentionStep step : engine::kAttentionSteps)
                EXPECT_TRUE(tensorsNear(two.step(step), one.step(step), 1e-6, 1e-6))
                    << label << ", " << name(step);
            EXPECT_EQ(two.fullyMaskedRows, one.fullyMaskedRows) << label;
            // On two threads too, keeping less changes no bit of what is kept.
            EXPECT_TRUE(bitIdentical(twoWeightsOnly.weights, two.weights)) << label;
            EXPECT_TRUE(bitIdentical(twoWeightsOnly.output, two.output)) << label;
        }
    }
}

// ---------------------------------------------------------------------------------------------

// Hugging Face's repeat_kv: the weights of a module with H K/V heads whose K/V head h is the
// grouped module's K/V head h / (H / H_kv).
AttentionWeights repeatKeyValues(const AttentionWeights& w, const AttentionDescription& d)
{
    const int H = d.queryHeads, group = d.groupSize(), Pqk = d.queryKeySize, Pv = d.valueSize;
    AttentionWeights out = w;
    out.wK.resize(H * Pqk, w.wK.cols());
    out.wV.resize(H * Pv, w.wV.cols());
    if (w.bK)
        out.bK = Eigen::RowVectorXf(H * Pqk);
    if (w.bV)
        out.bV = Eigen::RowVectorXf(H * Pv);
    for (int h = 0; h < H; ++h) {
        const int g = h / group;
        out.wK.middleRows(h * Pqk, Pqk) = w.wK.middleRows(g * Pqk, Pqk);
        out.wV.middleRows(h * Pv, Pv) = w.wV.middleRows(g * Pv, Pv);
        if (w.bK)
            out.bK->segment(h * Pqk, Pqk) = w.bK->segment(g * Pqk, Pqk);
        if (w.bV)
            out.bV->segment(h * Pv, Pv) = w.bV->segment(g * Pv, Pv);
    }
    return out;
}

TEST_F(AttentionVariants, GroupedKeyValuesEqualRepeatedKeyValueHeads)
{
    std::mt19937 random(77);
    struct Config {
        int heads, kvHeads;
        bool rotary, alibi, causal;
        std::int64_t queries, keys;
    };
    const Config configs[] = {
        {4, 2, false, false, false, 5, 7}, {6, 3, true, false, true, 6, 6},
        {8, 1, true, true, true, 70, 70},  {6, 2, false, true, false, 4, 9},
        {4, 4, true, false, false, 3, 3},  {2, 1, true, true, true, 9, 5},
    };
    for (const Config& k : configs) {
        CaseShape s = variantShape();
        s.batch = 2;
        s.queries = k.queries;
        s.keys = k.keys;
        s.heads = k.heads;
        s.kvHeads = k.kvHeads;
        s.pqk = 4;
        s.pv = 3;
        Variant c = makeVariant(s, random);
        if (k.rotary)
            c.d.rotary = engine::RotaryPositions{10000.0, 0};
        if (k.alibi) {
            c.d.scoreBias.emplace();
            for (int h = 0; h < k.heads; ++h)
                c.d.scoreBias->slopes.push_back(std::pow(2.0f, -8.0f * (h + 1) / k.heads));
        }
        c.d.mask.causal = k.causal;
        const std::string label = "H=" + std::to_string(k.heads) +
            " Hkv=" + std::to_string(k.kvHeads) + (k.rotary ? " rotary" : "") +
            (k.alibi ? " alibi" : "") + (k.causal ? " causal" : "");

        AttentionDescription plainDescription = c.d;
        plainDescription.keyValueHeads = k.heads;
        const MultiHeadAttention grouped(c.w, c.d);
        const MultiHeadAttention plain(repeatKeyValues(c.w, c.d), plainDescription);
        for (const engine::AttentionPath on : kEveryPath) {
            const AttentionTrace g = grouped.forward(c.query, c.key, c.value, {}, onPath(on));
            const AttentionTrace p = plain.forward(c.query, c.key, c.value, {}, onPath(on));
            const std::string path = label + " (" + pathName(on) + ")";
            EXPECT_EQ(g.kHeads.dim(1), k.kvHeads) << path;
            EXPECT_EQ(p.kHeads.dim(1), k.heads) << path;
            for (AttentionStep step :
                 {AttentionStep::QProj, AttentionStep::QHeads, AttentionStep::QRotated,
                  AttentionStep::Scores, AttentionStep::Scaled, AttentionStep::Biased,
                  AttentionStep::Masked, AttentionStep::Weights, AttentionStep::Context,
                  AttentionStep::Concat, AttentionStep::Output})
                EXPECT_TRUE(tensorsNear(g.step(step), p.step(step))) << path << ", " << name(step);
            // The repeated module's K/V head h is the grouped module's K/V head h / (H / H_kv).
            for (std::int64_t b = 0; b < 2; ++b)
                for (int h = 0; h < k.heads; ++h) {
                    const int kv = h / (k.heads / k.kvHeads);
                    EXPECT_TRUE(g.kHeads.matrix({b, kv}).isApprox(p.kHeads.matrix({b, h}), 1e-6f))
                        << path << ", k_heads of head " << h;
                    EXPECT_TRUE(g.vHeads.matrix({b, kv}).isApprox(p.vHeads.matrix({b, h}), 1e-6f))
                        << path << ", v_heads of head " << h;
                    if (k.rotary) {
                        EXPECT_TRUE(
                            g.kRotated.matrix({b, kv}).isApprox(p.kRotated.matrix({b, h}), 1e-6f))
                            << path << ", k_rotated of head " << h;
                    }
                }
        }
    }
}

TEST_F(AttentionVariants, RotaryScoresDependOnlyOnRelativePosition)
{
    std::mt19937 random(31);
    for (const int rotated : {0, 2, 4}) {
        for (const double theta : {10.0, 10000.0, 1e6}) {
            CaseShape s = variantShape();
            s.batch = 2;
            s.queries = 6;
            s.keys = 8;
            s.heads = 4;
            s.kvHeads = 2;
            s.pqk = 6;
            Variant c = makeVariant(s, random);
            c.d.rotary = engine::RotaryPositions{theta, rotated};
            c.d.mask.causal = true;
            c.positions.query = randomPositions(s.batch * s.queries, 50, random);
            c.positions.key = randomPositions(s.batch * s.keys, 50, random);
            const MultiHeadAttention m = c.module();
            const AttentionTrace base = m.forward(c.query, c.key, c.value, {}, c.options());
            for (const std::int64_t offset : {std::int64_t{1}, std::int64_t{17}, std::int64_t{1000},
                                              std::int64_t{123457}, std::int64_t{1} << 30}) {
                Variant shifted = c;
                for (auto& p : shifted.positions.query)
                    p += offset;
                for (auto& p : shifted.positions.key)
                    p += offset;
                const AttentionTrace t = m.forward(c.query, c.key, c.value, {}, shifted.options());
                const std::string label = "rotated " + std::to_string(rotated) + ", theta " +
                    std::to_string(theta) + ", offset " + std::to_string(offset);
                EXPECT_FALSE(tensorsNear(t.qRotated, base.qRotated)) << label << ": q moved";
                for (AttentionStep step :
                     {AttentionStep::Scores, AttentionStep::Scaled, AttentionStep::Masked,
                      AttentionStep::Weights, AttentionStep::Context, AttentionStep::Output})
                    EXPECT_TRUE(tensorsNear(t.step(step), base.step(step), 1e-4, 1e-3))
                        << label << ", " << name(step);
            }
            // Not vacuous: moving the queries alone changes the scores.
            Variant queriesOnly = c;
            for (auto& p : queriesOnly.positions.query)
                p += 3;
            const AttentionTrace moved =
                m.forward(c.query, c.key, c.value, {}, queriesOnly.options());
            EXPECT_FALSE(tensorsNear(moved.scores, base.scores, 1e-3, 1e-3))
                << "rotated " << rotated << ", theta " << theta;
        }
    }
}

TEST_F(AttentionVariants, RotaryTurnsPairsByPositionTimesFrequency)
{
    // One head of four features, all rotated (pairs (0, 2) and (1, 3)); q = identity rows so that
    // the rotated query is the rotation itself.
    CaseShape s = variantShape();
    s.queries = 1;
    s.keys = 1;
    s.dq = s.dk = s.dv = 4;
    s.heads = s.kvHeads = 1;
    s.pqk = 4;
    s.pv = 1;
    s.po = 1;
    s.bias = false;
    std::mt19937 random(1);
    Variant c = makeVariant(s, random);
    c.w.wQ = RowMatrix::Identity(4, 4);
    c.d.rotary = engine::RotaryPositions{100.0, 0};
    std::fill(c.query.values().begin(), c.query.values().end(), 0.0f);
    c.query.data()[0] = 1.0f; // feature 0 = 1: turns into (cos a, 0, sin a, 0)
    c.query.data()[1] = 2.0f; // feature 1 = 2: turns by a / 10 (θ^(−2/4) = 0.1)
    c.positions.query = {7};
    const AttentionTrace t = c.module().forward(c.query, c.key, c.value, {}, c.options());
    const double a = 7.0, b = 0.7;
    EXPECT_NEAR(t.qRotated.at({0, 0, 0, 0}), std::cos(a), 1e-6);
    EXPECT_NEAR(t.qRotated.at({0, 0, 0, 2}), std::sin(a), 1e-6);
    EXPECT_NEAR(t.qRotated.at({0, 0, 0, 1}), 2 * std::cos(b), 1e-6);
    EXPECT_NEAR(t.qRotated.at({0, 0, 0, 3}), 2 * std::sin(b), 1e-6);
    // A rotated size of 2 turns the pair (0, 1) only, by the full angle, and passes 2 and 3 on.
    c.d.rotary->rotatedSize = 2;
    const AttentionTrace partial = c.module().forward(c.query, c.key, c.value, {}, c.options());
    EXPECT_NEAR(partial.qRotated.at({0, 0, 0, 0}), std::cos(a) - 2 * std::sin(a), 1e-5);
    EXPECT_NEAR(partial.qRotated.at({0, 0, 0, 1}), 2 * std::cos(a) + std::sin(a), 1e-5);
    EXPECT_EQ(partial.qRotated.at({0, 0, 0, 2}), 0.0f);
    EXPECT_EQ(partial.qRotated.at({0, 0, 0, 3}), 0.0f);
}

TEST_F(AttentionVariants, AlibiSlopesAreBloomsForAnyHeadCount)
{
    // Press et al. 2022 for a power of two, and BLOOM's build_alibi_tensor beyond it: the
    // slopes of the largest power of two below H, then every other slope of twice as many.
    const std::pair<int, std::vector<double>> expected[] = {
        {1, {0.00390625}},
        {4, {0.25, 0.0625, 0.015625, 0.00390625}},
        {6, {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125}},
        {8, {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625}},
    };
    for (const auto& [heads, slopes] : expected) {
        const std::vector<float> got = engine::ScoreBias::geometric(heads).slopes;
        ASSERT_EQ(got.size(), slopes.size()) << heads;
        for (std::size_t h = 0; h < got.size(); ++h)
            EXPECT_FLOAT_EQ(got[h], static_cast<float>(slopes[h])) << heads << " heads, " << h;
    }
    const std::vector<float> twelve = engine::ScoreBias::geometric(12).slopes;
    ASSERT_EQ(twelve.size(), 12u);
    EXPECT_FLOAT_EQ(twelve[8], std::pow(2.0f, -0.5f)); // 2^(-8/16), the first extra one
    EXPECT_FLOAT_EQ(twelve[11], std::pow(2.0f, -3.5f));
}

TEST_F(AttentionVariants, SlidingWindowAsLongAsTheInputIsPlainCausal)
{
    std::mt19937 random(5);
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{9}, std::int64_t{70}}) {
        CaseShape s = variantShape();
        s.batch = 2;
        s.queries = s.keys = n;
        s.heads = 4;
        s.kvHeads = 2;
        s.pqk = 4;
        Variant c = makeVariant(s, random);
        c.d.rotary = engine::RotaryPositions{10000.0, 2};
        c.d.mask.causal = true;
        for (const engine::AttentionPath path : kEveryPath) {
            const AttentionTrace causal =
                c.module().forward(c.query, c.key, c.value, {}, onPath(path));
            for (const std::int64_t window : {n, n + 1, n + 64, std::int64_t{1} << 40}) {
                AttentionDescription d = c.d;
                d.mask.slidingWindow = window;
                const MultiHeadAttention m(c.w, d);
                const AttentionTrace t = m.forward(c.query, c.key, c.value, {}, onPath(path));
                for (AttentionStep step : engine::kAttentionSteps)
                    EXPECT_TRUE(bitIdentical(t.step(step), causal.step(step)))
                        << "N=" << n << " W=" << window << ", " << pathName(path) << ", "
                        << name(step);
            }
        }
    }
}

TEST_F(AttentionVariants, SlidingWindowOfOneKeySeesOnlyItself)
{
    std::mt19937 random(6);
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{7}, std::int64_t{70}}) {
        CaseShape s = variantShape();
        s.batch = 2;
        s.queries = s.keys = n;
        s.heads = 6;
        s.kvHeads = 3;
        s.pqk = 4;
        Variant c = makeVariant(s, random);
        c.d.mask.causal = true;
        c.d.mask.slidingWindow = 1;
        c.d.scoreBias.emplace();
        c.d.scoreBias->slopes.assign(6, 0.5f);
        const MultiHeadAttention m = c.module();
        for (const engine::AttentionPath path : kEveryPath) {
            const AttentionTrace t = m.forward(c.query, c.key, c.value, {}, onPath(path));
            EXPECT_TRUE(t.fullyMaskedRows.empty());
            for (std::int64_t b = 0; b < 2; ++b)
                for (int h = 0; h < 6; ++h) {
                    EXPECT_EQ(t.weights.matrix({b, h}), RowMatrix::Identity(n, n))
                        << "N=" << n << " head " << h << ", " << pathName(path);
                    EXPECT_TRUE(
                        t.context.matrix({b, h}).isApprox(t.vHeads.matrix({b, h / 2}), 1e-6f))
                        << "N=" << n << " head " << h << ", " << pathName(path);
                }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Impossible descriptions and inputs.

struct Refusal {
    std::string type; // "InputError", "another exception" or "none"
    std::string message;
};

Refusal refusal(const std::function<void()>& run)
{
    try {
        run();
    } catch (const InputError& e) {
        return {"InputError", e.what()};
    } catch (const std::exception& e) {
        return {"another exception", e.what()};
    }
    return {"none", ""};
}

void expectRefused(const Refusal& r, const std::string& fragment, const std::string& what)
{
    EXPECT_EQ(r.type, "InputError") << what << ": " << r.message;
    EXPECT_THAT(r.message, HasSubstr(fragment)) << what;
    EXPECT_EQ(r.message.find('\n'), std::string::npos) << what << ": not one line: " << r.message;
    EXPECT_FALSE(r.message.empty()) << what;
}

Variant validVariant()
{
    std::mt19937 random(2);
    CaseShape s = variantShape();
    s.batch = 2;
    s.queries = 3;
    s.keys = 5;
    s.heads = 4;
    s.kvHeads = 2;
    s.pqk = 4;
    s.pv = 3;
    Variant c = makeVariant(s, random);
    c.d.rotary = engine::RotaryPositions{10000.0, 0};
    return c;
}

bool sameShapes(const AttentionWeights& a, const AttentionWeights& b)
{
    const auto same = [](const RowMatrix& x, const RowMatrix& y) {
        return x.rows() == y.rows() && x.cols() == y.cols();
    };
    const auto sameBias = [](const std::optional<Eigen::RowVectorXf>& x,
                             const std::optional<Eigen::RowVectorXf>& y) {
        return x.has_value() == y.has_value() && (!x || x->size() == y->size());
    };
    return same(a.wQ, b.wQ) && same(a.wK, b.wK) && same(a.wV, b.wV) && same(a.wO, b.wO) &&
        sameBias(a.bQ, b.bQ) && sameBias(a.bK, b.bK) && sameBias(a.bV, b.bV) &&
        sameBias(a.bO, b.bO) && sameBias(a.qNorm, b.qNorm) && sameBias(a.kNorm, b.kNorm) &&
        sameBias(a.sinks, b.sinks);
}

TEST_F(AttentionVariants, ImpossibleDescriptionsAreRefusedWithOneSentence)
{
    struct Bad {
        std::string what;
        std::function<void(Variant&)> edit;
        std::string fragment;
    };
    const Bad bad[] = {
        {"K/V heads that do not divide the query heads", [](Variant& c) { c.d.keyValueHeads = 3; },
         "3 K/V heads for 4 query heads"},
        {"no K/V heads", [](Variant& c) { c.d.keyValueHeads = 0; }, "K/V heads"},
        {"more K/V heads than query heads", [](Variant& c) { c.d.keyValueHeads = 8; },
         "8 K/V heads"},
        {"no query heads", [](Variant& c) { c.d.queryHeads = 0; }, "0 query heads"},
        {"an odd rotated size", [](Variant& c) { c.d.rotary->rotatedSize = 3; },
         "rotary positions turn 3 features"},
        {"a rotated size beyond the head", [](Variant& c) { c.d.rotary->rotatedSize = 6; },
         "turn 6 features of a head of 4"},
        {"an odd head with the whole head rotated",
         [](Variant& c) {
             c.d.queryKeySize = 3;
             c.w.wQ = RowMatrix::Ones(12, c.w.wQ.cols());
             c.w.wK = RowMatrix::Ones(6, c.w.wK.cols());
             c.w.bQ.reset();
             c.w.bK.reset();
         },
         "turn 3 features of a head of 3"},
        {"a window without a causal mask", [](Variant& c) { c.d.mask.slidingWindow = 4; },
         "a sliding window needs a causal mask"},
        {"a window of 0",
         [](Variant& c) {
             c.d.mask.causal = true;
             c.d.mask.slidingWindow = 0;
         },
         "sliding_window is 0"},
        {"a negative window",
         [](Variant& c) {
             c.d.mask.causal = true;
             c.d.mask.slidingWindow = -3;
         },
         "sliding_window is -3"},
        {"θ NaN", [](Variant& c) { c.d.rotary->theta = std::nan(""); }, "rope_theta is"},
        {"θ +∞", [](Variant& c) { c.d.rotary->theta = INFINITY; }, "rope_theta is"},
        {"θ −∞", [](Variant& c) { c.d.rotary->theta = -INFINITY; }, "rope_theta is"},
        {"θ 0", [](Variant& c) { c.d.rotary->theta = 0; }, "rope_theta is 0"},
        {"θ −1", [](Variant& c) { c.d.rotary->theta = -1; }, "rope_theta is -1"},
        {"too few slopes",
         [](Variant& c) {
             c.d.scoreBias = engine::ScoreBias{{0.5f, 0.25f, 0.1f}};
         },
         "3 slopes; expected one per query head, 4"},
        {"too many slopes",
         [](Variant& c) { c.d.scoreBias = engine::ScoreBias{std::vector<float>(5, 0.5f)}; },
         "5 slopes"},
        {"one slope per K/V head",
         [](Variant& c) {
             c.d.scoreBias = engine::ScoreBias{{0.5f, 0.25f}};
         },
         "2 slopes"},
        {"no slopes", [](Variant& c) { c.d.scoreBias = engine::ScoreBias{}; }, "0 slopes"},
        {"a NaN slope",
         [](Variant& c) {
             c.d.scoreBias = engine::ScoreBias{{0.5f, NAN, 0.1f, 0.2f}};
         },
         "slope"},
        {"w_k with a row per query head",
         [](Variant& c) {
             c.w.wK = RowMatrix::Ones(16, c.w.wK.cols());
             c.w.bK.reset();
         },
         "w_k has 16 rows; expected 8"},
        {"w_k with too few rows",
         [](Variant& c) {
             c.w.wK = RowMatrix::Ones(4, c.w.wK.cols());
             c.w.bK.reset();
         },
         "w_k has 4 rows"},
        {"w_v with a row per query head",
         [](Variant& c) {
             c.w.wV = RowMatrix::Ones(12, c.w.wV.cols());
             c.w.bV.reset();
         },
         "w_v has 12 rows; expected 6"},
        {"w_o reading the K/V heads only",
         [](Variant& c) { c.w.wO = RowMatrix::Ones(c.w.wO.rows(), 6); },
         "w_o has 6 columns; expected 12"},
        {"b_k of the query heads' length",
         [](Variant& c) { c.w.bK = Eigen::RowVectorXf::Ones(16); }, "b_k has 16 values"},
        {"a zero scale", [](Variant& c) { c.d.scoreScale = 0.0; }, "score_scale is 0"},
        {"a NaN scale", [](Variant& c) { c.d.scoreScale = NAN; }, "score_scale is"},
        {"a negative scale", [](Variant& c) { c.d.scoreScale = -0.125; }, "score_scale is -0.125"},
        {"an infinite scale", [](Variant& c) { c.d.scoreScale = INFINITY; }, "score_scale is"},
        {"a zero cap", [](Variant& c) { c.d.logitSoftCap = 0.0; }, "attn_logit_softcapping is 0"},
        {"a negative cap", [](Variant& c) { c.d.logitSoftCap = -30.0; },
         "attn_logit_softcapping is -30"},
        {"a NaN cap", [](Variant& c) { c.d.logitSoftCap = NAN; }, "attn_logit_softcapping is"},
        {"an infinite cap", [](Variant& c) { c.d.logitSoftCap = INFINITY; },
         "attn_logit_softcapping is"},
        {"QK-norm without its gains", [](Variant& c) { c.d.queryKeyNorm = engine::QueryKeyNorm{}; },
         "qk_norm is per_head but q_norm is missing; expected 4 values"},
        {"a per-head gain of the whole projection's length",
         [](Variant& c) {
             c.d.queryKeyNorm = engine::QueryKeyNorm{};
             c.w.qNorm = Eigen::RowVectorXf::Ones(16);
             c.w.kNorm = Eigen::RowVectorXf::Ones(4);
         },
         "q_norm has 16 values; expected 4"},
        {"a whole-projection k gain of the query heads' length",
         [](Variant& c) {
             c.d.queryKeyNorm = engine::QueryKeyNorm{engine::QueryKeyNorm::Scope::WholeProjection};
             c.w.qNorm = Eigen::RowVectorXf::Ones(16);
             c.w.kNorm = Eigen::RowVectorXf::Ones(16);
         },
         "k_norm has 16 values; expected 8 (2 heads of 4, the whole projection)"},
        {"gains without QK-norm",
         [](Variant& c) {
             c.w.qNorm = Eigen::RowVectorXf::Ones(4);
             c.w.kNorm = Eigen::RowVectorXf::Ones(4);
         },
         "no qk_norm"},
        {"a norm's epsilon of 0",
         [](Variant& c) {
             c.d.queryKeyNorm = engine::QueryKeyNorm{};
             c.d.queryKeyNorm->epsilon = 0;
             c.w.qNorm = c.w.kNorm = Eigen::RowVectorXf::Ones(4);
         },
         "qk_norm_eps is 0"},
        {"sinks without their logits", [](Variant& c) { c.d.learnedSinks = true; },
         "learned sinks but no sinks; expected 4 values"},
        {"a sink per K/V head",
         [](Variant& c) {
             c.d.learnedSinks = true;
             c.w.sinks = Eigen::RowVectorXf::Zero(2);
         },
         "sinks has 2 values; expected 4"},
        {"sink logits without sinks", [](Variant& c) { c.w.sinks = Eigen::RowVectorXf::Zero(4); },
         "no learned sinks"},
        {"a head of size 0", [](Variant& c) { c.d.valueSize = 0; }, "size 0"},
    };
    for (const Bad& b : bad) {
        Variant c = validVariant();
        b.edit(c);
        expectRefused(refusal([&] { MultiHeadAttention m(c.w, c.d); }), b.fragment, b.what);
        // The same description handed to an existing module.
        const Variant good = validVariant();
        if (!(c.d == good.d) && sameShapes(c.w, good.w))
            expectRefused(refusal([&] { (void)good.module().describedAs(c.d); }), b.fragment,
                          b.what + " (describedAs)");
    }
    // And the valid one runs.
    const Variant c = validVariant();
    EXPECT_EQ(refusal([&] { (void)c.module().forward(c.query, c.key, c.value); }).type, "none");
}

TEST_F(AttentionVariants, ANegativeRotatedSizeIsRefused)
{
    // rotatedSize 0 means the whole head; a negative one is no number of features.
    for (const int rotated : {-2, -3}) {
        Variant c = validVariant();
        c.d.rotary->rotatedSize = rotated;
        expectRefused(refusal([&] { MultiHeadAttention m(c.w, c.d); }), "rotary",
                      "rotated size " + std::to_string(rotated));
    }
}

TEST_F(AttentionVariants, AWindowOfTheCallNeedsACausalMaskAndAKey)
{
    const Variant c = validVariant();
    AttentionMask noCausal;
    noCausal.window = 2;
    expectRefused(refusal([&] { (void)c.module().forward(c.query, c.key, c.value, noCausal); }),
                  "a sliding window needs a causal mask", "a window without a causal mask");
    for (const std::int64_t window : {0, -1}) {
        AttentionMask bad;
        bad.causal = true;
        bad.window = window;
        expectRefused(refusal([&] { (void)c.module().forward(c.query, c.key, c.value, bad); }),
                      "sliding_window is " + std::to_string(window),
                      "a window of " + std::to_string(window));
    }
    // The module's causal mask is enough for the call's window, and the narrower window wins.
    Variant causal = validVariant();
    causal.d.mask.causal = true;
    causal.d.mask.slidingWindow = 3;
    AttentionMask narrower;
    narrower.window = 1;
    const AttentionTrace t =
        causal.module().forward(causal.query, causal.key, causal.value, narrower);
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 4; ++h)
            for (std::int64_t i = 0; i < 3; ++i)
                for (std::int64_t j = 0; j < 5; ++j)
                    EXPECT_EQ(t.weights.at({b, h, i, j}), i == j ? 1.0f : 0.0f);
}

TEST_F(AttentionVariants, PositionsThatDoNotFitAreRefused)
{
    const Variant valid = validVariant(); // B = 2, Nq = 3, Nk = 5
    struct Bad {
        std::string what;
        std::function<void(TokenPositions&)> edit;
        std::string fragment;
    };
    const Bad bad[] = {
        {"one query position short",
         [](TokenPositions& p) {
             p.query = {0, 1, 2, 0, 1};
         },
         "query_positions holds 5 positions; expected 6"},
        {"query positions of one batch item only",
         [](TokenPositions& p) {
             p.query = {0, 1, 2};
         },
         "query_positions holds 3 positions"},
        {"a query position too many", [](TokenPositions& p) { p.query = {0, 1, 2, 3, 4, 5, 6}; },
         "query_positions holds 7"},
        {"key positions of the queries' count",
         [](TokenPositions& p) { p.key = {0, 1, 2, 0, 1, 2}; },
         "key_positions holds 6 positions; expected 10"},
        {"a negative query position", [](TokenPositions& p) { p.query = {0, 1, 2, 3, -1, 5}; },
         "query_positions holds position -1"},
        {"a negative key position",
         [](TokenPositions& p) { p.key = {0, 1, 2, 3, 4, 5, 6, 7, 8, -9}; },
         "key_positions holds position -9"},
        {"a position beyond the largest",
         [](TokenPositions& p) { p.key = std::vector<std::int64_t>(10, engine::kMaxPosition + 1); },
         "key_positions holds position " + std::to_string(engine::kMaxPosition + 1)},
    };
    for (const Bad& b : bad) {
        for (bool alibi : {false, true}) {
            Variant c = valid;
            if (alibi)
                c.d.scoreBias = engine::ScoreBias{{0.5f, 0.25f, 0.125f, 0.0625f}};
            b.edit(c.positions);
            const MultiHeadAttention m = c.module();
            const std::string what = b.what + (alibi ? " (with ALiBi)" : "");
            // A trace filled by a valid run is left as it was.
            AttentionTrace trace = m.forward(valid.query, valid.key, valid.value);
            const AttentionTrace before = trace;
            expectRefused(
                refusal([&] { m.forward(c.query, c.key, c.value, c.mask, trace, c.options()); }),
                b.fragment, what + " (forward)");
            for (AttentionStep step : engine::kAttentionSteps)
                EXPECT_TRUE(bitIdentical(trace.step(step), before.step(step)))
                    << what << ": step " << name(step) << " was touched before the error";
            for (const engine::AttentionPath path : kEveryPath)
                expectRefused(refusal([&] {
                                  (void)m.forward(c.query, c.key, c.value, c.mask, c.options(path));
                              }),
                              b.fragment, what + " (" + pathName(path) + ")");
            expectRefused(refusal([&] {
                              AttentionTrace t = m.forward(valid.query, valid.key, valid.value);
                              m.rerunStagesFrom(engine::AttentionStage::Scores, c.query, c.key,
                                                c.value, c.mask, c.options(), t, {});
                          }),
                          b.fragment, what + " (rerunStagesFrom)");
        }
    }
    // The largest position is accepted.
    Variant c = valid;
    c.positions.key.assign(10, engine::kMaxPosition);
    EXPECT_EQ(refusal([&] {
                  (void)c.module().forward(c.query, c.key, c.value, c.mask, c.options());
              }).type,
              "none");
}

} // namespace
} // namespace attnviz::test
