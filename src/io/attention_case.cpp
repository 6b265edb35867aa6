#include "io/attention_case.h"

#include "engine/input_error.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>

namespace attnviz::io {
namespace {

using engine::Axis;
using engine::Tensor;

std::string quoted(std::string_view name)
{
    return "'" + std::string(name) + "'";
}

std::string multiIndex(std::int64_t flat, const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t a = shape.size(); a-- > 0;) {
        index[a] = flat % shape[a];
        flat /= shape[a];
    }
    return engine::shapeText(index);
}

/// What a tensor of the case must look like: its dtypes, its rank and the names of its axes.
struct Expectation {
    const char* name;
    std::vector<const char*> axes;
};

const TensorEntry& require(const SafetensorsFile& file, const Expectation& e)
{
    const TensorEntry* t = file.find(e.name);
    if (!t) {
        std::string axes;
        for (const char* a : e.axes)
            axes += (axes.empty() ? "" : ", ") + std::string(a);
        throw FormatError("tensor " + quoted(e.name) + " is missing; expected F32 [" + axes + "]");
    }
    return *t;
}

void checkRank(const TensorEntry& t, std::initializer_list<std::vector<const char*>> allowed)
{
    std::string alternatives;
    for (const auto& axes : allowed) {
        if (t.shape.size() == axes.size())
            return;
        std::string s;
        for (const char* a : axes)
            s += (s.empty() ? "" : ", ") + std::string(a);
        alternatives +=
            (alternatives.empty() ? "" : " or ") + std::to_string(axes.size()) + " [" + s + "]";
    }
    throw FormatError("tensor " + quoted(t.name) + " has " + std::to_string(t.shape.size()) +
                      " dimensions (shape " + t.shapeString() + "); expected " + alternatives);
}

void checkNotEmpty(const TensorEntry& t)
{
    for (std::size_t a = 0; a < t.shape.size(); ++a)
        if (t.shape[a] == 0)
            throw FormatError("tensor " + quoted(t.name) + " has a zero-sized dimension (shape " +
                              t.shapeString() + "); every dimension must be at least 1");
}

void checkDType(const TensorEntry& t, std::initializer_list<DType> allowed)
{
    std::string names;
    for (DType d : allowed) {
        if (t.dtype == d)
            return;
        names += (names.empty() ? "" : " or ") + std::string(dtypeName(d));
    }
    throw FormatError("tensor " + quoted(t.name) + " has dtype " + std::string(dtypeName(t.dtype)) +
                      "; expected " + names);
}

std::vector<float> finiteFloats(const TensorEntry& t)
{
    checkDType(t, {DType::F32});
    std::vector<float> values(static_cast<std::size_t>(t.elementCount()));
    std::memcpy(values.data(), t.bytes.data(), t.bytes.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw FormatError("tensor " + quoted(t.name) + " holds " +
                              (std::isnan(values[i]) ? "NaN"
                                   : values[i] > 0   ? "+Inf"
                                                     : "-Inf") +
                              " at index " + multiIndex(static_cast<std::int64_t>(i), t.shape) +
                              "; every input must be a finite number");
    return values;
}

Tensor loadSequence(const SafetensorsFile& file, const Expectation& e)
{
    const TensorEntry& t = require(file, e);
    checkDType(t, {DType::F32});
    checkRank(t, {e.axes});
    checkNotEmpty(t);
    Tensor tensor({{"batch", t.shape[0]}, {e.axes[1], t.shape[1]}, {"feature", t.shape[2]}});
    const std::vector<float> values = finiteFloats(t);
    std::copy(values.begin(), values.end(), tensor.data());
    return tensor;
}

engine::RowMatrix loadWeight(const SafetensorsFile& file, const Expectation& e)
{
    const TensorEntry& t = require(file, e);
    checkDType(t, {DType::F32});
    checkRank(t, {e.axes});
    checkNotEmpty(t);
    const std::vector<float> values = finiteFloats(t);
    return engine::ConstMatrixView(values.data(), t.shape[0], t.shape[1]);
}

std::optional<Eigen::RowVectorXf> loadBias(const SafetensorsFile& file, const char* name,
                                           const char* length)
{
    const TensorEntry* t = file.find(name);
    if (!t)
        return std::nullopt;
    checkDType(*t, {DType::F32});
    checkRank(*t, {{length}});
    checkNotEmpty(*t);
    const std::vector<float> values = finiteFloats(*t);
    return Eigen::Map<const Eigen::RowVectorXf>(values.data(), t->shape[0]);
}

// A metadata field that holds a whole number, as a JSON number or a string like "4"; nullopt
// when absent.
std::optional<std::int64_t> loadInteger(const JsonValue& metadata, const char* field,
                                        const char* example, std::int64_t low, std::int64_t high,
                                        const char* meaning)
{
    const JsonValue* value = metadata.find(field);
    if (!value)
        return std::nullopt;
    std::int64_t n = 0;
    bool ok = false;
    if (value->isInteger()) {
        n = value->asInteger();
        ok = true;
    } else if (value->isString()) {
        const std::string& s = value->asString();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        ok = ec == std::errc() && end == s.data() + s.size() && !s.empty();
    }
    if (!ok)
        throw FormatError("metadata field " + quoted(field) + " is " + value->describe() +
                          "; expected an integer such as \"" + example + "\"");
    if (n < low || n > high)
        throw FormatError("metadata field " + quoted(field) + " is " + std::to_string(n) +
                          "; expected " + meaning + ", at most " + std::to_string(high));
    return n;
}

int loadNumHeads(const JsonValue& metadata)
{
    const auto heads = loadInteger(metadata, "num_heads", "4", 1, engine::kMaxAttentionHeads,
                                   "a positive number of heads");
    if (!heads)
        throw FormatError("metadata field 'num_heads' is missing; expected the number of heads "
                          "as an integer, e.g. \"num_heads\": \"4\"");
    return static_cast<int>(*heads);
}

// A metadata field that holds a positive finite number, as a JSON number or a string like
// "10000"; nullopt when absent.
std::optional<double> loadPositiveNumber(const JsonValue& metadata, const char* field,
                                         const char* example, const char* meaning)
{
    const JsonValue* value = metadata.find(field);
    if (!value)
        return std::nullopt;
    double x = 0;
    bool ok = false;
    if (value->isNumber()) {
        x = value->asNumber();
        ok = true;
    } else if (value->isString()) {
        const std::string& s = value->asString();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        ok = ec == std::errc() && end == s.data() + s.size() && !s.empty();
    }
    if (!ok || !std::isfinite(x) || !(x > 0))
        throw FormatError("metadata field " + quoted(field) + " is " + value->describe() +
                          "; expected a positive finite number such as \"" + example + "\", " +
                          meaning);
    return x;
}

// A metadata field that holds "true" or "false" (or a JSON boolean); `absent` when missing.
bool loadFlag(const JsonValue& metadata, const char* field, bool absent)
{
    const JsonValue* value = metadata.find(field);
    if (!value)
        return absent;
    if (value->isBool())
        return value->asBool();
    if (value->isString() && (value->asString() == "true" || value->asString() == "false"))
        return value->asString() == "true";
    throw FormatError("metadata field " + quoted(field) + " is " + value->describe() +
                      "; expected \"true\" or \"false\"");
}

// qk_norm: "per_head" or "whole_projection", with its epsilon and Gemma's unit offset.
std::optional<engine::QueryKeyNorm> loadQueryKeyNorm(const JsonValue& metadata)
{
    const JsonValue* value = metadata.find("qk_norm");
    if (!value) {
        for (const char* field : {"qk_norm_eps", "qk_norm_unit_offset"})
            if (metadata.find(field))
                throw FormatError("metadata field " + quoted(field) +
                                  " is set but 'qk_norm' is not; expected 'qk_norm' \"per_head\" "
                                  "or \"whole_projection\" with it");
        return std::nullopt;
    }
    engine::QueryKeyNorm norm;
    if (value->isString() && value->asString() == "per_head")
        norm.scope = engine::QueryKeyNorm::Scope::PerHead;
    else if (value->isString() && value->asString() == "whole_projection")
        norm.scope = engine::QueryKeyNorm::Scope::WholeProjection;
    else
        throw FormatError("metadata field 'qk_norm' is " + value->describe() +
                          "; expected \"per_head\" (Qwen3, Gemma 3) or \"whole_projection\" "
                          "(OLMo 2)");
    norm.epsilon = loadPositiveNumber(metadata, "qk_norm_eps", "1e-6",
                                      "added to the mean square before its root")
                       .value_or(1e-6);
    if (!(norm.epsilon < 1))
        throw FormatError("metadata field 'qk_norm_eps' is " +
                          metadata.find("qk_norm_eps")->describe() +
                          "; expected a small positive number such as \"1e-6\"");
    norm.unitOffset = loadFlag(metadata, "qk_norm_unit_offset", false);
    return norm;
}

// A learned vector of the module: F32 of one dimension, finite; nullopt when absent.
std::optional<Eigen::RowVectorXf> loadVector(const SafetensorsFile& file, const char* name,
                                             const char* length)
{
    return loadBias(file, name, length);
}

// A vector's length against what the module needs, named in one sentence.
void expectLength(const std::optional<Eigen::RowVectorXf>& v, const char* name,
                  std::int64_t expected, const std::string& why)
{
    if (v && v->size() != expected)
        throw FormatError("tensor " + quoted(name) + " has " + std::to_string(v->size()) +
                          " values; expected " + std::to_string(expected) + " " + why);
}

std::optional<engine::AttentionMask::ValidLengths> loadValidLengths(const SafetensorsFile& file,
                                                                    std::int64_t batch,
                                                                    std::int64_t queries)
{
    const TensorEntry* t = file.find("valid_lens");
    if (!t)
        return std::nullopt;
    checkDType(*t, {DType::I32, DType::I64});
    checkRank(*t, {{"B"}, {"B", "Nq"}});
    const bool perQuery = t->shape.size() == 2;
    if (t->shape[0] != batch || (perQuery && t->shape[1] != queries))
        throw FormatError("tensor 'valid_lens' has shape " + t->shapeString() + "; expected [" +
                          std::to_string(batch) + "] or [" + std::to_string(batch) + ", " +
                          std::to_string(queries) + "] to match query's batch and length");
    engine::AttentionMask::ValidLengths v;
    v.perQuery = perQuery;
    const auto n = static_cast<std::size_t>(t->elementCount());
    v.lengths.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (t->dtype == DType::I32) {
            std::int32_t x = 0;
            std::memcpy(&x, t->bytes.data() + 4 * i, 4);
            v.lengths[i] = x;
        } else {
            std::memcpy(&v.lengths[i], t->bytes.data() + 8 * i, 8);
        }
        if (v.lengths[i] < 0)
            throw FormatError("tensor 'valid_lens' holds " + std::to_string(v.lengths[i]) +
                              " at index " + multiIndex(static_cast<std::int64_t>(i), t->shape) +
                              "; a valid length must be 0 or more");
    }
    return v;
}

// query_positions [B, Nq] or key_positions [B, Nk], I32 or I64; empty when absent.
std::vector<std::int64_t> loadPositions(const SafetensorsFile& file, const char* name,
                                        const char* axis, std::int64_t batch, std::int64_t tokens,
                                        bool positional)
{
    const TensorEntry* t = file.find(name);
    if (!t)
        return {};
    if (!positional) // only rotary positions and ALiBi read positions; like any other tensor,
                     // ignored
        return {};
    checkDType(*t, {DType::I32, DType::I64});
    checkRank(*t, {{"B", axis}});
    checkNotEmpty(*t);
    if (t->shape[0] != batch || t->shape[1] != tokens)
        throw FormatError("tensor " + quoted(name) + " has shape " + t->shapeString() +
                          "; expected [" + std::to_string(batch) + ", " + std::to_string(tokens) +
                          "], one position per " + (std::string(axis) == "Nq" ? "query" : "key"));
    const auto n = static_cast<std::size_t>(t->elementCount());
    std::vector<std::int64_t> positions(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (t->dtype == DType::I32) {
            std::int32_t x = 0;
            std::memcpy(&x, t->bytes.data() + 4 * i, 4);
            positions[i] = x;
        } else {
            std::memcpy(&positions[i], t->bytes.data() + 8 * i, 8);
        }
        if (positions[i] < 0 || positions[i] > engine::kMaxPosition)
            throw FormatError("tensor " + quoted(name) + " holds " + std::to_string(positions[i]) +
                              " at index " + multiIndex(static_cast<std::int64_t>(i), t->shape) +
                              "; expected a position from 0 to " +
                              std::to_string(engine::kMaxPosition));
    }
    return positions;
}

std::optional<engine::AttentionMask::Explicit> loadExplicitMask(const SafetensorsFile& file,
                                                                std::int64_t batch,
                                                                std::int64_t queries,
                                                                std::int64_t keys)
{
    const TensorEntry* t = file.find("mask");
    if (!t)
        return std::nullopt;
    checkDType(*t, {DType::U8, DType::Bool});
    checkRank(*t, {{"Nq", "Nk"}, {"B", "Nq", "Nk"}});
    const bool perBatch = t->shape.size() == 3;
    const std::vector<std::int64_t> expected = perBatch
        ? std::vector<std::int64_t>{batch, queries, keys}
        : std::vector<std::int64_t>{queries, keys};
    if (t->shape != expected)
        throw FormatError("tensor 'mask' has shape " + t->shapeString() + "; expected " +
                          engine::shapeText(std::vector<std::int64_t>{queries, keys}) + " or " +
                          engine::shapeText(std::vector<std::int64_t>{batch, queries, keys}) +
                          " ([Nq, Nk] or [B, Nq, Nk])");
    engine::AttentionMask::Explicit m;
    m.perBatch = perBatch;
    m.allowed.assign(t->bytes.begin(), t->bytes.end());
    for (std::size_t i = 0; i < m.allowed.size(); ++i)
        if (m.allowed[i] > 1)
            throw FormatError("tensor 'mask' holds " + std::to_string(m.allowed[i]) + " at index " +
                              multiIndex(static_cast<std::int64_t>(i), t->shape) +
                              "; expected 1 (may attend) or 0 (blocked)");
    return m;
}

} // namespace

