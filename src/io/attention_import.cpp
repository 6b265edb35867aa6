#include "io/attention_import.h"

#include "engine/model_config.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

namespace attnviz::io {
namespace {

using engine::Tensor;

constexpr std::string_view kStackedName = "attentions";
constexpr std::string_view kLayerPrefix = "layer";
constexpr const char* kForms = "'layer0', 'layer1', … each [heads, query, key] or one 'attentions' "
                               "[layers, heads, query, key]";

std::string quoted(std::string_view name)
{
    return "'" + printable(name) + "'";
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

/// The number of a per-layer tensor ("layer12" → 12). Nothing for any other name, nor for a
/// leading zero ("layer01"), which would give one layer two names.
std::optional<std::int64_t> layerNumber(std::string_view name)
{
    if (!name.starts_with(kLayerPrefix))
        return std::nullopt;
    const std::string_view digits = name.substr(kLayerPrefix.size());
    if (digits.empty() || (digits.size() > 1 && digits.front() == '0'))
        return std::nullopt;
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size())
        return std::nullopt; // more digits than 64 bits hold
    return n;
}

/// Where one layer's [heads, query, key] block lies in the file.
struct LayerSource {
    const TensorEntry* tensor = nullptr;
    std::int64_t layer = 0;
    std::size_t firstElement = 0;
    bool stacked = false;
};

struct Layout {
    std::vector<LayerSource> layers;
    std::int64_t heads = 0;
    std::int64_t queries = 0;
    std::int64_t keys = 0;
};

void checkDType(const TensorEntry& t)
{
    switch (t.dtype) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::F64:
        return;
    default:
        throw FormatError("tensor " + quoted(t.name) + " has dtype " +
                          std::string(dtypeName(t.dtype)) +
                          "; expected attention weights as F32, F16, BF16 or F64");
    }
}

void checkNoZeroDimension(const TensorEntry& t)
{
    for (std::int64_t d : t.shape)
        if (d == 0)
            throw FormatError("tensor " + quoted(t.name) + " has a zero-sized dimension (shape " +
                              t.shapeString() + "); every dimension must be at least 1");
}

/// Checks a tensor's dtype and rank against one of its two accepted shapes — `base` axes, or a
/// batch axis of 1 inserted at `batchAxis` — and returns its trailing [heads, query, key].
std::array<std::int64_t, 3> checkShape(const TensorEntry& t, std::size_t base,
                                       std::size_t batchAxis, const char* alternatives)
{
    checkDType(t);
    if (t.shape.size() != base && t.shape.size() != base + 1)
        throw FormatError("tensor " + quoted(t.name) + " has " + std::to_string(t.shape.size()) +
                          " dimensions (shape " + t.shapeString() + "); expected " + alternatives);
    checkNoZeroDimension(t);
    if (t.shape.size() == base + 1 && t.shape[batchAxis] != 1)
        throw FormatError("tensor " + quoted(t.name) + " has a batch axis of " +
                          std::to_string(t.shape[batchAxis]) + " (shape " + t.shapeString() +
                          "); expected 1, since an import holds one sequence: save the item "
                          "you want, e.g. a[0]");
    const std::size_t n = t.shape.size();
    return {t.shape[n - 3], t.shape[n - 2], t.shape[n - 1]};
}

/// The product of non-negative sizes, saturating instead of overflowing.
std::uint64_t product(std::initializer_list<std::int64_t> sizes)
{
    std::uint64_t p = 1;
    for (std::int64_t s : sizes) {
        const auto u = static_cast<std::uint64_t>(s);
        if (u != 0 && p > std::numeric_limits<std::uint64_t>::max() / u)
            return std::numeric_limits<std::uint64_t>::max();
        p *= u;
    }
    return p;
}

/// Refuses more layers than any model has: each costs bookkeeping and a heatmap in the overview,
/// however small its matrices.
void checkLayerCount(std::int64_t layers)
{
    if (layers > engine::ConfigLimits::kLayers)
        throw FormatError("the file holds attention weights of " + std::to_string(layers) +
                          " layers; a model has at most " +
                          std::to_string(engine::ConfigLimits::kLayers));
}

/// Refuses, from the header's shapes alone, too many layers and weights that would need more
/// than kMaxImportedFloatBytes as floats.
void checkSize(std::int64_t layers, const Layout& layout)
{
    checkLayerCount(layers);
    const std::uint64_t floats = product({layers, layout.heads, layout.queries, layout.keys});
    if (floats > kMaxImportedFloatBytes / sizeof(float))
        throw FormatError(
            "the attention weights would need " +
            number(static_cast<double>(floats) * sizeof(float) / double(1ull << 30)) +
            " GiB as floats (layers × heads × queries × keys = " + std::to_string(layers) + " × " +
            std::to_string(layout.heads) + " × " + std::to_string(layout.queries) + " × " +
            std::to_string(layout.keys) + "); an import may need at most " +
            std::to_string(kMaxImportedFloatBytes >> 30) +
            " GiB, so save fewer layers or a shorter text");
}

Layout findLayers(const SafetensorsFile& file)
{
    const TensorEntry* stacked = nullptr;
    std::map<std::int64_t, const TensorEntry*> perLayer;
    for (const TensorEntry& t : file.tensors()) {
        if (t.name == kStackedName)
            stacked = &t;
        else if (const auto n = layerNumber(t.name))
            perLayer.emplace(*n, &t);
        else
            throw FormatError("tensor " + quoted(t.name) +
                              " is not an attention tensor; an import holds only " + kForms);
    }
    if (!stacked && perLayer.empty())
        throw FormatError(std::string("the file holds no attention tensors; expected ") + kForms);
    if (stacked && !perLayer.empty())
        throw FormatError("the file holds both 'attentions' and " +
                          quoted(perLayer.begin()->second->name) +
                          "; expected either one 'attentions' tensor or 'layer0', 'layer1', …");

    Layout layout;
    if (stacked) {
        const auto [heads, queries, keys] = checkShape(
            *stacked, 4, 1, "4 [layers, heads, query, key] or 5 [layers, 1, heads, query, key]");
        layout.heads = heads;
        layout.queries = queries;
        layout.keys = keys;
        checkSize(stacked->shape[0], layout); // before one entry per layer is made
        const std::size_t block = static_cast<std::size_t>(product({heads, queries, keys}));
        for (std::int64_t l = 0; l < stacked->shape[0]; ++l)
            layout.layers.push_back({stacked, l, static_cast<std::size_t>(l) * block, true});
        return layout;
    }

    checkLayerCount(static_cast<std::int64_t>(perLayer.size()));
    std::int64_t expected = 0;
    for (const auto& [n, t] : perLayer) {
        if (n != expected)
            throw FormatError("tensor 'layer" + std::to_string(expected) +
                              "' is missing although " + quoted(t->name) +
                              " exists; expected layers numbered 0, 1, 2, … without gaps");
        ++expected;
        const auto [heads, queries, keys] =
            checkShape(*t, 3, 0, "3 [heads, query, key] or 4 [1, heads, query, key]");
        if (layout.layers.empty()) {
            layout.heads = heads;
            layout.queries = queries;
            layout.keys = keys;
        } else if (heads != layout.heads) {
            throw FormatError("tensor " + quoted(t->name) + " has " + std::to_string(heads) +
                              " heads (shape " + t->shapeString() + "); expected " +
                              std::to_string(layout.heads) + " like 'layer0'");
        } else if (queries != layout.queries || keys != layout.keys) {
            throw FormatError("tensor " + quoted(t->name) + " has " + std::to_string(queries) +
                              " queries and " + std::to_string(keys) + " keys (shape " +
                              t->shapeString() + "); expected " + std::to_string(layout.queries) +
                              " and " + std::to_string(layout.keys) + " like 'layer0'");
        }
        layout.layers.push_back({t, n, 0, false});
    }
    checkSize(static_cast<std::int64_t>(layout.layers.size()), layout);
    return layout;
}

/// A metadata value as JSON: safetensors metadata values are strings holding JSON text; a value
/// that is JSON already (from another writer) is taken as it is.
JsonValue metadataJson(const JsonValue& value, const std::string& field)
{
    if (!value.isString())
        return value;
    try {
        return parseJson(value.asString(), "metadata field '" + field + "'");
    } catch (const JsonError& e) {
        throw FormatError("metadata field '" + field + "' is not JSON (\"" +
                          printable(value.asString(), 40) + "\": " + e.what() +
                          "); expected a JSON array of strings, as json.dumps(tokens) writes");
    }
}

std::vector<std::string> readTokens(const JsonValue& value, const std::string& field)
{
    const JsonValue json = metadataJson(value, field);
    if (!json.isArray())
        throw FormatError("metadata field '" + field + "' is " + json.describe() +
                          "; expected a JSON array of strings, one per token");
    std::vector<std::string> tokens;
    tokens.reserve(json.asArray().size());
    for (const JsonValue& element : json.asArray()) {
        const std::string index = std::to_string(tokens.size());
        if (!element.isString())
            throw FormatError("element " + index + " of metadata field '" + field + "' is " +
                              element.describe() +
                              "; expected a string with the token's text, not its id");
        const std::string& token = element.asString();
        if (token.size() > kMaxImportedTokenBytes)
            throw FormatError("element " + index + " of metadata field '" + field + "' has " +
                              std::to_string(token.size()) + " bytes (\"" + printable(token, 40) +
                              "\"); a token may have at most " +
                              std::to_string(kMaxImportedTokenBytes) + " bytes");
        tokens.push_back(token);
    }
    return tokens;
}

void readTokenFields(const JsonValue& metadata, const Layout& layout, ImportedAttentions& out)
{
    const JsonValue* tokens = metadata.find("tokens");
    const JsonValue* queryTokens = metadata.find("query_tokens");
    const JsonValue* keyTokens = metadata.find("key_tokens");
    if (tokens && (queryTokens || keyTokens))
        throw FormatError(std::string("metadata has both 'tokens' and '") +
                          (queryTokens ? "query_tokens" : "key_tokens") +
                          "'; expected 'tokens' for self-attention or 'query_tokens' with "
                          "'key_tokens' for cross-attention");
    if (!tokens && !queryTokens && !keyTokens)
        throw FormatError("metadata field 'tokens' is missing; expected the tokens as a JSON array "
                          "of strings (json.dumps(tokens)), or 'query_tokens' and 'key_tokens' "
                          "for cross-attention");
    if (!queryTokens != !keyTokens)
        throw FormatError(
            std::string("metadata field '") + (queryTokens ? "key_tokens" : "query_tokens") +
            "' is missing although '" + (queryTokens ? "query_tokens" : "key_tokens") +
            "' is given; cross-attention needs both");

    if (tokens) {
        out.queryTokens = readTokens(*tokens, "tokens");
        const auto n = static_cast<std::int64_t>(out.queryTokens.size());
        if (n != layout.queries || n != layout.keys)
            throw FormatError("metadata field 'tokens' has " + std::to_string(n) +
                              " tokens but the attention matrices have " +
                              std::to_string(layout.queries) + " queries and " +
                              std::to_string(layout.keys) +
                              " keys; expected one token per position" +
                              (layout.queries != layout.keys
                                   ? ", or 'query_tokens' and 'key_tokens' for cross-attention"
                                   : ""));
        out.keyTokens = out.queryTokens;
        return;
    }
    out.crossAttention = true;
    out.queryTokens = readTokens(*queryTokens, "query_tokens");
    out.keyTokens = readTokens(*keyTokens, "key_tokens");
    const auto nq = static_cast<std::int64_t>(out.queryTokens.size());
    const auto nk = static_cast<std::int64_t>(out.keyTokens.size());
    if (nq != layout.queries)
        throw FormatError("metadata field 'query_tokens' has " + std::to_string(nq) +
                          " tokens but the attention matrices have " +
                          std::to_string(layout.queries) +
                          " query rows; expected one token per query");
    if (nk != layout.keys)
        throw FormatError("metadata field 'key_tokens' has " + std::to_string(nk) +
                          " tokens but the attention matrices have " + std::to_string(layout.keys) +
                          " key columns; expected one token per key");
}

std::string readModel(const JsonValue& metadata)
{
    const JsonValue* value = metadata.find("model");
    if (!value)
        return {};
    if (!value->isString())
        throw FormatError("metadata field 'model' is " + value->describe() +
                          "; expected the model's name as a string");
    if (value->asString().size() > kMaxImportedTokenBytes)
        throw FormatError("metadata field 'model' has " + std::to_string(value->asString().size()) +
                          " bytes (\"" + printable(value->asString(), 40) +
                          "\"); a model name may have at most " +
                          std::to_string(kMaxImportedTokenBytes) + " bytes");
    return value->asString();
}

bool readCausal(const JsonValue& metadata, const Layout& layout)
{
    const JsonValue* value = metadata.find("causal");
    if (!value)
        return false;
    bool causal = false;
    if (value->isBool()) {
        causal = value->asBool();
    } else if (value->isString() && (value->asString() == "true" || value->asString() == "True")) {
        causal = true;
    } else if (!value->isString() ||
               (value->asString() != "false" && value->asString() != "False")) {
        throw FormatError("metadata field 'causal' is " + value->describe() +
                          "; expected \"true\" or \"false\"");
    }
    if (causal && layout.queries != layout.keys)
        throw FormatError("metadata field 'causal' is true but the attention matrices have " +
                          std::to_string(layout.queries) + " queries and " +
                          std::to_string(layout.keys) +
                          " keys; a causal mask needs as many queries as keys");
    return causal;
}

float halfToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0) { // zero or subnormal: mantissa · 2⁻²⁴ is exact in float
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 0x1f) // infinity or NaN
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// Converts `count` elements of `t`, from element `first` on, to float. F64 values beyond float's
/// range become ±FLT_MAX (and then fail the row check) rather than an undefined conversion.
void toFloats(const TensorEntry& t, std::size_t first, std::size_t count, float* out)
{
    const char* bytes = t.bytes.data() + first * dtypeSize(t.dtype);
    switch (t.dtype) {
    case DType::F32: // the data need not be aligned for float: copy, never cast the pointer
        std::memcpy(out, bytes, count * sizeof(float));
        return;
    case DType::F16:
    case DType::BF16:
        for (std::size_t i = 0; i < count; ++i) {
            std::uint16_t bits = 0;
            std::memcpy(&bits, bytes + 2 * i, 2);
            out[i] = t.dtype == DType::F16
                ? halfToFloat(bits)
                : std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
        }
        return;
    case DType::F64:
        for (std::size_t i = 0; i < count; ++i) {
            double d = 0;
            std::memcpy(&d, bytes + 8 * i, 8);
            constexpr double kMax = std::numeric_limits<float>::max();
            out[i] = std::isnan(d) || std::isinf(d)
                ? static_cast<float>(d)
                : static_cast<float>(std::clamp(d, -kMax, kMax));
        }
        return;
    default: // refused by checkDType
        return;
    }
}

