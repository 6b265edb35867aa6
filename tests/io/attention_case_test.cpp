// Every bad input named by the attnviz-cli mha contract (#2) is refused by the case loader with
// one sentence naming the tensor or field and what was expected.
#include "engine/input_error.h"
#include "engine/multi_head_attention.h"
#include "io/attention_case.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace attnviz::io {
namespace {

using ::testing::HasSubstr;

/// A valid case (B=2, Nq=3, Nk=4, Dq=Dk=Dv=4, H=2, P=2) that each test breaks in one place.
struct CaseBuilder {
    struct Entry {
        DType dtype;
        std::vector<std::int64_t> shape;
        std::string bytes;
    };
    std::map<std::string, Entry> tensors;
    std::map<std::string, std::string> metadata{{"num_heads", "2"}};

    CaseBuilder()
    {
        f32("query", {2, 3, 4});
        f32("key", {2, 4, 4});
        f32("value", {2, 4, 4});
        for (const char* w : {"w_q", "w_k", "w_v", "w_o"})
            f32(w, {4, 4});
        f32("b_q", {4});
    }

    CaseBuilder& f32(const std::string& name, std::vector<std::int64_t> shape, float fill = 0.25f)
    {
        std::int64_t n = 1;
        for (auto d : shape)
            n *= d;
        std::vector<float> v(static_cast<std::size_t>(n), fill);
        std::string bytes(v.size() * 4, '\0');
        if (!v.empty()) // an empty vector's data() may be null, which memcpy must not see
            std::memcpy(bytes.data(), v.data(), bytes.size());
        tensors[name] = {DType::F32, std::move(shape), std::move(bytes)};
        return *this;
    }

    template <typename T>
    CaseBuilder& raw(const std::string& name, DType dtype, std::vector<std::int64_t> shape,
                     std::vector<T> values)
    {
        std::string bytes(values.size() * sizeof(T), '\0');
        if (!values.empty())
            std::memcpy(bytes.data(), values.data(), bytes.size());
        tensors[name] = {dtype, std::move(shape), std::move(bytes)};
        return *this;
    }

    void setFloat(const std::string& name, std::size_t index, float value)
    {
        std::memcpy(tensors[name].bytes.data() + 4 * index, &value, 4);
    }