AttentionCase loadAttentionCase(const SafetensorsFile& file)
{
    AttentionCase c;
    const JsonValue& metadata = file.metadata();
    const int heads = loadNumHeads(metadata);
    const int kvHeads =
        static_cast<int>(loadInteger(metadata, "num_kv_heads", "2", 1, engine::kMaxAttentionHeads,
                                     "a positive number of K/V heads")
                             .value_or(heads));
    if (heads % kvHeads != 0)
        throw FormatError("metadata field 'num_kv_heads' is " + std::to_string(kvHeads) +
                          "; expected a divisor of num_heads " + std::to_string(heads) +
                          ", so that each K/V head serves a group of query heads of one size");
    const bool causal = loadFlag(metadata, "causal", false);
    const std::optional<std::int64_t> window =
        loadInteger(metadata, "sliding_window", "4", 1, std::numeric_limits<std::int32_t>::max(),
                    "a positive number of keys");
    if (window && !causal)
        throw FormatError("metadata field 'sliding_window' is set but 'causal' is not \"true\"; "
                          "a sliding window limits how far back a causal query may look");
    const std::optional<double> theta =
        loadPositiveNumber(metadata, "rope_theta", "10000", "the base of rotary positions");
    const std::optional<std::int64_t> rotaryDim =
        loadInteger(metadata, "rotary_dim", "32", 2, std::numeric_limits<std::int32_t>::max(),
                    "an even number of features from 2 to the head size");
    if (rotaryDim && !theta)
        throw FormatError("metadata field 'rotary_dim' is set but 'rope_theta' is not; expected "
                          "'rope_theta' with it, since rotary_dim says how much of each head "
                          "rotary positions turn");
    const std::optional<engine::QueryKeyNorm> norm = loadQueryKeyNorm(metadata);
    const std::optional<double> scale = loadPositiveNumber(
        metadata, "score_scale", "0.0625", "what QKᵀ is multiplied by instead of 1/√d_k");
    const std::optional<double> cap = loadPositiveNumber(metadata, "attn_logit_softcapping", "50",
                                                         "the largest a score may grow to");

    c.query = loadSequence(file, {"query", {"B", "Nq", "Dq"}});
    c.key = loadSequence(file, {"key", {"B", "Nk", "Dk"}});
    c.value = loadSequence(file, {"value", {"B", "Nk", "Dv"}});
    c.weights.wQ = loadWeight(file, {"w_q", {"H·Pqk", "Dq"}});
    c.weights.wK = loadWeight(file, {"w_k", {"H·Pqk", "Dk"}});
    c.weights.wV = loadWeight(file, {"w_v", {"H·Pv", "Dv"}});
    c.weights.wO = loadWeight(file, {"w_o", {"Po", "H·Pv"}});
    c.weights.bQ = loadBias(file, "b_q", "H·Pqk");
    c.weights.bK = loadBias(file, "b_k", "H·Pqk");
    c.weights.bV = loadBias(file, "b_v", "H·Pv");
    c.weights.bO = loadBias(file, "b_o", "Po");
    c.weights.qNorm = loadVector(file, "q_norm", "Pqk or H·Pqk");
    c.weights.kNorm = loadVector(file, "k_norm", "Pqk or H_kv·Pqk");
    c.weights.sinks = loadVector(file, "sinks", "H");
    const std::optional<Eigen::RowVectorXf> slopes = loadVector(file, "alibi_slopes", "H");
    c.description = engine::AttentionDescription::fromWeights(c.weights, heads, kvHeads);
    engine::AttentionDescription& d = c.description;
    d.mask.causal = causal;
    d.mask.slidingWindow = window;
    const std::int64_t P = d.queryKeySize;
    if (theta) {
        const std::int64_t rotated = rotaryDim.value_or(P);
        if (!rotaryDim && P % 2 != 0)
            throw FormatError("metadata field 'rope_theta' asks for rotary positions, but a query "
                              "head has " +
                              std::to_string(P) +
                              " features; expected an even number, since features turn in pairs");
        if (rotated % 2 != 0 || rotated > P)
            throw FormatError("metadata field 'rotary_dim' is " + std::to_string(rotated) +
                              " for query heads of " + std::to_string(P) +
                              " features; expected an even number from 2 to " + std::to_string(P) +
                              ", since features turn in pairs");
        d.rotary = engine::RotaryPositions{*theta, rotaryDim ? static_cast<int>(*rotaryDim) : 0};
    }
    if (norm) {
        const bool perHead = norm->scope == engine::QueryKeyNorm::Scope::PerHead;
        for (const auto& [v, name, n] : {std::tuple{&c.weights.qNorm, "q_norm", heads},
                                         {&c.weights.kNorm, "k_norm", kvHeads}}) {
            const std::int64_t expected = perHead ? P : n * P;
            const std::string why = perHead
                ? "(Pqk: one gain per feature of a head, shared by every head)"
                : "(" + std::to_string(n) + " heads of " + std::to_string(P) +
                    ": the whole projection)";
            if (!*v)
                throw FormatError("metadata field 'qk_norm' is \"" +
                                  std::string(engine::queryKeyNormScopeName(norm->scope)) +
                                  "\" but tensor " + quoted(name) + " is missing; expected F32 [" +
                                  std::to_string(expected) + "] " + why);
            expectLength(*v, name, expected, why);
        }
        d.queryKeyNorm = norm;
    } else {
        for (const auto& [v, name] :
             {std::pair{&c.weights.qNorm, "q_norm"}, {&c.weights.kNorm, "k_norm"}})
            if (*v)
                throw FormatError("tensor " + quoted(name) +
                                  " is given but metadata field 'qk_norm' is not; expected "
                                  "'qk_norm' \"per_head\" or \"whole_projection\" to say how it "
                                  "applies");
    }
    d.scoreScale = scale;
    d.logitSoftCap = cap;
    expectLength(c.weights.sinks, "sinks", heads, "(H: one sink logit per query head)");
    d.learnedSinks = c.weights.sinks.has_value();
    expectLength(slopes, "alibi_slopes", heads, "(H: one slope per query head)");
    if (slopes)
        d.scoreBias = engine::ScoreBias{{slopes->data(), slopes->data() + slopes->size()}};

    const std::int64_t batch = c.query.dim(0), queries = c.query.dim(1), keys = c.key.dim(1);
    c.mask.validLengths = loadValidLengths(file, batch, queries);
    c.mask.explicitMask = loadExplicitMask(file, batch, queries, keys);
    const bool positional = theta.has_value() || slopes.has_value();
    c.positions.query = loadPositions(file, "query_positions", "Nq", batch, queries, positional);
    c.positions.key = loadPositions(file, "key_positions", "Nk", batch, keys, positional);
    return c;
}

} // namespace attnviz::io
