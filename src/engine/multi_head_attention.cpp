#include "engine/multi_head_attention.h"

#include "engine/attention_passes.h"
#include "engine/input_error.h"
#include "engine/resolved_mask.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attnviz::engine {
namespace {

std::string str(Eigen::Index v)
{
    return std::to_string(v);
}

std::string shapeOf(const RowMatrix& m)
{
    return shapeText(std::vector<std::int64_t>{m.rows(), m.cols()});
}

void checkBias(const std::optional<Eigen::RowVectorXf>& bias, const char* name, Eigen::Index size,
               const char* what)
{
    if (bias && bias->size() != size)
        throw InputError(std::string(name) + " has " + str(bias->size()) + " values; expected " +
                         str(size) + " (" + what + ")");
}

void checkInput(const Tensor& t, const char* name, const char* tokens, const char* width,
                Eigen::Index expectedWidth, const char* weight)
{
    if (t.rank() != 3)
        throw InputError(std::string(name) + " has " + std::to_string(t.rank()) +
                         " dimensions; expected 3 [B, " + tokens + ", " + width + "]");
    for (std::size_t a = 0; a < 3; ++a)
        if (t.dim(a) == 0)
            throw InputError(std::string(name) + " has a zero-sized dimension " +
                             std::to_string(a) + "; every dimension must be at least 1");
    if (t.dim(2) != expectedWidth)
        throw InputError(std::string(name) + " has width " + std::to_string(t.dim(2)) +
                         "; expected " + str(expectedWidth) + " to match the columns of " + weight);
}

// Drops the steps `keep` does not ask for (the output always stays) and those the module has
// not: everything up to the concatenation is needed to compute, not to keep.
void dropUnkept(const AttentionKeep& keep, AttentionTrace& t)
{
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if ((!keep.has(info.step) && info.step != AttentionStep::Output) ||
            !stepPresent(info.step, t.description))
            t.step(info.step) = Tensor();
}

// `fresh` appended to `cached` along axis `keyAxis` (the key axis of a cached step: a projection's
// tokens, a head's keys); an empty `cached` becomes a copy of `fresh`.
void appendKeys(Tensor& cached, const Tensor& fresh, std::size_t keyAxis)
{
    if (cached.rank() == 0) {
        cached = fresh;
        return;
    }
    std::vector<Axis> axes = cached.axes();
    const std::int64_t n = axes[keyAxis].size, m = fresh.dim(keyAxis);
    axes[keyAxis].size = n + m;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t a = 0; a < keyAxis; ++a)
        outer *= axes[a].size;
    for (std::size_t a = keyAxis + 1; a < axes.size(); ++a)
        inner *= axes[a].size;
    Tensor grown(axes);
    for (std::int64_t o = 0; o < outer; ++o) {
        std::copy_n(cached.data() + o * n * inner, n * inner, grown.data() + o * (n + m) * inner);
        std::copy_n(fresh.data() + o * m * inner, m * inner,
                    grown.data() + (o * (n + m) + n) * inner);
    }
    cached = std::move(grown);
}

std::vector<std::int64_t> positionsFrom(std::int64_t first, std::int64_t count)
{
    std::vector<std::int64_t> p(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        p[static_cast<std::size_t>(i)] = first + i;
    return p;
}

std::string expectedRows(const char* what, Eigen::Index rows, const std::string& why)
{
    return std::string(what) + " has " + str(rows) + " rows; expected " + why;
}

} // namespace