std::string position(const LayerSource& source, std::int64_t head, std::int64_t query)
{
    return (source.stacked ? "layer " + std::to_string(source.layer) + ", " : std::string()) +
        "head " + std::to_string(head) + ", query " + std::to_string(query);
}

/// Reads one layer into a [1, H, Nq, Nk] tensor, checking every value and row; records the rows
/// that are zero in every head.
Tensor readLayer(const LayerSource& source, const Layout& layout, bool causal,
                 std::vector<engine::MaskedRow>& fullyMasked)
{
    const std::int64_t heads = layout.heads, queries = layout.queries, keys = layout.keys;
    Tensor weights({{"batch", 1}, {"head", heads}, {"query", queries}, {"key", keys}});
    std::vector<char> zeroInEveryHead(static_cast<std::size_t>(queries), 1);
    const std::string name = quoted(source.tensor->name);
    for (std::int64_t h = 0; h < heads; ++h) {
        for (std::int64_t q = 0; q < queries; ++q) {
            const auto offset = static_cast<std::size_t>((h * queries + q) * keys);
            float* row = weights.data() + offset;
            toFloats(*source.tensor, source.firstElement + offset, static_cast<std::size_t>(keys),
                     row);
            double sum = 0;
            for (std::int64_t k = 0; k < keys; ++k) {
                const float v = row[k];
                if (!std::isfinite(v))
                    throw FormatError("tensor " + name + " holds " +
                                      (std::isnan(v) ? "NaN"
                                           : v > 0   ? "+Inf"
                                                     : "-Inf") +
                                      " at " + position(source, h, q) + ", key " +
                                      std::to_string(k) +
                                      "; attention weights must be finite (store a fully masked "
                                      "row as zeros, e.g. with torch.nan_to_num)");
                if (v < 0)
                    throw FormatError("tensor " + name + " holds " + number(v) + " at " +
                                      position(source, h, q) + ", key " + std::to_string(k) +
                                      "; attention weights are never negative");
                sum += v;
            }
            if (sum != 0 && std::abs(sum - 1) > kImportedRowSumTolerance)
                throw FormatError("tensor " + name + " has a row summing to " + number(sum) +
                                  " at " + position(source, h, q) +
                                  "; expected softmax weights, each row summing to 1 (within " +
                                  number(kImportedRowSumTolerance) +
                                  ") or all zeros when fully masked, not scores, logits, weights "
                                  "after dropout or a matrix stored [key, query]");
            if (causal)
                for (std::int64_t k = q + 1; k < keys; ++k)
                    if (row[k] > kImportedCausalTolerance)
                        throw FormatError(
                            "tensor " + name + " holds " + number(row[k]) + " at " +
                            position(source, h, q) + ", key " + std::to_string(k) +
                            ", a key after its query, although metadata field 'causal' is true; "
                            "a causal model gives later keys weight 0 (at most " +
                            number(kImportedCausalTolerance) + ")");
            if (sum != 0)
                zeroInEveryHead[static_cast<std::size_t>(q)] = 0;
        }
    }
    for (std::int64_t q = 0; q < queries; ++q)
        if (zeroInEveryHead[static_cast<std::size_t>(q)])
            fullyMasked.push_back({0, q});
    return weights;
}

} // namespace

