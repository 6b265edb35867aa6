// The case-file contract for the metadata and tensors that describe an attention module beyond
// its heads (docs/case-format.md): num_kv_heads, rope_theta, query_positions / key_positions and
// sliding_window. Every bad value is refused with one sentence (FormatError or
// engine::InputError) naming the field or tensor; good ones land in the case's description.
//
// The files are built in memory. Metadata values are written as raw JSON, so that a field can be
// a JSON number as well as a string (SafetensorsWriter writes strings only); tests/io/
// attention_case_test.cpp keeps its CaseBuilder to itself, so the little that is needed is here.
#include "engine/attention_stages.h"
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "engine/thread_count.h"
#include "io/attention_case.h"
#include "io/file_error.h"
#include "io/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace attnviz::io {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// A valid grouped-query case that each test changes in one place: B = 2, Nq = 3, Nk = 4,
/// Dq = Dk = Dv = 4, H = 4 query heads, H_kv = 2 K/V heads, Pqk = Pv = 2, Po = 4.
struct CaseFile {
    struct Entry {
        std::string dtype;
        std::vector<std::int64_t> shape;
        std::string bytes;
    };
    std::map<std::string, Entry> tensors;
    std::map<std::string, std::string> metadata; ///< raw JSON values

    CaseFile()
    {
        text("num_heads", "4");
        text("num_kv_heads", "2");
        f32("query", {2, 3, 4});
        f32("key", {2, 4, 4});
        f32("value", {2, 4, 4});
        f32("w_q", {8, 4}); // H·Pqk
        f32("w_k", {4, 4}); // H_kv·Pqk
        f32("w_v", {4, 4}); // H_kv·Pv
        f32("w_o", {4, 8}); // [Po, H·Pv]
    }

    CaseFile& text(const std::string& key, const std::string& value)
    {
        metadata[key] = "\"" + value + "\"";
        return *this;
    }
    CaseFile& json(const std::string& key, const std::string& raw)
    {
        metadata[key] = raw;
        return *this;
    }

    // Values that differ from one element to the next, so that a run computes something.
    CaseFile& f32(const std::string& name, std::vector<std::int64_t> shape)
    {
        std::int64_t n = 1;
        for (auto d : shape)
            n *= d;
        std::vector<float> v(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < v.size(); ++i)
            v[i] = 0.25f * std::sin(0.7f * static_cast<float>(i) + static_cast<float>(name.size()));
        return raw<float>(name, "F32", std::move(shape), v);
    }

    template <typename T>
    CaseFile& raw(const std::string& name, const std::string& dtype,
                  std::vector<std::int64_t> shape, const std::vector<T>& values)
    {
        std::string bytes(values.size() * sizeof(T), '\0');
        if (!values.empty())
            std::memcpy(bytes.data(), values.data(), bytes.size());
        tensors[name] = {dtype, std::move(shape), std::move(bytes)};
        return *this;
    }

    /// 8-byte little-endian header length, the JSON header padded with spaces to 8 bytes, data.
    std::string bytes() const
    {
        std::string header = "{";
        bool first = true;
        if (!metadata.empty()) {
            header += "\"__metadata__\":{";
            for (const auto& [k, v] : metadata) {
                header += (first ? "\"" : ",\"") + k + "\":" + v;
                first = false;
            }
            header += "}";
            first = false;
        }
        std::string data;
        for (const auto& [name, e] : tensors) {
            std::string shape;
            for (auto d : e.shape)
                shape += (shape.empty() ? "" : ",") + std::to_string(d);
            header += (first ? "\"" : ",\"") + name + "\":{\"dtype\":\"" + e.dtype +
                "\",\"shape\":[" + shape + "],\"data_offsets\":[" + std::to_string(data.size()) +
                "," + std::to_string(data.size() + e.bytes.size()) + "]}";
            first = false;
            data += e.bytes;
        }
        header += "}";
        header.resize((header.size() + 7) / 8 * 8, ' ');
        std::string out(8, '\0');
        const std::uint64_t length = header.size();
        for (int i = 0; i < 8; ++i)
            out[static_cast<std::size_t>(i)] = static_cast<char>((length >> (8 * i)) & 0xff);
        return out + header + data;
    }

    SafetensorsFile file() const { return SafetensorsFile::parse(bytes()); }
};

struct Outcome {
    std::string type; ///< "ok", "FormatError", "InputError" or "another exception"
    std::string message;
};

