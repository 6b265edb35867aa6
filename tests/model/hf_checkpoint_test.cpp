// Hugging Face GPT-2 and BERT folders (tests/data/hf, made by tools/make_hf_references.py) against
// an independent float64 PyTorch implementation of each architecture: the tokenizer's ids, every
// attention map, every intermediate of every layer, the final hidden states and GPT-2's logits.
#include "support/hf_tokenizer_files.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"
#include "support/tensor_compare.h"

#include "engine/transformer_model.h"
#include "io/checkpoint/model_folder.h"
#include "io/json.h"
#include "io/safetensors.h"
#include "lesson/model_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kHf = fs::path(ATTNVIZ_TEST_DATA_DIR) / "hf";

struct Variant {
    const char* folder;
    const char* reference; ///< the folder whose reference.safetensors applies
};

bool isGpt2(const Variant& v)
{
    return std::string(v.reference) == "gpt2";
}

// The folder as a user has it: the variant's own files plus the shared real vocabulary, which the
// fixtures keep once.
fs::path assemble(const Variant& v, const fs::path& into)
{
    const fs::path dir = into / v.folder;
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(kHf / v.folder))
        if (entry.path().filename() != "reference.safetensors")
            fs::copy_file(entry.path(), dir / entry.path().filename());
    const std::vector<const char*> vocabulary = isGpt2(v)
        ? std::vector<const char*>{"vocab.json", "merges.txt"}
        : std::vector<const char*>{"vocab.txt"};
    for (const char* file : vocabulary)
        if (!fs::exists(dir / file))
            fs::copy_file(kHf / v.reference / file, dir / file);
    return dir;
}

std::vector<std::int64_t> integers(const io::SafetensorsFile& file, const std::string& name)
{
    const io::TensorEntry* e = file.find(name);
    if (!e || e->dtype != io::DType::I64)
        throw std::runtime_error("no I64 tensor '" + name + "'");
    std::vector<std::int64_t> v(e->bytes.size() / sizeof(std::int64_t));
    std::memcpy(v.data(), e->bytes.data(), e->bytes.size());
    return v;
}

// The reference tensor (no batch axis) cut to the first `n` tokens along `tokenAxes`, shaped as
// the trace keeps it ([1, ...]).
engine::Tensor expected(const io::SafetensorsFile& file, const std::string& name, std::int64_t n,
                        std::vector<std::size_t> tokenAxes)
{
    const engine::Tensor full = tensorFrom(file, name);
    std::vector<engine::Axis> axes{{"batch", 1}};
    for (std::size_t a = 0; a < full.rank(); ++a) {
        const bool token = std::find(tokenAxes.begin(), tokenAxes.end(), a) != tokenAxes.end();
        axes.push_back({"d" + std::to_string(a), token ? std::min(n, full.dim(a)) : full.dim(a)});
    }
    engine::Tensor cut(axes);
    std::vector<std::int64_t> index(full.rank(), 0);
    std::size_t out = 0;
    for (std::size_t i = 0; i < full.values().size(); ++i) {
        bool inside = true;
        for (std::size_t a : tokenAxes)
            inside = inside && index[a] < n;
        if (inside)
            cut.values()[out++] = full.values()[i];
        for (std::size_t a = full.rank(); a-- > 0;) {
            if (++index[a] < full.dim(a))
                break;
            index[a] = 0;
        }
    }
    return cut;
}

// A trace tensor with its batch axis relabelled like `expected`'s, so only values and shapes count.
engine::Tensor relabelled(const engine::Tensor& t)
{
    std::vector<engine::Axis> axes{{"batch", t.dim(0)}};
    for (std::size_t a = 1; a < t.rank(); ++a)
        axes.push_back({"d" + std::to_string(a - 1), t.dim(a)});
    engine::Tensor copy(axes);
    std::copy(t.values().begin(), t.values().end(), copy.values().begin());
    return copy;
}

class HfReference : public TempFolderTest, public ::testing::WithParamInterface<Variant> { };

