#include "io/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace attnviz::io {
namespace {

using ::testing::HasSubstr;

std::string withHeader(const std::string& header, const std::string& data)
{
    std::string out(8, '\0');
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + data;
}

std::string errorOf(std::string bytes)
{
    try {
        SafetensorsFile::parse(std::move(bytes));
    } catch (const FormatError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Safetensors, RoundTripsTensorsAndMetadata)
{
    auto w = SafetensorsWriter::inMemory();
    const std::vector<float> a = {1.5f, -2.0f, 3.25f, 0.0f, -INFINITY, 7.0f};
    w.addF32("layer0.weights", {2, 3}, a);
    w.addRaw("lens", DType::I64, {1}, std::string_view("\x03\0\0\0\0\0\0\0", 8));
    w.setMetadata("num_heads", "4");
    const std::string bytes = w.finish();

    std::uint64_t headerSize = 0;
    std::memcpy(&headerSize, bytes.data(), 8);
    EXPECT_EQ((8 + headerSize) % 8, 0u) << "data must start 8-byte aligned";

    const SafetensorsFile f = SafetensorsFile::parse(bytes);
    ASSERT_EQ(f.tensors().size(), 2u);
    const TensorEntry* t = f.find("layer0.weights");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->dtype, DType::F32);
    EXPECT_EQ(t->shapeString(), "[2, 3]");
    std::vector<float> back(6);
    std::memcpy(back.data(), t->bytes.data(), 24);
    EXPECT_EQ(back, a);
    EXPECT_EQ(f.find("lens")->dtype, DType::I64);
    EXPECT_EQ(f.metadata().find("num_heads")->asString(), "4");
}

TEST(Safetensors, TruncatedBeforeHeaderLength)
{
    EXPECT_THAT(errorOf(std::string("\x10\0\0", 3)), HasSubstr("truncated: it has 3 bytes"));
}

TEST(Safetensors, HeaderLengthBeyondFile)
{
    std::string bytes = withHeader("{}", "");
    const std::uint64_t huge = 1000;
    std::memcpy(bytes.data(), &huge, 8);
    EXPECT_THAT(errorOf(bytes), HasSubstr("header length 1000 goes beyond the end of the file"));
}

TEST(Safetensors, HeaderThatIsNotJson)
{
    EXPECT_THAT(errorOf(withHeader("{\"a\": ", "")), HasSubstr("header is not valid JSON"));
}

TEST(Safetensors, HeaderThatIsNotAnObject)
{
    EXPECT_THAT(errorOf(withHeader("[1, 2]  ", "")), HasSubstr("not a JSON object"));
}

TEST(Safetensors, UnknownDType)
{
    EXPECT_THAT(errorOf(withHeader(R"({"x":{"dtype":"F9","shape":[1],"data_offsets":[0,4]}})",
                                   std::string(4, '\0'))),
                HasSubstr("tensor 'x' has unknown dtype \"F9\""));
}

TEST(Safetensors, NegativeShape)
{
    EXPECT_THAT(errorOf(withHeader(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                                   std::string(4, '\0'))),
                HasSubstr("tensor 'x' has shape entry -1"));
}

TEST(Safetensors, OffsetsOutsideData)
{
    EXPECT_THAT(
        errorOf(withHeader(R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                           std::string(8, '\0'))),
        HasSubstr("tensor 'x' has data_offsets [0, 16] outside the data, which has 8 bytes"));
}

TEST(Safetensors, OffsetsReversed)
{
    EXPECT_THAT(errorOf(withHeader(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})",
                                   std::string(8, '\0'))),
                HasSubstr("begin <= end"));
}

TEST(Safetensors, SizeDisagreesWithShape)
{
    EXPECT_THAT(errorOf(withHeader(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                                   std::string(8, '\0'))),
                HasSubstr("tensor 'x' has 8 bytes of data; expected 12 for F32 [3]"));
}

TEST(Safetensors, OverlappingTensors)
{
    const std::string header = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
    EXPECT_THAT(errorOf(withHeader(header, std::string(16, '\0'))),
                HasSubstr("tensors 'a' and 'b' overlap"));
}

TEST(Safetensors, OverlapHiddenBehindAnEmptyTensor)
{
    const std::string header = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                               R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                               R"("b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})";
    EXPECT_THAT(errorOf(withHeader(header, std::string(16, '\0'))),
                HasSubstr("tensors 'a' and 'b' overlap"));
}

TEST(Safetensors, MetadataMustBeAnObject)
{
    EXPECT_THAT(errorOf(withHeader(R"({"__metadata__": 3})", "")), HasSubstr("__metadata__ is 3"));
}

TEST(Safetensors, TensorEntryMustBeAnObject)
{
    EXPECT_THAT(errorOf(withHeader(R"({"x": "F32"})", "")),
                HasSubstr("tensor 'x' is described by \"F32\""));
}

TEST(Safetensors, MissingFileIsAFileError)
{
    EXPECT_THROW(SafetensorsFile::read("/nonexistent/attnviz/case.safetensors"),
                 std::runtime_error);
}

} // namespace
} // namespace attnviz::io