std::ostream& operator<<(std::ostream& s, const Outcome& o)
{
    return s << o.type << ": " << o.message;
}

/// Loads the case and runs it, positions included, as attnviz-cli mha does.
Outcome outcome(const CaseFile& f)
{
    try {
        const AttentionCase c = loadAttentionCase(f.file());
        engine::AttentionOptions options;
        options.positions = c.positions;
        engine::MultiHeadAttention(c.weights, c.description)
            .forward(c.query, c.key, c.value, c.mask, options);
    } catch (const FormatError& e) {
        return {"FormatError", e.what()};
    } catch (const engine::InputError& e) {
        return {"InputError", e.what()};
    } catch (const std::exception& e) {
        return {"another exception", e.what()};
    }
    return {"ok", ""};
}

/// The case is refused with one sentence naming `field` and containing `fragment`.
void expectRefused(const CaseFile& f, const std::string& field, const std::string& fragment,
                   const std::string& what)
{
    const Outcome o = outcome(f);
    EXPECT_TRUE(o.type == "FormatError" || o.type == "InputError") << what << ": " << o;
    EXPECT_EQ(o.message.find('\n'), std::string::npos) << what << ": not one line: " << o;
    EXPECT_THAT(o.message, HasSubstr(field)) << what << ": does not name " << field;
    EXPECT_THAT(o.message, HasSubstr(fragment)) << what;
}

void expectLoads(const CaseFile& f, const std::string& what)
{
    EXPECT_EQ(outcome(f).type, "ok") << what << ": " << outcome(f);
}

const std::string kMaxPositionText = std::to_string(engine::kMaxPosition);

// The cases are tiny: on one thread the runs do not wait for a second one to be scheduled on a
// busy machine.
class AttentionCaseVariants : public ::testing::Test {
protected:
    void SetUp() override { engine::setThreadCount(1); }
    void TearDown() override { engine::setThreadCount(0); }
};

// --- a valid case with everything ---------------------------------------------------------------

TEST_F(AttentionCaseVariants, CombinedCaseLoadsIntoTheDescription)
{
    CaseFile f;
    f.json("num_kv_heads", "2");
    f.text("rope_theta", "500000");
    f.text("causal", "true");
    f.json("sliding_window", "2");
    f.raw<std::int64_t>("query_positions", "I64", {2, 3}, {5, 6, 7, 0, 1, 2});
    f.raw<std::int32_t>("key_positions", "I32", {2, 4}, {3, 4, 5, 6, 0, 1, 2, 3});
    f.raw<std::int32_t>("valid_lens", "I32", {2}, {4, 3});
    f.raw<std::uint8_t>("mask", "BOOL", {3, 4}, std::vector<std::uint8_t>(12, 1));
    f.f32("b_k", {4});
    ASSERT_EQ(outcome(f).type, "ok") << outcome(f);

    const AttentionCase c = loadAttentionCase(f.file());
    engine::AttentionDescription expected;
    expected.queryHeads = 4;
    expected.keyValueHeads = 2;
    expected.queryKeySize = 2;
    expected.valueSize = 2;
    expected.rotary = engine::RotaryPositions{500000.0, 0};
    expected.mask.causal = true;
    expected.mask.slidingWindow = 2;
    EXPECT_EQ(c.description, expected);
    EXPECT_EQ(c.description.groupSize(), 2);
    EXPECT_EQ(c.description.rotatedSize(), 2);
    EXPECT_FALSE(c.description.scoreBias.has_value());
    EXPECT_FALSE(c.description.scoreScale.has_value());
    EXPECT_EQ(c.positions.query, (std::vector<std::int64_t>{5, 6, 7, 0, 1, 2}));
    EXPECT_EQ(c.positions.key, (std::vector<std::int64_t>{3, 4, 5, 6, 0, 1, 2, 3}));
    EXPECT_EQ(c.mask.validLengths->lengths, (std::vector<std::int64_t>{4, 3}));
    EXPECT_TRUE(c.weights.bK.has_value());

    // The loaded module runs, both ways, with its grouped heads, rotation and window.
    engine::AttentionOptions options;
    options.positions = c.positions;
    const engine::MultiHeadAttention m(c.weights, c.description);
    const engine::AttentionTrace t = m.forward(c.query, c.key, c.value, c.mask, options);
    engine::AttentionOptions byStages = options;
    byStages.path = engine::AttentionPath::ByStages;
    const engine::AttentionTrace s = m.forward(c.query, c.key, c.value, c.mask, byStages);
    EXPECT_EQ(t.kHeads.dim(1), 2);
    EXPECT_EQ(t.qRotated.dim(1), 4);
    EXPECT_EQ(t.biased.rank(), 0u);
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 4; ++h)
            for (std::int64_t i = 0; i < 3; ++i)
                for (std::int64_t j = 0; j < 4; ++j) {
                    const bool blocked = j > i || i - j >= 2 || j >= (b == 0 ? 4 : 3);
                    EXPECT_EQ(std::isinf(t.masked.at({b, h, i, j})), blocked)
                        << b << " " << h << " " << i << " " << j;
                    EXPECT_NEAR(t.weights.at({b, h, i, j}), s.weights.at({b, h, i, j}), 1e-6);
                }
}

