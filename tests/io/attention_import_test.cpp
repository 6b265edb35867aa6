// Attention imports (docs/attention-import.md): the files tools/make_attention_imports.py writes
// come back with exactly the numbers it wrote, whatever the layout and dtype, and every malformed
// one is refused with one sentence naming the tensor or field at fault.
#include "io/attention_import.h"
#include "io/file_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

#include <unistd.h>

namespace attnviz::io {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kDir = std::string(ATTNVIZ_TEST_DATA_DIR) + "/attentions/";

ImportedAttentions importFile(const std::string& name)
{
    return readAttentionImport(kDir + name + ".safetensors");
}

/// The error sentence for a file the reader must refuse ("" when it is accepted).
std::string refusal(const std::function<ImportedAttentions()>& read)
{
    try {
        read();
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

std::vector<std::string> jsonStrings(const JsonValue& metadata, const char* field)
{
    std::vector<std::string> out;
    const JsonValue array = parseJson(metadata.find(field)->asString());
    for (const JsonValue& v : array.asArray())
        out.push_back(v.asString());
    return out;
}

/// What the script wrote beside each valid file: the float values, tokens and flags.
struct Expected {
    std::vector<std::int64_t> shape; // [layers, heads, query, key]
    std::vector<float> weights;
    std::vector<std::string> queryTokens, keyTokens;
    std::string model;
    bool causal = false;
    std::vector<std::vector<engine::MaskedRow>> fullyMaskedRows;
};

Expected expected(const std::string& name)
{
    const SafetensorsFile file = SafetensorsFile::read(kDir + name + ".expected.safetensors");
    const TensorEntry& t = *file.find("weights");
    Expected e;
    e.shape = t.shape;
    e.weights.resize(static_cast<std::size_t>(t.elementCount()));
    std::memcpy(e.weights.data(), t.bytes.data(), t.bytes.size());
    const JsonValue& m = file.metadata();
    e.queryTokens = jsonStrings(m, "query_tokens");
    e.keyTokens = jsonStrings(m, "key_tokens");
    e.model = m.find("model")->asString();
    e.causal = m.find("causal")->asString() == "true";
    e.fullyMaskedRows.resize(static_cast<std::size_t>(t.shape[0]));
    const JsonValue rows = parseJson(m.find("fully_masked_rows")->asString());
    for (const JsonValue& row : rows.asArray())
        e.fullyMaskedRows[static_cast<std::size_t>(row.asArray()[0].asInteger())].push_back(
            {0, row.asArray()[1].asInteger()});
    return e;
}

/// All values of an import as one [layers, heads, query, key] vector.
std::vector<float> flatten(const ImportedAttentions& a)
{
    std::vector<float> all;
    for (const engine::Tensor& t : a.weights)
        all.insert(all.end(), t.values().begin(), t.values().end());
    return all;
}

TEST(AttentionImport, ValidFilesHoldExactlyWhatTheScriptWrote)
{
    for (const char* name :
         {"gpt_layers", "gpt_layers_batch", "gpt_stacked", "gpt_stacked_batch", "gpt_f16",
          "gpt_bf16", "gpt_f64", "bert_padded", "cross", "masked_row"}) {
        SCOPED_TRACE(name);
        const ImportedAttentions a = importFile(name);
        const Expected e = expected(name);
        EXPECT_EQ(a.layers, e.shape[0]);
        EXPECT_EQ(a.heads, e.shape[1]);
        ASSERT_EQ(a.weights.size(), static_cast<std::size_t>(e.shape[0]));
        for (const engine::Tensor& t : a.weights)
            EXPECT_EQ(t.axes(),
                      (std::vector<engine::Axis>{{"batch", 1},
                                                 {"head", e.shape[1]},
                                                 {"query", e.shape[2]},
                                                 {"key", e.shape[3]}}));
        EXPECT_EQ(flatten(a), e.weights); // bit for bit: F16, BF16 widen exactly; F64 rounds once
        EXPECT_EQ(a.queryTokens, e.queryTokens);
        EXPECT_EQ(a.keyTokens, e.keyTokens);
        EXPECT_EQ(a.model, e.model);
        EXPECT_EQ(a.causal, e.causal);
        EXPECT_EQ(a.crossAttention, std::string(name) == "cross");
        EXPECT_EQ(a.fullyMaskedRows, e.fullyMaskedRows);
    }
}

TEST(AttentionImport, EveryLayoutOfOneRunGivesTheSameWeights)
{
    const std::vector<float> perLayer = flatten(importFile("gpt_layers"));
    EXPECT_EQ(flatten(importFile("gpt_layers_batch")), perLayer);
    EXPECT_EQ(flatten(importFile("gpt_stacked")), perLayer);
    EXPECT_EQ(flatten(importFile("gpt_stacked_batch")), perLayer);
    // The F32 file holds the float64 run rounded to float, which is what reading F64 gives.
    EXPECT_EQ(flatten(importFile("gpt_f64")), perLayer);
    // F16 keeps 11 significant bits and BF16 8: each value is that close to the F32 one.
    const std::vector<float> f16 = flatten(importFile("gpt_f16"));
    const std::vector<float> bf16 = flatten(importFile("gpt_bf16"));
    ASSERT_EQ(f16.size(), perLayer.size());
    ASSERT_EQ(bf16.size(), perLayer.size());
    for (std::size_t i = 0; i < perLayer.size(); ++i) {
        EXPECT_NEAR(f16[i], perLayer[i], std::ldexp(perLayer[i], -11) + 1e-7f) << i;
        EXPECT_NEAR(bf16[i], perLayer[i], std::ldexp(perLayer[i], -8) + 1e-30f) << i;
    }
}

TEST(AttentionImport, WhatTheFixturesAreKnownToHold)
{
    const ImportedAttentions gpt = importFile("gpt_layers");
    EXPECT_EQ(gpt.queryTokens,
              (std::vector<std::string>{"The", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat"}));
    EXPECT_EQ(gpt.model, "tiny-gpt");
    EXPECT_TRUE(gpt.causal);
    EXPECT_EQ(gpt.layers, 3);
    EXPECT_EQ(gpt.heads, 4);
    for (int l = 0; l < 3; ++l)
        for (int h = 0; h < 4; ++h) {
            EXPECT_EQ(gpt.weights[l].at({0, h, 0, 0}), 1.0f); // the first token sees only itself
            for (int q = 0; q < 6; ++q)
                for (int k = q + 1; k < 6; ++k)
                    EXPECT_EQ(gpt.weights[l].at({0, h, q, k}), 0.0f);
        }

    const ImportedAttentions bert = importFile("bert_padded");
    EXPECT_FALSE(bert.causal);
    EXPECT_EQ(bert.model, "tiny-bert");
    EXPECT_EQ(bert.queryTokens.back(), "[PAD]");
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int q = 0; q < 6; ++q)
                EXPECT_EQ(bert.weights[l].at({0, h, q, 5}), 0.0f); // the padding key
    EXPECT_GT(bert.weights[0].at({0, 0, 0, 4}), 0.5f); // not causal: a later key is seen

    const ImportedAttentions cross = importFile("cross");
    EXPECT_TRUE(cross.crossAttention);
    EXPECT_EQ(cross.queryTokens, (std::vector<std::string>{"<pad>", "▁Le", "▁chat"}));
    EXPECT_EQ(cross.keyTokens, (std::vector<std::string>{"▁The", "▁cat", "▁sat", ".", "</s>"}));
    EXPECT_EQ(cross.weights[1].shapeString(), "(batch=1, head=2, query=3, key=5)");

    const ImportedAttentions masked = importFile("masked_row");
    EXPECT_EQ(masked.queryTokens, (std::vector<std::string>{"café", "\n", "🙂", "\tend"}));
    EXPECT_FALSE(masked.causal); // written as Python's str(False)
    EXPECT_EQ(masked.model, "");
    EXPECT_EQ(masked.fullyMaskedRows, (std::vector<std::vector<engine::MaskedRow>>{{{0, 2}}}));
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < 4; ++k)
            EXPECT_EQ(masked.weights[0].at({0, h, 2, k}), 0.0f);
}

TEST(AttentionImport, MalformedFilesAreRefusedWithOneSentence)
{
    const std::map<std::string, std::vector<std::string>> cases = {
        {"no_tensors", {"no attention tensors", "'layer0'", "'attentions'"}},
        {"unknown_tensor", {"tensor 'input_ids'", "not an attention tensor"}},
        {"layer_typo", {"tensor 'layer_0'", "not an attention tensor", "'layer0', 'layer1'"}},
        {"both_forms", {"both 'attentions' and 'layer0'"}},
        {"gap", {"'layer1' is missing", "'layer2'", "without gaps"}},
        {"heads_differ", {"tensor 'layer1'", "2 heads", "expected 4"}},
        {"tokens_differ", {"tensor 'layer2'", "5 queries and 5 keys", "expected 6 and 6"}},
        {"rank2", {"tensor 'layer0'", "2 dimensions", "[heads, query, key]"}},
        {"stacked_rank3", {"tensor 'attentions'", "3 dimensions", "[layers, heads, query, key]"}},
        {"batch2", {"tensor 'layer0'", "batch axis of 2", "expected 1"}},
        {"dtype", {"tensor 'layer0'", "I64", "F32, F16, BF16 or F64"}},
        {"zero_heads", {"tensor 'layer0'", "zero-sized", "[0, 6, 6]"}},
        {"no_tokens", {"'tokens' is missing", "JSON array of strings"}},
        {"tokens_repr", {"'tokens' is not JSON", "json.dumps"}},
        {"tokens_ids", {"element 0 of metadata field 'tokens' is 5", "not its id"}},
        {"tokens_string", {"'tokens' is \"The", "JSON array of strings"}},
        {"tokens_length", {"'tokens' has 5 tokens", "6 queries and 6 keys"}},
        {"huge_token", {"element 3 of metadata field 'tokens'", "2005 bytes", "at most 1024"}},
        {"query_tokens_only", {"'key_tokens' is missing", "'query_tokens'"}},
        {"key_tokens_length", {"'key_tokens' has 4 tokens", "5 key columns"}},
        {"nan", {"tensor 'layer1'", "NaN", "head 2, query 3, key 0", "nan_to_num"}},
        {"inf", {"tensor 'attentions'", "+Inf", "layer 2, head 1, query 4, key 4"}},
        {"negative", {"tensor 'layer0'", "-0.25", "head 0, query 5, key 1", "never negative"}},
        {"scores", {"tensor 'layer0'", "head 0, query 0, key 0", "never negative"}},
        {"dropout", {"tensor 'layer0'", "row summing to 1.11111", "head 0, query 0", "0.01"}},
        {"transposed", {"tensor 'layer0'", "row summing to 1.93832", "[key, query]"}},
        {"causal_violated",
         {"tensor 'attentions'", "layer 0, head 0, query 0, key 1", "'causal' is true"}},
        {"causal_value", {"'causal' is \"yes\"", "\"true\" or \"false\""}},
        {"causal_cross", {"'causal' is true", "3 queries and 5 keys"}},
        {"model_long", {"'model' has 1500 bytes", "at most 1024"}},
    };
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kDir))
        files += entry.path().filename().string().starts_with("bad_");
    EXPECT_EQ(files, cases.size()) << "every bad_*.safetensors needs its expected sentence here";

    for (const auto& [name, words] : cases) {
        SCOPED_TRACE(name);
        const std::string file = "bad_" + name; // clang 14 cannot capture a structured binding
        const std::string message = refusal([&] { return importFile(file); });
        ASSERT_FALSE(message.empty()) << "accepted";
        for (const std::string& word : words)
            EXPECT_THAT(message, HasSubstr(word));
        EXPECT_TRUE(std::none_of(message.begin(), message.end(), [](char c) {
            return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        })) << "one line, no control bytes";
    }
}

TEST(AttentionImport, HugeTokenIsQuotedEscaped)
{
    const std::string message = refusal([] { return importFile("bad_huge_token"); });
    EXPECT_THAT(message, HasSubstr("(\"\\x1b[31mAAAA"));
    EXPECT_THAT(message, Not(HasSubstr("\x1b")));
}

/// An in-memory import of F32 tensors for the cases no fixture covers.
SafetensorsFile inMemory(
    const std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<float>>>& tensors,
    const std::map<std::string, std::string>& metadata)
{
    auto w = SafetensorsWriter::inMemory();
    for (const auto& [k, v] : metadata)
        w.setMetadata(k, v);
    for (const auto& [name, t] : tensors)
        w.addF32(name, t.first, t.second);
    return SafetensorsFile::parse(w.finish());
}

TEST(AttentionImport, RowSumToleranceIsOneHundredth)
{
    const std::map<std::string, std::string> tokens{{"tokens", R"(["a", "b"])"}};
    const auto rows = [&](float second) {
        return inMemory({{"layer0", {{1, 2, 2}, {0.5f, 0.5f, 0.3f, second}}}}, tokens);
    };
    EXPECT_EQ(refusal([&] { return readAttentionImport(rows(0.695f)); }), ""); // sums to 0.995
    EXPECT_THAT(refusal([&] { return readAttentionImport(rows(0.685f)); }),
                HasSubstr("row summing to 0.985 at head 0, query 1"));
    // A row of tiny positive values is neither a distribution nor a fully masked row.
    EXPECT_THAT(refusal([&] { return readAttentionImport(rows(0.0f)); }),
                HasSubstr("row summing to 0.3"));
    const SafetensorsFile tiny =
        inMemory({{"layer0", {{1, 2, 2}, {1e-30f, 1e-30f, 0.5f, 0.5f}}}}, tokens);
    EXPECT_THAT(refusal([&] { return readAttentionImport(tiny); }),
                HasSubstr("row summing to 2e-30 at head 0, query 0"));
}

TEST(AttentionImport, CausalToleranceIsOneMillionth)
{
    const std::map<std::string, std::string> meta{{"tokens", R"(["a", "b"])"}, {"causal", "true"}};
    const auto file = [&](float above) {
        return inMemory({{"layer0", {{1, 2, 2}, {1.0f - above, above, 0.5f, 0.5f}}}}, meta);
    };
    EXPECT_EQ(refusal([&] { return readAttentionImport(file(1e-7f)); }), "");
    EXPECT_THAT(refusal([&] { return readAttentionImport(file(1e-5f)); }),
                HasSubstr("holds 1e-05 at head 0, query 0, key 1"));
}

TEST(AttentionImport, NamesThatLookLikeLayersButAreNot)
{
    const std::map<std::string, std::string> tokens{{"tokens", R"(["a"])"}};
    for (const char* name :
         {"layer01", "layer", "layer-1", "layer1a", "Layer0", "layer99999999999999999999"}) {
        SCOPED_TRACE(name);
        EXPECT_THAT(refusal([&] {
                        return readAttentionImport(inMemory({{name, {{1, 1, 1}, {1.0f}}}}, tokens));
                    }),
                    HasSubstr("not an attention tensor"));
    }
    // A control character in a tensor name is escaped in the sentence.
    EXPECT_THAT(refusal([&] {
                    return readAttentionImport(
                        inMemory({{"layer0\n\x1b[2J", {{1, 1, 1}, {1.0f}}}}, tokens));
                }),
                HasSubstr("tensor 'layer0\\n\\x1b[2J' is not an attention tensor"));
}

TEST(AttentionImport, TokensAndCrossTokensTogetherAreAmbiguous)
{
    const SafetensorsFile file = inMemory(
        {{"layer0", {{1, 1, 1}, {1.0f}}}},
        {{"tokens", R"(["a"])"}, {"query_tokens", R"(["a"])"}, {"key_tokens", R"(["a"])"}});
    EXPECT_THAT(refusal([&] { return readAttentionImport(file); }),
                HasSubstr("both 'tokens' and 'query_tokens'"));
}

TEST(AttentionImport, F64BeyondFloatRangeIsRefusedNotConvertedToInfinity)
{
    auto w = SafetensorsWriter::inMemory();
    w.setMetadata("tokens", R"(["a", "b"])");
    const double values[] = {1e300, 0.0, 0.5, 0.5};
    w.addRaw("layer0", DType::F64, {1, 2, 2},
             {reinterpret_cast<const char*>(values), sizeof values});
    EXPECT_THAT(refusal([&] { return readAttentionImport(SafetensorsFile::parse(w.finish())); }),
                HasSubstr("row summing to 3.40282e+38 at head 0, query 0"));
}

/// The refusal for a sparse F16 file whose header promises one tensor of `shape` (2 bytes an
/// element, none of them written); "skip" when the file system cannot hold it.
std::string sparseRefusal(const std::string& name, const std::vector<std::int64_t>& shape)
{
    const auto path = std::filesystem::temp_directory_path() /
        ("attnviz_import_limit_" + std::to_string(::getpid()) + ".safetensors");
    std::uint64_t dataBytes = 2;
    std::string dims;
    for (std::int64_t d : shape) {
        dataBytes *= static_cast<std::uint64_t>(d);
        dims += (dims.empty() ? "" : ",") + std::to_string(d);
    }
    std::string header = R"({"__metadata__":{"tokens":"[]"},")" + name +
        R"(":{"dtype":"F16","shape":[)" + dims + R"(],"data_offsets":[0,)" +
        std::to_string(dataBytes) + "]}}";
    header.append((8 - header.size() % 8) % 8, ' ');
    {
        std::ofstream out(path, std::ios::binary);
        const std::uint64_t length = header.size();
        out.write(reinterpret_cast<const char*>(&length), 8);
        out << header;
    }
    std::error_code error;
    std::filesystem::resize_file(path, 8 + header.size() + dataBytes, error);
    const std::string message =
        error ? "skip" : refusal([&] { return readAttentionImport(path.string()); });
    std::filesystem::remove(path);
    return message;
}

TEST(AttentionImport, SizeIsRefusedFromTheHeaderBeforeAnyValueIsRead)
{
    // 2 GiB of F16 on disk would be 4 GiB and 128 KiB as floats: just over the limit.
    const std::string perLayer = sparseRefusal("layer0", {1, 32768, 32769});
    if (perLayer == "skip")
        GTEST_SKIP() << "the file system holds no sparse 2 GiB file";
    EXPECT_THAT(perLayer,
                HasSubstr("would need 4.00012 GiB as floats (layers × heads × queries × "
                          "keys = 1 × 1 × 32768 × 32769)"));
    EXPECT_THAT(perLayer, HasSubstr("at most 4 GiB"));
    // Stacked: too many layers, and too many floats in a model's number of layers; both refused
    // before an entry is made for each layer.
    EXPECT_THAT(sparseRefusal("attentions", {65537, 1, 1, 128, 128}),
                HasSubstr("attention weights of 65537 layers; a model has at most 1024"));
    EXPECT_THAT(sparseRefusal("attentions", {1024, 1, 1, 1448, 1448}),
                HasSubstr("(layers × heads × queries × keys = 1024 × 1 × 1448 × 1448)"));
}

TEST(AttentionImport, UnreadablePathIsAFileError)
{
    EXPECT_THROW(readAttentionImport(kDir + "does_not_exist.safetensors"), FileError);
}

} // namespace
} // namespace attnviz::io
