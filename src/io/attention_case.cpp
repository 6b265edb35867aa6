#include "io/attention_case.h"

#include "engine/input_error.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

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

// rope_theta: a positive finite number, as a JSON number or a string like "10000".
std::optional<double> loadRopeTheta(const JsonValue& metadata)
{
    const JsonValue* value = metadata.find("rope_theta");
    if (!value)
        return std::nullopt;
    double theta = 0;
    bool ok = false;
    if (value->isNumber()) {
        theta = value->asNumber();
        ok = true;
    } else if (value->isString()) {
        const std::string& s = value->asString();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), theta);
        ok = ec == std::errc() && end == s.data() + s.size() && !s.empty();
    }
    if (!ok)
        throw FormatError("metadata field 'rope_theta' is " + value->describe() +
                          "; expected a positive number such as \"10000\"");
    if (!std::isfinite(theta) || !(theta > 0))
        throw FormatError("metadata field 'rope_theta' is " + value->describe() +
                          "; expected a positive finite number such as \"10000\"");
    return theta;
}

bool loadCausal(const JsonValue& metadata)
{
    const JsonValue* value = metadata.find("causal");
    if (!value)
        return false;
    if (value->isBool())
        return value->asBool();
    if (value->isString() && (value->asString() == "true" || value->asString() == "false"))
        return value->asString() == "true";
    throw FormatError("metadata field 'causal' is " + value->describe() +
                      "; expected \"true\" or \"false\"");
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
                                        bool rotary)
{
    const TensorEntry* t = file.find(name);
    if (!t)
        return {};
    if (!rotary) // only rotary positions read positions; like any other tensor, ignored
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
    const bool causal = loadCausal(metadata);
    const std::optional<std::int64_t> window =
        loadInteger(metadata, "sliding_window", "4", 1, std::numeric_limits<std::int32_t>::max(),
                    "a positive number of keys");
    if (window && !causal)
        throw FormatError("metadata field 'sliding_window' is set but 'causal' is not \"true\"; "
                          "a sliding window limits how far back a causal query may look");
    const std::optional<double> theta = loadRopeTheta(metadata);

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
    c.description = engine::AttentionDescription::fromWeights(c.weights, heads, kvHeads);
    c.description.mask.causal = causal;
    c.description.mask.slidingWindow = window;
    if (theta) {
        if (c.description.queryKeySize % 2 != 0)
            throw FormatError("metadata field 'rope_theta' asks for rotary positions, but a query "
                              "head has " +
                              std::to_string(c.description.queryKeySize) +
                              " features; expected an even number, since features turn in pairs");
        c.description.rotary = engine::RotaryPositions{*theta, 0};
    }

    const std::int64_t batch = c.query.dim(0), queries = c.query.dim(1), keys = c.key.dim(1);
    c.mask.validLengths = loadValidLengths(file, batch, queries);
    c.mask.explicitMask = loadExplicitMask(file, batch, queries, keys);
    c.positions.query =
        loadPositions(file, "query_positions", "Nq", batch, queries, theta.has_value());
    c.positions.key = loadPositions(file, "key_positions", "Nk", batch, keys, theta.has_value());
    return c;
}

} // namespace attnviz::io