ImportedAttentions readAttentionImport(const SafetensorsFile& file)
{
    // Names, shapes and the size come from the header alone: checked before anything is
    // allocated or a value read.
    const Layout layout = findLayers(file);
    ImportedAttentions out;
    readTokenFields(file.metadata(), layout, out);
    out.model = readModel(file.metadata());
    out.causal = readCausal(file.metadata(), layout);
    out.layers = static_cast<int>(layout.layers.size());
    out.heads = static_cast<int>(layout.heads);

    out.weights.reserve(layout.layers.size());
    out.fullyMaskedRows.resize(layout.layers.size());
    for (std::size_t l = 0; l < layout.layers.size(); ++l)
        out.weights.push_back(
            readLayer(layout.layers[l], layout, out.causal, out.fullyMaskedRows[l]));
    return out;
}

ImportedAttentions readAttentionImport(const std::string& path)
{
    return readAttentionImport(SafetensorsFile::read(path));
}

std::uint64_t attentionImportBytes(const SafetensorsFile& file)
{
    const Layout layout = findLayers(file);
    std::uint64_t fileBytes = 0;
    for (const TensorEntry& t : file.tensors())
        fileBytes += t.bytes.size();
    return product({static_cast<std::int64_t>(layout.layers.size()), layout.heads, layout.queries,
                    layout.keys}) *
        sizeof(float) +
        fileBytes;
}

} // namespace attnviz::io
