// A whole model's parameter count (#12) against PyTorch's sum(p.numel()) for the same module
// (tools/make_parameter_counts.py): the demos and the Hugging Face fixtures.
#include "io/builtin_models.h"
#include "io/checkpoint/model_folder.h"
#include "io/input_file.h"
#include "io/json.h"
#include "lesson/parameter_count.h"

#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

std::int64_t pytorchCount(const std::string& name)
{
    const io::JsonValue counts =
        io::parseJson(io::readFile(std::string(ATTNVIZ_TEST_DATA_DIR) + "/parameters/counts.json"));
    return static_cast<std::int64_t>(counts.find("models")->find(name)->asNumber());
}

TEST(ModelParameters, EveryModelMatchesPyTorch)
{
    const std::string hf = std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/";
    const std::pair<std::string, std::string> models[] = {
        {"reverse", (io::builtInModelsFolder() / "reverse").string()},
        {"genesis", (io::builtInModelsFolder() / "genesis").string()},
        {"induction", (io::builtInModelsFolder() / "induction").string()},
        {"gpt2", hf + "gpt2"},
        {"bert", hf + "bert"}};
    for (const auto& [name, folder] : models) {
        const io::LoadedModel loaded = io::loadModel(folder);
        const ModelParameters p = modelParameters(*loaded.model);
        EXPECT_EQ(p.total(), pytorchCount(name)) << name;
        const engine::ModelConfig& c = loaded.model->config();
        EXPECT_EQ(p.encoderLayers.size(), static_cast<std::size_t>(c.encoderLayers)) << name;
        EXPECT_EQ(p.decoderLayers.size(), static_cast<std::size_t>(c.decoderLayers)) << name;
    }
}

TEST(ModelParameters, LayersOfAStackAreAlike)
{
    const io::LoadedModel genesis = io::loadModel((io::builtInModelsFolder() / "genesis").string());
    const ModelParameters p = modelParameters(*genesis.model);
    ASSERT_EQ(p.decoderLayers.size(), 3u);
    // d_model 64, d_ff 256, with biases: attention 4·(64·64 + 64), LayerNorms 2·128, feed-forward
    // 64·256 + 256 + 256·64 + 64.
    EXPECT_EQ(p.decoderLayers[0], 4 * (64 * 64 + 64) + 2 * 128 + (64 * 256 + 256 + 256 * 64 + 64));
    EXPECT_EQ(p.decoderLayers[1], p.decoderLayers[0]);
    EXPECT_TRUE(p.encoderLayers.empty());
}

} // namespace
} // namespace attnviz::lesson