// --- num_kv_heads -------------------------------------------------------------------------------

TEST_F(AttentionCaseVariants, NumKvHeadsAsStringOrNumber)
{
    for (const bool asNumber : {false, true}) {
        CaseFile f;
        if (asNumber)
            f.json("num_kv_heads", "2");
        else
            f.text("num_kv_heads", "2");
        expectLoads(f, asNumber ? "2" : "\"2\"");
        const AttentionCase c = loadAttentionCase(f.file());
        EXPECT_EQ(c.description.queryHeads, 4);
        EXPECT_EQ(c.description.keyValueHeads, 2);
        EXPECT_EQ(c.description.queryKeySize, 2);
        EXPECT_EQ(c.description.valueSize, 2);
    }
    // Multi-query attention: one K/V head for all four query heads.
    CaseFile one;
    one.json("num_kv_heads", "1");
    one.f32("w_k", {2, 4});
    one.f32("w_v", {2, 4});
    expectLoads(one, "num_kv_heads 1");
    EXPECT_EQ(loadAttentionCase(one.file()).description.keyValueHeads, 1);
    // Absent: as many K/V heads as query heads.
    CaseFile absent;
    absent.metadata.erase("num_kv_heads");
    absent.f32("w_k", {8, 4});
    absent.f32("w_v", {8, 4});
    expectLoads(absent, "no num_kv_heads");
    EXPECT_EQ(loadAttentionCase(absent.file()).description.keyValueHeads, 4);
}

TEST_F(AttentionCaseVariants, NumKvHeadsThatDoesNotDivideNumHeads)
{
    for (const char* raw : {"3", "\"3\"", "8", "\"5\""}) {
        CaseFile f;
        f.json("num_kv_heads", raw);
        expectRefused(f, "num_kv_heads", "expected a divisor of num_heads 4", raw);
    }
}

TEST_F(AttentionCaseVariants, NumKvHeadsThatIsNotAPositiveInteger)
{
    struct Bad {
        const char* raw;
        const char* fragment;
    };
    const Bad bad[] = {
        {"\"0\"", "expected a positive number of K/V heads"},
        {"0", "expected a positive number of K/V heads"},
        {"\"-2\"", "expected a positive number of K/V heads"},
        {"-1", "expected a positive number of K/V heads"},
        {"\"2000000\"", "at most 1048576"},
        {"4294967298", "at most 1048576"}, // 2^32 + 2: must not wrap to 2
        {"\"99999999999999999999\"", "expected an integer"},
        {"99999999999999999999", "expected an integer"},
        {"\"2.5\"", "expected an integer"},
        {"2.5", "expected an integer"},
        {"\"abc\"", "expected an integer"},
        {"\"\"", "expected an integer"},
        {"\" 2\"", "expected an integer"},
        {"\"2 \"", "expected an integer"},
        {"true", "expected an integer"},
        {"null", "expected an integer"},
        {"[2]", "expected an integer"},
    };
    for (const Bad& b : bad) {
        CaseFile f;
        f.json("num_kv_heads", b.raw);
        expectRefused(f, "num_kv_heads", b.fragment, b.raw);
    }
}