    SafetensorsFile file() const
    {
        auto w = SafetensorsWriter::inMemory();
        for (const auto& [k, v] : metadata)
            w.setMetadata(k, v);
        for (const auto& [name, e] : tensors)
            w.addRaw(name, e.dtype, e.shape, e.bytes);
        return SafetensorsFile::parse(w.finish());
    }
};

/// Loads and runs the case as attnviz-cli does; returns the error sentence or "ok".
std::string outcome(const CaseBuilder& b)
{
    try {
        const AttentionCase c = loadAttentionCase(b.file());
        engine::MultiHeadAttention(c.weights, c.description)
            .forward(c.query, c.key, c.value, c.mask);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "ok";
}

TEST(AttentionCase, ValidCaseLoads)
{
    CaseBuilder b;
    b.raw<std::int32_t>("valid_lens", DType::I32, {2}, {1, 4});
    b.raw<std::uint8_t>("mask", DType::Bool, {3, 4}, std::vector<std::uint8_t>(12, 1));
    b.metadata["causal"] = "true";
    EXPECT_EQ(outcome(b), "ok");
    const AttentionCase c = loadAttentionCase(b.file());
    EXPECT_EQ(c.description.queryHeads, 2);
    EXPECT_EQ(c.description.keyValueHeads, 2);
    EXPECT_TRUE(c.description.mask.causal);
    EXPECT_EQ(c.mask.validLengths->lengths, (std::vector<std::int64_t>{1, 4}));
    EXPECT_FALSE(c.mask.explicitMask->perBatch);
    EXPECT_TRUE(c.weights.bQ.has_value());
    EXPECT_FALSE(c.weights.bK.has_value());
}

TEST(AttentionCase, MissingTensor)
{
    CaseBuilder b;
    b.tensors.erase("w_k");
    EXPECT_THAT(outcome(b), HasSubstr("tensor 'w_k' is missing; expected F32 [H·Pqk, Dk]"));
}

TEST(AttentionCase, WrongNumberOfDimensions)
{
    CaseBuilder b;
    b.f32("query", {3, 4});
    EXPECT_THAT(
        outcome(b),
        HasSubstr("tensor 'query' has 2 dimensions (shape [3, 4]); expected 3 [B, Nq, Dq]"));
}

TEST(AttentionCase, ShapesThatDoNotAgree)
{
    CaseBuilder b;
    b.f32("value", {2, 5, 4});
    EXPECT_THAT(outcome(b), HasSubstr("value has 5 tokens; expected 4"));
    CaseBuilder widths;
    widths.f32("w_v", {4, 3});
    EXPECT_THAT(outcome(widths),
                HasSubstr("value has width 4; expected 3 to match the columns of w_v"));
}

TEST(AttentionCase, ProjectionRowsNotDivisibleByHeads)
{
    CaseBuilder b;
    b.metadata["num_heads"] = "3";
    EXPECT_THAT(outcome(b), HasSubstr("w_q has 4 rows, which 3 heads cannot share equally"));
}

TEST(AttentionCase, ZeroSizedDimension)
{
    CaseBuilder b;
    b.f32("key", {2, 0, 4});
    EXPECT_THAT(outcome(b), HasSubstr("tensor 'key' has a zero-sized dimension (shape [2, 0, 4])"));
}

TEST(AttentionCase, UnsupportedDType)
{
    CaseBuilder b;
    b.raw<double>("w_o", DType::F64, {4, 4}, std::vector<double>(16, 0.5));
    EXPECT_THAT(outcome(b), HasSubstr("tensor 'w_o' has dtype F64; expected F32"));
    CaseBuilder lens;
    lens.f32("valid_lens", {2});
    EXPECT_THAT(outcome(lens), HasSubstr("tensor 'valid_lens' has dtype F32; expected I32 or I64"));
    CaseBuilder mask;
    mask.raw<std::int32_t>("mask", DType::I32, {3, 4}, std::vector<std::int32_t>(12, 1));
    EXPECT_THAT(outcome(mask), HasSubstr("tensor 'mask' has dtype I32; expected U8 or BOOL"));
}

TEST(AttentionCase, NaNAndInfinityNameTheFirstIndex)
{
    CaseBuilder b;
    b.setFloat("key", 13, NAN); // [0, 3, 1]
    b.setFloat("key", 20, NAN);
    EXPECT_THAT(outcome(b), HasSubstr("tensor 'key' holds NaN at index [0, 3, 1]"));
    CaseBuilder inf;
    inf.setFloat("w_o", 6, -INFINITY);
    EXPECT_THAT(outcome(inf), HasSubstr("tensor 'w_o' holds -Inf at index [1, 2]"));
    CaseBuilder bias;
    bias.setFloat("b_q", 3, INFINITY);
    EXPECT_THAT(outcome(bias), HasSubstr("tensor 'b_q' holds +Inf at index [3]"));
}

TEST(AttentionCase, MissingNumHeads)
{
    CaseBuilder b;
    b.metadata.erase("num_heads");
    EXPECT_THAT(outcome(b), HasSubstr("metadata field 'num_heads' is missing"));
}

TEST(AttentionCase, MetadataThatIsNotAnInteger)
{
    for (const char* bad : {"two", "2.5", "", "2x", " 2"}) {
        CaseBuilder b;
        b.metadata["num_heads"] = bad;
        EXPECT_THAT(outcome(b),
                    HasSubstr("metadata field 'num_heads' is \"" + std::string(bad) +
                              "\"; expected an integer"));
    }
    CaseBuilder zero;
    zero.metadata["num_heads"] = "0";
    EXPECT_THAT(outcome(zero), HasSubstr("expected a positive number of heads"));
}

TEST(AttentionCase, CausalMustBeTrueOrFalse)
{
    CaseBuilder b;
    b.metadata["causal"] = "yes";
    EXPECT_THAT(outcome(b),
                HasSubstr("metadata field 'causal' is \"yes\"; expected \"true\" or \"false\""));
}

TEST(AttentionCase, ValidLengthsShape)
{
    CaseBuilder b;
    b.raw<std::int64_t>("valid_lens", DType::I64, {3}, {1, 2, 3});
    EXPECT_THAT(outcome(b), HasSubstr("tensor 'valid_lens' has shape [3]; expected [2] or [2, 3]"));
    CaseBuilder perQuery;
    perQuery.raw<std::int64_t>("valid_lens", DType::I64, {2, 3}, {1, 2, 3, 0, 4, -1});
    EXPECT_THAT(outcome(perQuery), HasSubstr("tensor 'valid_lens' holds -1 at index [1, 2]"));
}

TEST(AttentionCase, MaskShapeAndValues)
{
    CaseBuilder b;
    b.raw<std::uint8_t>("mask", DType::U8, {4, 3}, std::vector<std::uint8_t>(12, 1));
    EXPECT_THAT(outcome(b),
                HasSubstr("tensor 'mask' has shape [4, 3]; expected [3, 4] or [2, 3, 4]"));
    CaseBuilder values;
    std::vector<std::uint8_t> m(24, 1);
    m[5] = 7;
    values.raw<std::uint8_t>("mask", DType::U8, {2, 3, 4}, m);
    EXPECT_THAT(outcome(values), HasSubstr("tensor 'mask' holds 7 at index [0, 1, 1]"));
}

TEST(AttentionCase, BiasWithWrongLength)
{
    CaseBuilder b;
    b.f32("b_o", {5});
    EXPECT_THAT(outcome(b), HasSubstr("b_o has 5 values; expected 4"));
}

} // namespace
} // namespace attnviz::io