TEST_P(HfReference, EveryCaseMatchesPyTorchWithin1e4)
{
    const Variant v = GetParam();
    const bool gpt2 = isGpt2(v);
    const io::LoadedModel loaded = io::loadModel(assemble(v, m_dir).string());
    EXPECT_EQ(loaded.layout->name(), gpt2 ? "gpt2" : "bert");
    EXPECT_EQ(loaded.model->config().name, v.folder);
    const auto reference =
        io::SafetensorsFile::read((kHf / v.reference / "reference.safetensors").string());
    const auto& meta = reference.metadata();
    const io::JsonValue cases = io::parseJson(meta.find("cases")->asString());
    ASSERT_GE(cases.asArray().size(), 4u);

    const std::string stack = gpt2 ? "decoder" : "encoder";
    const std::string attention = gpt2 ? "masked_self" : "self";
    const std::string ffn = gpt2 ? "dec_ffn" : "enc_ffn";
    const int layers = loaded.model->config().layerCount();
    for (const io::JsonValue& c : cases.asArray()) {
        const std::string name = c.asString();
        const std::string r = name + ".";
        std::vector<int> ids;
        for (std::int64_t id : integers(reference, r + "input_ids"))
            ids.push_back(static_cast<int>(id));
        // Padding only matters for batches; a run on the real tokens must give their rows.
        auto n = static_cast<std::int64_t>(ids.size());
        if (!gpt2) {
            const auto mask = integers(reference, r + "attention_mask");
            n = std::count(mask.begin(), mask.end(), 1);
            ids.resize(static_cast<std::size_t>(n));
        }
        std::vector<int> types;
        if (!gpt2) {
            std::string text = meta.find("case." + name + ".text")->asString();
            if (text.find("[PAD]") == std::string::npos) {
                // The user's path: type the sentence (a pair separated by [SEP]); the tokenizer
                // adds [CLS] and the closing [SEP].
                text = text.substr(std::strlen("[CLS] "),
                                   text.size() - std::strlen("[CLS] ") - std::strlen(" [SEP]"));
                EXPECT_EQ(loaded.tokenizer->encode(text), ids) << name;
                const auto referenceTypes = integers(reference, r + "token_type_ids");
                types = loaded.tokenizer->tokenTypes(ids);
                EXPECT_EQ(std::vector<std::int64_t>(types.begin(), types.end()), referenceTypes)
                    << name;
            }
        } else {
            EXPECT_EQ(loaded.tokenizer->encode(meta.find("case." + name + ".text")->asString()),
                      ids)
                << name;
        }
        const engine::ModelTrace trace =
            gpt2 ? loaded.model->forward({{}, {}, ids}) : loaded.model->forward({ids, types, {}});
        std::map<std::string, engine::Tensor> traced;
        trace.forEachTensor(
            [&](const std::string& t, const engine::Tensor& tensor) { traced[t] = tensor; });
        const auto check = [&](const std::string& tracedName, const std::string& referenceName,
                               std::vector<std::size_t> tokenAxes) {
            ASSERT_TRUE(traced.count(tracedName)) << tracedName;
            EXPECT_TRUE(tensorsNear(relabelled(traced.at(tracedName)),
                                    expected(reference, r + referenceName, n, tokenAxes), 1e-4,
                                    1e-4))
                << v.folder << " " << name << " " << tracedName << " vs " << referenceName;
        };
        check(stack + ".embedding", "embeddings.token", {0});
        check(stack + ".positional", "embeddings.position", {0});
        check(stack + ".input", gpt2 ? "embeddings.sum" : "embeddings.output", {0});
        if (!gpt2)
            check(stack + ".token_type", "embeddings.token_type", {0});
        for (int L = 0; L < layers; ++L) {
            const std::string t = "layer" + std::to_string(L) + ".";
            const std::string a = t + attention + ".", f = t + ffn + ".";
            check(a + "q_heads", t + "q", {1});
            check(a + "k_heads", t + "k", {1});
            check(a + "v_heads", t + "v", {1});
            check(a + "weights", t + "weights", {1, 2});
            check(a + "concat", t + "context", {0});
            check(a + "output", t + "attn_output", {0});
            check(a + (gpt2 ? "residual" : "norm"), t + "after_attn", {0});
            check(f + "hidden", t + "ffn_hidden", {0});
            check(f + "output", t + "ffn_output", {0});
            check(f + (gpt2 ? "residual" : "norm"), t + "hidden", {0});
            if (gpt2) {
                check(a + "norm", t + "attn_input", {0});
                check(f + "norm", t + "ffn_input", {0});
            }
        }
        if (gpt2) {
            check("decoder.final_norm", "final_hidden", {0});
            // The logits at the columns the reference kept (the full rows are 50257 wide).
            const engine::Tensor& logits = traced.at("decoder.logits");
            const auto columns = integers(reference, r + "logits.columns");
            const engine::Tensor want = tensorFrom(reference, r + "logits");
            for (std::int64_t q = 0; q < n; ++q)
                for (std::size_t k = 0; k < columns.size(); ++k) {
                    const float got = logits.matrix({0})(q, columns[k]);
                    const float w = want.values()[static_cast<std::size_t>(q) * columns.size() + k];
                    ASSERT_NEAR(got, w, 1e-4 + 1e-4 * std::abs(w))
                        << name << " logits[" << q << ", " << columns[k] << "]";
                }
        } else {
            check("layer" + std::to_string(layers - 1) + ".enc_ffn.norm", "final_hidden", {0});
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Folders, HfReference,
                         ::testing::Values(Variant{"gpt2", "gpt2"}, Variant{"gpt2-f16", "gpt2"},
                                           Variant{"gpt2-bf16-sharded", "gpt2"},
                                           Variant{"bert", "bert"}, Variant{"bert-gamma", "bert"}),
                         [](const auto& param) {
                             std::string s = param.param.folder;
                             std::replace(s.begin(), s.end(), '-', '_');
                             return s;
                         });

class HfFolder : public TempFolderTest {
protected:
    fs::path folder(const Variant& v) { return assemble(v, m_dir); }

    std::string refusal(const fs::path& dir)
    {
        try {
            io::loadModel(dir.string());
        } catch (const io::ModelError& e) {
            return e.what();
        }
        ADD_FAILURE() << "loaded " << dir;
        return {};
    }

    void editConfig(const fs::path& dir, const std::string& from, const std::string& to)
    {
        std::string text = io::readFile((dir / "config.json").string());
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        std::ofstream(dir / "config.json") << text;
    }
};

TEST_F(HfFolder, KnownIdsOfTheRealVocabularies)
{
    const io::LoadedModel gpt2 = io::loadModel(folder({"gpt2", "gpt2"}).string());
    EXPECT_EQ(gpt2.tokenizer->encode("Hello world"), (std::vector<int>{15496, 995}));
    EXPECT_EQ(gpt2.tokenizer->encode(" Hello world"), (std::vector<int>{18435, 995}));
    EXPECT_EQ(gpt2.model->config().eosTokenId, 50256);
    const io::LoadedModel bert = io::loadModel(folder({"bert", "bert"}).string());
    EXPECT_EQ(bert.tokenizer->encode("hello world"), (std::vector<int>{101, 7592, 2088, 102}));
    EXPECT_EQ(bert.tokenizer->tokenTypes({101, 7592, 102, 2088, 102}),
              (std::vector<int>{0, 0, 0, 1, 1}));
}

TEST_F(HfFolder, TokenizerJsonAloneIsEnough)
{
    const fs::path dir = folder({"gpt2", "gpt2"});
    fs::remove(dir / "vocab.json");
    fs::remove(dir / "merges.txt");
    std::ofstream(dir / "tokenizer.json") << gpt2TokenizerJson(false);
    EXPECT_EQ(io::loadModel(dir.string()).tokenizer->encode("Hello world"),
              (std::vector<int>{15496, 995}));
    const fs::path bert = folder({"bert", "bert"});
    fs::remove(bert / "vocab.txt");
    std::ofstream(bert / "tokenizer.json") << bertTokenizerJson();
    EXPECT_EQ(io::loadModel(bert.string()).tokenizer->encode("hello world"),
              (std::vector<int>{101, 7592, 2088, 102}));
}

TEST_F(HfFolder, ARunOnTextGoesThroughTheLessonLayer)
{
    auto loaded =
        std::make_shared<const io::LoadedModel>(io::loadModel(folder({"bert", "bert"}).string()));
    const lesson::ModelRun run =
        lesson::runModelOnText(loaded, {.text = "the cat sat. [SEP] it was happy."});
    EXPECT_EQ(run.trace->encoder->layers.size(), 2u);
    EXPECT_EQ(loaded->tokenizer->tokens(run.trace->sourceIds).front(), "[CLS]");
    // The second sentence's tokens read the second segment's embedding row.
    const std::vector<int> segments = loaded->tokenizer->tokenTypes(run.trace->sourceIds);
    ASSERT_EQ(segments.front(), 0);
    ASSERT_EQ(segments.back(), 1);
    const auto rows = run.trace->encoder->tokenType.matrix({0});
    const auto last = static_cast<Eigen::Index>(segments.size() - 1);
    EXPECT_TRUE(rows.row(0).isApprox(rows.row(1)));
    EXPECT_FALSE(rows.row(0).isApprox(rows.row(last)));
}

TEST_F(HfFolder, RefusalsNameWhatIsAccepted)
{
    const fs::path gpt2 = folder({"gpt2", "gpt2"});
    fs::remove(gpt2 / "merges.txt");
    EXPECT_THAT(refusal(gpt2), HasSubstr("merges.txt"));

    const fs::path bert = folder({"bert", "bert"});
    std::ofstream(bert / "pytorch_model.bin") << "not a pickle we would ever open";
    fs::remove(bert / "model.safetensors");
    EXPECT_THAT(refusal(bert), HasSubstr("pytorch_model.bin"));

    const fs::path cased = folder({"bert-gamma", "bert"});
    std::ofstream(cased / "tokenizer_config.json") << R"({"do_lower_case": false})";
    EXPECT_THAT(refusal(cased), HasSubstr("uncased"));
}

TEST_F(HfFolder, ImpossibleConfigsAreRefusedByField)
{
    const fs::path dir = folder({"gpt2-f16", "gpt2"});
    editConfig(dir, "\"model_type\": \"gpt2\"", "\"model_type\": \"mixtral\"");
    EXPECT_THAT(refusal(dir), HasSubstr("GPT-2"));
    editConfig(dir, "\"model_type\": \"mixtral\"", "\"model_type\": \"gpt2\"");
    editConfig(dir, "\"n_head\": 4", "\"n_head\": 5");
    EXPECT_THAT(refusal(dir), HasSubstr("5"));
    editConfig(dir, "\"n_head\": 5", "\"n_head\": 4");
    editConfig(dir, "\"activation_function\": \"gelu_new\"", "\"activation_function\": \"swish\"");
    EXPECT_THAT(refusal(dir), HasSubstr("activation_function"));
    editConfig(dir, "\"activation_function\": \"swish\"", "\"activation_function\": \"gelu_new\"");
    editConfig(dir, "\"n_layer\": 2", "\"n_layer\": 3");
    EXPECT_THAT(refusal(dir), HasSubstr("h.2."));
}

TEST_F(HfFolder, UntiedGpt2ReadsItsOwnHead)
{
    const fs::path dir = folder({"gpt2-bf16-sharded", "gpt2"});
    std::string config = io::readFile((dir / "config.json").string());
    config.insert(config.rfind('}'), ", \"tie_word_embeddings\": false");
    std::ofstream(dir / "config.json") << config;
    const io::LoadedModel untied = io::loadModel(dir.string());
    EXPECT_FALSE(untied.model->config().tiedOutput);
    // The file's lm_head is wte negated (tools/make_hf_references.py), so the untied model's
    // logits are the tied model's negated, bit for bit: a reader that took wte for the head
    // would give the tied ones.
    const io::LoadedModel tied = io::loadModel(folder({"gpt2", "gpt2"}).string());
    const std::vector<int> ids{15496, 995};
    engine::Tensor negated = tied.model->forward({{}, {}, ids}).logits;
    for (float& v : negated.values())
        v = -v;
    EXPECT_TRUE(tensorsNear(untied.model->forward({{}, {}, ids}).logits, negated, 0, 0));
    EXPECT_FALSE(tensorsNear(untied.model->forward({{}, {}, ids}).logits,
                             tied.model->forward({{}, {}, ids}).logits));
}

} // namespace
} // namespace attnviz::test