TEST_F(AttentionCaseVariants, KeyWeightRowsMustBeKvHeadsTimesQueryKeySize)
{
    // 2 K/V heads of Pqk = 2: w_k needs 4 rows, whatever w_v has.
    for (const std::int64_t rows : {8, 2, 6}) {
        CaseFile f;
        f.f32("w_k", {rows, 4});
        expectRefused(f, "w_k", "w_k has " + std::to_string(rows) + " rows; expected 4",
                      "w_k rows " + std::to_string(rows));
    }
    // One K/V head: w_k must shrink to Pqk rows.
    CaseFile mqa;
    mqa.text("num_kv_heads", "1");
    mqa.f32("w_v", {2, 4});
    expectRefused(mqa, "w_k", "w_k has 4 rows; expected 2", "num_kv_heads 1");
    // w_v rows that the K/V heads cannot share.
    CaseFile values;
    values.f32("w_v", {5, 4});
    expectRefused(values, "w_v", "w_v has 5 rows, which 2 K/V heads cannot share equally",
                  "w_v rows 5");
    // b_k follows w_k.
    CaseFile bias;
    bias.f32("b_k", {8});
    expectRefused(bias, "b_k", "b_k has 8 values; expected 4", "b_k of 8");
}

// --- rope_theta ---------------------------------------------------------------------------------

TEST_F(AttentionCaseVariants, RopeThetaAsStringOrNumber)
{
    struct Good {
        const char* raw;
        double theta;
    };
    const Good good[] = {{"\"10000\"", 10000.0}, {"10000", 10000.0}, {"\"1e6\"", 1e6},
                         {"500000.0", 500000.0}, {"\"0.5\"", 0.5},   {"2", 2.0}};
    for (const Good& g : good) {
        CaseFile f;
        f.json("rope_theta", g.raw);
        expectLoads(f, g.raw);
        const AttentionCase c = loadAttentionCase(f.file());
        ASSERT_TRUE(c.description.rotary.has_value()) << g.raw;
        EXPECT_EQ(c.description.rotary->theta, g.theta) << g.raw;
        EXPECT_EQ(c.description.rotary->rotatedSize, 0) << g.raw;
        EXPECT_EQ(c.description.rotatedSize(), 2) << g.raw;
    }
    CaseFile none;
    EXPECT_FALSE(loadAttentionCase(none.file()).description.rotary.has_value());
}

TEST_F(AttentionCaseVariants, RopeThetaThatIsNotAPositiveFiniteNumber)
{
    for (const char* raw : {"\"0\"", "0", "\"-1\"", "-1", "-0.5", "\"nan\"", "\"NaN\"", "\"inf\"",
                            "\"-inf\"", "\"infinity\"", "\"1e400\"", "\"abc\"", "\"\"",
                            "\"10000 \"", "\"1e4x\"", "true", "null", "[10000]"}) {
        CaseFile f;
        f.json("rope_theta", raw);
        expectRefused(f, "rope_theta", "expected a positive", raw);
    }
    // A JSON number beyond double is refused by the JSON parser, before any field is read: one
    // line, naming where in the header it is rather than the field.
    CaseFile huge;
    huge.json("rope_theta", "1e400");
    const Outcome o = outcome(huge);
    EXPECT_EQ(o.type, "FormatError") << o;
    EXPECT_EQ(o.message.find('\n'), std::string::npos) << o;
    EXPECT_THAT(o.message, HasSubstr("number out of range")) << o;
}

TEST_F(AttentionCaseVariants, RopeThetaNeedsAnEvenHeadSize)
{
    // Pqk = 3: w_q 4·3 rows, w_k 2·3 rows.
    CaseFile f;
    f.f32("w_q", {12, 4});
    f.f32("w_k", {6, 4});
    expectLoads(f, "odd Pqk without rotary positions");
    f.text("rope_theta", "10000");
    expectRefused(f, "rope_theta", "3 features", "odd Pqk with rope_theta");
    f.json("rope_theta", "10000");
    expectRefused(f, "rope_theta", "expected an even number", "odd Pqk with rope_theta 10000");
}

// --- query_positions / key_positions ------------------------------------------------------------