MultiHeadAttention::MultiHeadAttention(AttentionWeights weights, AttentionDescription description)
    : m_weights(std::move(weights))
    , m_description(std::move(description))
{
    const AttentionWeights& w = m_weights;
    const AttentionDescription& d = m_description;
    const std::pair<const RowMatrix*, const char*> all[] = {
        {&w.wQ, "w_q"}, {&w.wK, "w_k"}, {&w.wV, "w_v"}, {&w.wO, "w_o"}};
    for (const auto& [m, name] : all)
        if (m->rows() == 0 || m->cols() == 0)
            throw InputError(std::string(name) + " has shape " + shapeOf(*m) +
                             "; every dimension must be at least 1");
    checkDescription(d);
    const std::int64_t H = d.queryHeads, Hkv = d.keyValueHeads, Pqk = d.queryKeySize,
                       Pv = d.valueSize;
    if (w.wQ.rows() != H * Pqk)
        throw InputError(
            expectedRows("w_q", w.wQ.rows(),
                         str(H * Pqk) + " (" + str(H) + " query heads of " + str(Pqk) + ")"));
    if (w.wK.rows() != Hkv * Pqk)
        throw InputError(expectedRows(
            "w_k", w.wK.rows(),
            Hkv == H ? str(w.wQ.rows()) + " like w_q, since queries and keys meet in a dot product"
                     : str(Hkv * Pqk) + " (" + str(Hkv) + " K/V heads of " + str(Pqk) +
                    ", the query heads' size, since queries and keys meet in a dot product)"));
    if (w.wV.rows() != Hkv * Pv)
        throw InputError(expectedRows(
            "w_v", w.wV.rows(), str(Hkv * Pv) + " (" + str(Hkv) + " heads of " + str(Pv) + ")"));
    if (w.wO.cols() != H * Pv)
        throw InputError("w_o has " + str(w.wO.cols()) + " columns; expected " + str(H * Pv) +
                         (Hkv == H ? std::string(" (the rows of w_v, all heads concatenated)")
                                   : " (" + str(H) + " query heads' contexts of " + str(Pv) +
                                  ", concatenated)"));
    checkBias(w.bQ, "b_q", w.wQ.rows(), "the rows of w_q");
    checkBias(w.bK, "b_k", w.wK.rows(), "the rows of w_k");
    checkBias(w.bV, "b_v", w.wV.rows(), "the rows of w_v");
    checkBias(w.bO, "b_o", w.wO.rows(), "the rows of w_o");
    if (d.queryKeyNorm) {
        const bool perHead = d.queryKeyNorm->scope == QueryKeyNorm::Scope::PerHead;
        const std::string scope = queryKeyNormScopeName(d.queryKeyNorm->scope);
        for (const auto& [gain, name, heads] :
             {std::tuple{&w.qNorm, "q_norm", H}, std::tuple{&w.kNorm, "k_norm", Hkv}}) {
            const std::int64_t expected = perHead ? Pqk : heads * Pqk;
            const std::string why = perHead
                ? " (one gain per feature of a head, shared by every head)"
                : " (" + str(heads) + " heads of " + str(Pqk) + ", the whole projection)";
            if (!*gain)
                throw InputError(std::string("qk_norm is ") + scope + " but " + name +
                                 " is missing; expected " + str(expected) + " values" + why);
            if ((*gain)->size() != expected)
                throw InputError(std::string(name) + " has " + str((*gain)->size()) +
                                 " values; expected " + str(expected) + why);
        }
    } else if (w.qNorm || w.kNorm) {
        throw InputError("the module has q_norm or k_norm but no qk_norm; expected qk_norm "
                         "\"per_head\" or \"whole_projection\" to say how they apply");
    }
    if (d.learnedSinks && !w.sinks)
        throw InputError("the module has learned sinks but no sinks; expected " + str(H) +
                         " values, one sink logit per query head");
    if (!d.learnedSinks && w.sinks)
        throw InputError("the module has sinks but its description has no learned sinks");
    if (w.sinks && w.sinks->size() != H)
        throw InputError("sinks has " + str(w.sinks->size()) + " values; expected " + str(H) +
                         ", one sink logit per query head");
}

MultiHeadAttention MultiHeadAttention::describedAs(AttentionDescription description) const
{
    return MultiHeadAttention(m_weights, std::move(description));
}

AttentionMask MultiHeadAttention::maskInForce(const AttentionMask& mask) const
{
    return mask.combinedWith(m_description.mask.causal, m_description.mask.slidingWindow);
}

