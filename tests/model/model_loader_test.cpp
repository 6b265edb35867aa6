// A model folder that does not fit its configuration is refused with one sentence naming the
// file, the tensor or field, what was expected and what was found.
#include "model/model_fixtures.h"
#include "support/temp_folder.h"

#include "engine/input_error.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;

/// A copy of a small test model in a temporary folder, to damage one file at a time.
class DamagedModel : public TempFolderTest {
protected:
    void SetUp() override
    {
        TempFolderTest::SetUp();
        for (const char* f : {"config.json", "vocab.json", "model.safetensors"})
            fs::copy_file(fs::path(modelFolder("postnorm_tanh")) / f, m_dir / f);
    }

    std::string loadError()
    {
        try {
            io::loadModel(m_dir.string());
        } catch (const io::ModelError& e) {
            return e.what();
        }
        return "(loaded)";
    }
    void replaceInConfig(const std::string& from, const std::string& to)
    {
        std::string text = io::readFile((m_dir / "config.json").string());
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        io::writeFileAtomically((m_dir / "config.json").string(), text);
    }
    /// Rewrites model.safetensors through `edit(name, shape, values)`, which may rename, reshape
    /// or drop (return false) each tensor.
    void rewriteWeights(const std::function<bool(std::string&, std::vector<std::int64_t>&,
                                                 std::vector<float>&)>& edit,
                        bool addExtra = false)
    {
        const auto file = io::SafetensorsFile::read((m_dir / "model.safetensors").string());
        auto writer = io::SafetensorsWriter::toFile((m_dir / "model.safetensors").string());
        for (const io::TensorEntry& t : file.tensors()) {
            std::string name = t.name;
            std::vector<std::int64_t> shape = t.shape;
            std::vector<float> values(t.bytes.size() / sizeof(float));
            std::memcpy(values.data(), t.bytes.data(), t.bytes.size());
            if (edit(name, shape, values))
                writer.addF32(name, shape, values);
        }
        if (addExtra)
            writer.addF32("encoder.layers.9.self.q_proj.weight", {1}, std::vector<float>{1.0f});
        writer.finish();
    }
};

TEST_F(DamagedModel, IntactCopyLoads)
{
    EXPECT_EQ(loadError(), "(loaded)");
}

TEST_F(DamagedModel, WrongShapeNamesTensorExpectedAndFound)
{
    rewriteWeights(
        [](std::string& name, std::vector<std::int64_t>& shape, std::vector<float>& values) {
            if (name == "decoder.layers.0.cross.k_proj.weight") {
                shape = {12, 24};
                values.resize(12 * 24);
            }
            return true;
        });
    EXPECT_EQ(
        loadError(),
        "model.safetensors: tensor 'decoder.layers.0.cross.k_proj.weight' has shape [12, 24]; "
        "the configuration expects [24, 24].");
}

TEST_F(DamagedModel, MissingTensorIsNamed)
{
    rewriteWeights([](std::string& name, auto&, auto&) {
        return name != "encoder.layers.1.enc_ffn.linear2.bias";
    });
    EXPECT_EQ(loadError(),
              "model.safetensors has no tensor 'encoder.layers.1.enc_ffn.linear2.bias'; the "
              "configuration "
              "expects F32 [24].");
}

TEST_F(DamagedModel, ExtraTensorIsRefused)
{
    rewriteWeights([](auto&, auto&, auto&) { return true; }, true);
    EXPECT_EQ(loadError(),
              "model.safetensors holds tensor 'encoder.layers.9.self.q_proj.weight', which a model "
              "with this "
              "config.json does not have.");
}

TEST_F(DamagedModel, ConfigWithMoreLayersThanTheWeightsNamesTheFirstMissingTensor)
{
    replaceInConfig("\"encoder_layers\": 2", "\"encoder_layers\": 3");
    EXPECT_EQ(
        loadError(),
        "model.safetensors has no tensor 'encoder.layers.2.self.q_proj.weight'; the configuration "
        "expects F32 [24, 24].");
}

TEST_F(DamagedModel, HeadsThatDoNotDivideTheWidth)
{
    replaceInConfig("\"num_heads\": 3", "\"num_heads\": 5");
    EXPECT_EQ(
        loadError(),
        "config.json: d_model 24 cannot be split into 5 heads of equal width (d_model must be a "
        "multiple of num_heads).");
}

TEST_F(DamagedModel, UnknownActivation)
{
    replaceInConfig("\"gelu_tanh\"", "\"swish\"");
    EXPECT_EQ(loadError(),
              "config.json: \"activation\" is \"swish\"; expected one of relu, gelu, gelu_tanh.");
}

TEST_F(DamagedModel, FieldOfTheWrongType)
{
    replaceInConfig("\"d_ff\": 40", "\"d_ff\": \"forty\"");
    EXPECT_EQ(loadError(),
              "config.json: \"d_ff\" is \"forty\"; expected an integer from 1 to 262144.");
}

TEST_F(DamagedModel, VocabularyOfTheWrongSize)
{
    io::writeFileAtomically((m_dir / "vocab.json").string(), std::string("[\"a\", \"b\"]"));
    EXPECT_EQ(loadError(), "vocab.json has 2 tokens but config.json says vocab_size 11.");
}

TEST_F(DamagedModel, TruncatedWeightsFile)
{
    const std::string bytes = io::readFile((m_dir / "model.safetensors").string());
    io::writeFileAtomically((m_dir / "model.safetensors").string(),
                            bytes.substr(0, bytes.size() / 2));
    EXPECT_TRUE(loadError().starts_with("model.safetensors is damaged: ")) << loadError();
}

TEST_F(DamagedModel, ConfigThatIsNotJson)
{
    io::writeFileAtomically((m_dir / "config.json").string(), std::string("{\"d_model\": 24,"));
    EXPECT_TRUE(loadError().starts_with("config.json is not valid JSON: ")) << loadError();
}

TEST(ModelLoader, NotAFolder)
{
    try {
        io::loadModel("/nonexistent/model");
        FAIL();
    } catch (const io::ModelError& e) {
        EXPECT_STREQ(
            e.what(),
            "'/nonexistent/model' is not a folder; a model is a folder with config.json, the "
            "tokenizer's files and model.safetensors.");
    }
}

TEST(ModelLoader, TextWithACharacterOutsideTheVocabulary)
{
    const auto model = openModel("reverse");
    try {
        model->tokenizer->encode("abC");
        FAIL();
    } catch (const engine::InputError& e) {
        EXPECT_STREQ(e.what(),
                     "The character \"C\" is not in the model's vocabulary of 29 tokens (see its "
                     "vocab.json).");
    }
}

TEST(ModelLoader, TextLongerThanTheModelAllows)
{
    const auto model = openModel("reverse");
    const std::vector<int> tooLong(static_cast<std::size_t>(model->model->config().maxLength + 1),
                                   5);
    EXPECT_THROW(model->model->forward(tooLong, {1}), engine::InputError);
}

} // namespace
} // namespace attnviz::test