TEST_F(AttentionCaseVariants, PositionsAsI32OrI64)
{
    CaseFile f;
    f.text("rope_theta", "10000");
    f.raw<std::int32_t>("query_positions", "I32", {2, 3}, {0, 7, 2, 9, 9, 9});
    f.raw<std::int64_t>("key_positions", "I64", {2, 4},
                        {0, 1, 2, engine::kMaxPosition, 4, 5, 6, 7});
    expectLoads(f, "I32 queries, I64 keys");
    AttentionCase c = loadAttentionCase(f.file());
    EXPECT_EQ(c.positions.query, (std::vector<std::int64_t>{0, 7, 2, 9, 9, 9}));
    EXPECT_EQ(c.positions.key,
              (std::vector<std::int64_t>{0, 1, 2, engine::kMaxPosition, 4, 5, 6, 7}));

    f.raw<std::int64_t>("query_positions", "I64", {2, 3}, {1, 2, 3, 4, 5, 6});
    f.raw<std::int32_t>("key_positions", "I32", {2, 4}, {0, 1, 2, 3, 0, 1, 2, 3});
    expectLoads(f, "I64 queries, I32 keys");
    c = loadAttentionCase(f.file());
    EXPECT_EQ(c.positions.query, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(c.positions.key, (std::vector<std::int64_t>{0, 1, 2, 3, 0, 1, 2, 3}));

    // Only one of them: the other is 0 … N − 1 (empty).
    CaseFile queriesOnly;
    queriesOnly.text("rope_theta", "10000");
    queriesOnly.raw<std::int64_t>("query_positions", "I64", {2, 3}, {4, 5, 6, 4, 5, 6});
    expectLoads(queriesOnly, "query positions only");
    c = loadAttentionCase(queriesOnly.file());
    EXPECT_EQ(c.positions.query.size(), 6u);
    EXPECT_TRUE(c.positions.key.empty());
}

TEST_F(AttentionCaseVariants, PositionsWithAWrongDType)
{
    for (const char* name : {"query_positions", "key_positions"}) {
        const bool query = std::string(name) == "query_positions";
        const std::vector<std::int64_t> shape = {2, query ? 3 : 4};
        CaseFile f;
        f.text("rope_theta", "10000");
        f.f32(name, shape);
        expectRefused(f, name, "has dtype F32; expected I32 or I64", std::string(name) + " F32");
        CaseFile u8;
        u8.text("rope_theta", "10000");
        u8.raw<std::uint8_t>(name, "U8", shape, std::vector<std::uint8_t>(query ? 6 : 8, 1));
        expectRefused(u8, name, "has dtype U8; expected I32 or I64", std::string(name) + " U8");
    }
}

TEST_F(AttentionCaseVariants, PositionsWithAWrongShape)
{
    struct Bad {
        const char* name;
        std::vector<std::int64_t> shape;
        const char* fragment;
    };
    const Bad bad[] = {
        {"query_positions", {2, 4}, "has shape [2, 4]; expected [2, 3], one position per query"},
        {"query_positions", {3, 2}, "has shape [3, 2]; expected [2, 3]"},
        {"query_positions", {1, 3}, "has shape [1, 3]; expected [2, 3]"},
        {"query_positions", {6}, "has 1 dimensions (shape [6]); expected 2 [B, Nq]"},
        {"query_positions", {2, 3, 1}, "has 3 dimensions"},
        {"key_positions", {2, 3}, "has shape [2, 3]; expected [2, 4], one position per key"},
        {"key_positions", {8}, "has 1 dimensions (shape [8]); expected 2 [B, Nk]"},
        {"key_positions", {2, 0}, "zero-sized dimension"},
    };
    for (const Bad& b : bad) {
        std::int64_t n = 1;
        for (auto d : b.shape)
            n *= d;
        CaseFile f;
        f.text("rope_theta", "10000");
        f.raw<std::int64_t>(b.name, "I64", b.shape,
                            std::vector<std::int64_t>(static_cast<std::size_t>(n), 1));
        expectRefused(f, b.name, b.fragment, b.fragment);
    }
}

TEST_F(AttentionCaseVariants, PositionsOutOfRange)
{
    CaseFile i32;
    i32.text("rope_theta", "10000");
    i32.raw<std::int32_t>("query_positions", "I32", {2, 3}, {0, 1, -1, 0, 1, 2});
    expectRefused(i32, "query_positions",
                  "holds -1 at index [0, 2]; expected a position from 0 to " + kMaxPositionText,
                  "I32 -1");
    CaseFile i64;
    i64.text("rope_theta", "10000");
    i64.raw<std::int64_t>("key_positions", "I64", {2, 4}, {0, 1, 2, 3, 0, 1, 2, -7});
    expectRefused(i64, "key_positions", "holds -7 at index [1, 3]", "I64 -7");
    CaseFile big;
    big.text("rope_theta", "10000");
    big.raw<std::int64_t>("key_positions", "I64", {2, 4},
                          {0, 1, 2, 3, 0, 1, engine::kMaxPosition + 1, 3});
    expectRefused(big, "key_positions",
                  "holds " + std::to_string(engine::kMaxPosition + 1) + " at index [1, 2]",
                  "beyond the largest position");
    CaseFile smallest;
    smallest.text("rope_theta", "10000");
    smallest.raw<std::int64_t>("key_positions", "I64", {2, 4},
                               {0, 1, 2, 3, 0, 1, std::numeric_limits<std::int64_t>::min(), 3});
    expectRefused(smallest, "key_positions", "at index [1, 2]", "INT64_MIN");
}

TEST_F(AttentionCaseVariants, PositionsWithoutRopeThetaAreIgnored)
{
    // Whatever they hold: no module reads them.
    CaseFile f;
    f.f32("query_positions", {5});
    f.raw<std::int32_t>("key_positions", "I32", {2, 4}, {-1, -2, -3, -4, 0, 0, 0, 0});
    expectLoads(f, "positions without rope_theta");
    const AttentionCase c = loadAttentionCase(f.file());
    EXPECT_FALSE(c.description.rotary.has_value());
    EXPECT_TRUE(c.positions.query.empty());
    EXPECT_TRUE(c.positions.key.empty());

    CaseFile valid;
    valid.raw<std::int64_t>("query_positions", "I64", {2, 3}, {3, 4, 5, 3, 4, 5});
    expectLoads(valid, "well-formed positions without rope_theta");
    EXPECT_TRUE(loadAttentionCase(valid.file()).positions.query.empty());
}

// --- sliding_window -----------------------------------------------------------------------------

TEST_F(AttentionCaseVariants, SlidingWindowAsStringOrNumber)
{
    for (const char* raw : {"\"3\"", "3"}) {
        CaseFile f;
        f.text("causal", "true");
        f.json("sliding_window", raw);
        expectLoads(f, raw);
        const AttentionCase c = loadAttentionCase(f.file());
        EXPECT_TRUE(c.description.mask.causal) << raw;
        EXPECT_EQ(c.description.mask.slidingWindow, std::optional<std::int64_t>(3)) << raw;
    }
    CaseFile none;
    none.text("causal", "true");
    EXPECT_FALSE(loadAttentionCase(none.file()).description.mask.slidingWindow.has_value());
}

TEST_F(AttentionCaseVariants, SlidingWindowNeedsCausal)
{
    CaseFile absent;
    absent.text("sliding_window", "2");
    expectRefused(absent, "sliding_window", "'causal' is not \"true\"", "no causal");
    CaseFile off;
    off.text("causal", "false");
    off.json("sliding_window", "2");
    expectRefused(off, "sliding_window", "'causal' is not \"true\"", "causal false");
}

TEST_F(AttentionCaseVariants, SlidingWindowThatIsNotAPositiveInteger)
{
    struct Bad {
        const char* raw;
        const char* fragment;
    };
    const Bad bad[] = {
        {"\"0\"", "expected a positive number of keys"},
        {"0", "expected a positive number of keys"},
        {"\"-3\"", "expected a positive number of keys"},
        {"-3", "expected a positive number of keys"},
        {"\"3000000000\"", "at most 2147483647"},
        {"\"x\"", "expected an integer"},
        {"\"2.5\"", "expected an integer"},
        {"2.5", "expected an integer"},
        {"\"\"", "expected an integer"},
        {"true", "expected an integer"},
    };
    for (const Bad& b : bad)
        for (const bool causal : {true, false}) {
            CaseFile f;
            if (causal)
                f.text("causal", "true");
            f.json("sliding_window", b.raw);
            // A bad value is named as such whether or not causal is set.
            expectRefused(f, "sliding_window", b.fragment,
                          std::string(b.raw) + (causal ? " with causal" : " without causal"));
        }
}

// A value echoed in an error cannot reorder the terminal line (a bidi override) or ring, clear or
// colour it (controls): both are escaped.
TEST_F(AttentionCaseVariants, AnEchoedValueIsEscaped)
{
    CaseFile f;
    f.text("causal", "true");
    f.json("sliding_window", "\"3\u202e\\u0007\u2067x\""); // JSON escapes the bell
    const Outcome o = outcome(f);
    EXPECT_THAT(o.message, HasSubstr("\\u202e\\x07\\u2067x")) << o;
    EXPECT_THAT(o.message, Not(HasSubstr("\u202e"))) << o;
    EXPECT_THAT(o.message, Not(HasSubstr("\a"))) << o;
    EXPECT_EQ(printable("a\u061cb\u200fc\u202ad\u2069e"), "a\\u061cb\\u200fc\\u202ad\\u2069e");
    EXPECT_EQ(printable("Ελληνικά 注意力 \u200e"), "Ελληνικά 注意力 \\u200e") << "other text stays";
}

} // namespace
} // namespace attnviz::io
