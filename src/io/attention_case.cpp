#include "io/attention_case.h"

#include "engine/input_error.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace attnviz::io {
namespace {

using engine::Axis;
using engine::Tensor;

std::string quoted(std::string_view name)
{
    return "'" + std::string(name) + "'";
}

std::string shapeString(const std::vector<std::int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string multiIndex(std::int64_t flat, const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> index(shape.size());
    for (std::size_t a = shape.size(); a-- > 0;) {
        index[a] = flat % shape[a];
        flat /= shape[a];
    }
    return shapeString(index);
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

int loadNumHeads(const JsonValue& metadata)
{
    const JsonValue* value = metadata.find("num_heads");
    if (!value)
        throw FormatError("metadata field 'num_heads' is missing; expected the number of heads "
                          "as an integer, e.g. \"num_heads\": \"4\"");
    std::int64_t heads = 0;
    bool ok = false;
    if (value->isInteger()) {
        heads = value->asInteger();
        ok = true;
    } else if (value->isString()) {
        const std::string& s = value->asString();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), heads);
        ok = ec == std::errc() && end == s.data() + s.size() && !s.empty();
    }
    if (!ok)
        throw FormatError("metadata field 'num_heads' is " + value->describe() +
                          "; expected an integer such as \"4\"");
    if (heads < 1 || heads > 1 << 20)
        throw FormatError("metadata field 'num_heads' is " + std::to_string(heads) +
                          "; expected a positive number of heads, at most " +
                          std::to_string(1 << 20));
    return static_cast<int>(heads);
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
                          shapeString({queries, keys}) + " or " +
                          shapeString({batch, queries, keys}) + " ([Nq, Nk] or [B, Nq, Nk])");
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
    c.numHeads = loadNumHeads(file.metadata());
    c.mask.causal = loadCausal(file.metadata());

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

    const std::int64_t batch = c.query.dim(0), queries = c.query.dim(1), keys = c.key.dim(1);
    c.mask.validLengths = loadValidLengths(file, batch, queries);
    c.mask.explicitMask = loadExplicitMask(file, batch, queries, keys);
    return c;
}

} // namespace attnviz::io