AttentionMask MultiHeadAttention::checkInputs(const Tensor& query, const Tensor& key,
                                              const Tensor& value, const AttentionMask& mask,
                                              const AttentionOptions& options) const
{
    checkInput(query, "query", "Nq", "Dq", queryInputSize(), "w_q");
    checkInput(key, "key", "Nk", "Dk", keyInputSize(), "w_k");
    checkInput(value, "value", "Nk", "Dv", valueInputSize(), "w_v");
    const std::int64_t B = query.dim(0), Nq = query.dim(1), Nk = key.dim(1);
    if (key.dim(0) != B)
        throw InputError("key has batch size " + str(key.dim(0)) + "; expected " + str(B) +
                         " like query");
    if (value.dim(0) != B)
        throw InputError("value has batch size " + str(value.dim(0)) + "; expected " + str(B) +
                         " like query");
    if (value.dim(1) != Nk)
        throw InputError("value has " + str(value.dim(1)) + " tokens; expected " + str(Nk) +
                         " like key, since each key has one value");
    AttentionMask inForce = maskInForce(mask);
    const ResolvedMask check(inForce, B, Nq, Nk); // throws when the mask does not fit
    const std::int64_t H = numHeads();
    for (const int h : options.ablatedHeads)
        if (h < 0 || h >= H)
            throw InputError("head " + std::to_string(h) +
                             " cannot be switched off; the module has heads 0–" + str(H - 1));
    const auto checkPositions = [](const std::vector<std::int64_t>& p, const char* name,
                                   std::int64_t expected, const char* shape) {
        if (p.empty())
            return;
        if (static_cast<std::int64_t>(p.size()) != expected)
            throw InputError(std::string(name) + " holds " + str(std::ssize(p)) +
                             " positions; expected " + str(expected) + " " + shape);
        for (const std::int64_t v : p)
            if (v < 0 || v > kMaxPosition)
                throw InputError(std::string(name) + " holds position " + str(v) +
                                 "; expected 0 to " + str(kMaxPosition));
    };
    checkPositions(options.positions.query, "query_positions", B * Nq, "([B, Nq])");
    checkPositions(options.positions.key, "key_positions", B * Nk, "([B, Nk])");
    return inForce;
}

void MultiHeadAttention::startTrace(const Tensor& query, const Tensor& key,
                                    const AttentionOptions& options, AttentionTrace& t) const
{
    t.description = m_description;
    t.sizes = {query.dim(0),       numHeads(),
               query.dim(1),       key.dim(1),
               numKeyValueHeads(), queryKeySize(),
               valueSize(),        m_description.onlineSoftmaxTiles(key.dim(1))};
    t.ablatedHeads = options.ablatedHeads;
}

void MultiHeadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const AttentionMask& mask, AttentionTrace& t,
                                 const AttentionOptions& options) const
{
    const AttentionMask inForce = checkInputs(query, key, value, mask, options);
    const ResolvedMask resolved(inForce, query.dim(0), query.dim(1), key.dim(1));
    const StageInputs in{m_description,     m_weights,           query, key, value, resolved,
                         options.positions, options.ablatedHeads};
    startTrace(query, key, options, t);
    // Everything up to the concatenation is needed to compute; what is not kept is dropped at
    // the end.
    runPass(resolvedPath(options.path, in), AttentionStage::Project, in, options.keep, t);
    dropUnkept(options.keep, t);
}

void MultiHeadAttention::forwardWithCache(const Tensor& tokens, KeyValueCache& cache,
                                          AttentionTrace& t, const AttentionOptions& options) const
{
    const AttentionDescription& d = m_description;
    if (!d.mask.causal)
        throw InputError("a KV cache serves causal self-attention; without a causal mask a query "
                         "would read keys of tokens not yet read");
    if (queryInputSize() != keyInputSize() || queryInputSize() != valueInputSize())
        throw InputError("a KV cache serves self-attention; this module reads keys of width " +
                         str(keyInputSize()) + " and queries of width " + str(queryInputSize()));
    if (!options.positions.query.empty() || !options.positions.key.empty())
        throw InputError("a cached step takes its positions from the cache; expected none given");
    checkInput(tokens, "tokens", "m", "D", queryInputSize(), "w_q");
    if (tokens.dim(0) != 1)
        throw InputError("a KV cache holds one sequence; the tokens have batch size " +
                         str(tokens.dim(0)) + ", expected 1");
    const std::int64_t n = cache.tokens(), m = tokens.dim(1), N = n + m;
    if (n > 0) {
        const AttentionTrace& cached = cache.keys;
        bool fits = cached.description == d;
        for (const AttentionStepInfo& info : kAttentionStepTable)
            if (isKeySide(info.step))
                fits = fits && cached.has(info.step) == stepPresent(info.step, d);
        if (!fits)
            throw InputError("the KV cache was filled by a module of another shape; expected "
                             "the keys of " +
                             str(numKeyValueHeads()) + " K/V heads of " + str(queryKeySize()) +
                             (d.rotary ? ", turned" : ""));
    }
    if (N - 1 > kMaxPosition)
        throw InputError("the KV cache holds " + str(n) + " tokens; positions stop at " +
                         str(kMaxPosition));
    for (const int h : options.ablatedHeads)
        if (h < 0 || h >= numHeads())
            throw InputError("head " + std::to_string(h) +
                             " cannot be switched off; the module has heads 0–" +
                             str(numHeads() - 1));

    // The new tokens alone: the stages before the scores, at their own positions.
    const TokenPositions own{positionsFrom(n, m), positionsFrom(n, m)};
    const AttentionMask noMask; // the resolved mask refers to it
    const ResolvedMask none(noMask, 1, m, m);
    const StageInputs newTokens{d,      m_weights, tokens, tokens,
                                tokens, none,      own,    options.ablatedHeads};
    AttentionOptions fresh = options;
    fresh.positions = own;
    AttentionTrace step;
    startTrace(tokens, tokens, fresh, step);
    const AttentionPath path = resolvedPath(options.path, newTokens);
    runPass(path, AttentionStage::Project, newTokens, AttentionKeep::all(), step,
            AttentionStage::Scores);

    // The queries of the new tokens over every key read so far. The cache grows only once the
    // step has succeeded: a step refused for a value that is not finite leaves it as it was.
    const TokenPositions all{positionsFrom(n, m), positionsFrom(0, N)};
    AttentionMask offset;
    offset.queryOffset = n;
    const AttentionMask inForce = maskInForce(offset); // the resolved mask refers to it
    const ResolvedMask mask(inForce, 1, m, N);
    // The stages from the scores on read the keys' steps, not the keys: only their count.
    const Tensor everyKey({{"batch", 1}, {"key", N}, {"feature", 0}});
    const StageInputs in{d, m_weights, tokens, everyKey, everyKey, mask, all, options.ablatedHeads};
    KeyValueCache grown = cache;
    grown.keys.description = d;
    t.description = d;
    t.sizes = {1,
               numHeads(),
               m,
               N,
               numKeyValueHeads(),
               queryKeySize(),
               valueSize(),
               d.onlineSoftmaxTiles(N)};
    t.ablatedHeads = options.ablatedHeads;
    for (const AttentionStepInfo& info : kAttentionStepTable) {
        if (info.stage >= AttentionStage::Scores || !stepPresent(info.step, d))
            continue;
        if (isKeySide(info.step)) {
            appendKeys(grown.keys.step(info.step), step.step(info.step),
                       info.axes.starts_with("batch,head") ? 2 : 1);
            t.step(info.step) = grown.keys.step(info.step);
        } else {
            t.step(info.step) = std::move(step.step(info.step));
        }
    }
    runPass(path, AttentionStage::Scores, in, options.keep, t);
    cache = std::move(grown);
    dropUnkept(options.keep, t);
}

AttentionTrace MultiHeadAttention::forward(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const AttentionMask& mask,
                                           const AttentionOptions& options) const
{
    AttentionTrace trace;
    forward(query, key, value, mask, trace, options);
    return trace;
}

void MultiHeadAttention::rerunStagesFrom(AttentionStage from, const Tensor& query,
                                         const Tensor& key, const Tensor& value,
                                         const AttentionMask& mask, const AttentionOptions& options,
                                         AttentionTrace& trace,
                                         std::span<const StageReplacement> replacements) const
{
    const AttentionMask inForce = checkInputs(query, key, value, mask, options);
    const ResolvedMask resolved(inForce, query.dim(0), query.dim(1), key.dim(1));
    const StageInputs in{m_description,     m_weights,           query, key, value, resolved,
                         options.positions, options.ablatedHeads};
    const AttentionPath path = trace.path;
    startTrace(query, key, options, trace);
    rerunPass(path, from, in, replacements, trace);
}

} // namespace attnviz::engine
