// Every activation of the C++ forward pass against PyTorch (tools/train_demo_models.py runs the
// same models in float64 and stores each trace tensor under its dump name).
#include "model/model_fixtures.h"
#include "support/safetensors_tensor.h"
#include "support/tensor_compare.h"

#include "io/json.h"
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace attnviz::test {
namespace {

std::vector<int> idsOf(const io::LoadedModel& model, const io::JsonValue& tokens)
{
    std::vector<int> ids;
    for (const io::JsonValue& t : tokens.asArray())
        ids.push_back(*model.tokenizer->id(t.asString()));
    return ids;
}

class ModelReference : public ::testing::TestWithParam<std::string> { };

TEST_P(ModelReference, EveryActivationMatchesPyTorchWithin1e4)
{
    const auto model = openModel(GetParam());
    const auto reference = io::SafetensorsFile::read(referenceFile(GetParam()));
    const int cases = std::stoi(reference.metadata().find("cases")->asString());
    ASSERT_GE(cases, 2);
    for (int c = 0; c < cases; ++c) {
        const std::string prefix = "case" + std::to_string(c) + ".";
        const auto source = io::parseJson(reference.metadata().find(prefix + "source")->asString());
        const auto target = io::parseJson(reference.metadata().find(prefix + "target")->asString());
        const engine::ModelTrace trace =
            model->model->forward(idsOf(*model, source), idsOf(*model, target));

        std::set<std::string> expectedNames;
        for (const io::TensorEntry& t : reference.tensors())
            if (t.name.starts_with(prefix))
                expectedNames.insert(t.name.substr(prefix.size()));
        std::set<std::string> tracedNames;
        trace.forEachTensor([&](const std::string& name, const engine::Tensor& tensor) {
            tracedNames.insert(name);
            if (!reference.find(prefix + name))
                return;
            // 1e-4, relative for the few large values (logits, scaled embeddings).
            EXPECT_TRUE(tensorsNear(tensor, tensorFrom(reference, prefix + name), 1e-4, 1e-4))
                << GetParam() << " case " << c << " " << name;
        });
        EXPECT_EQ(tracedNames, expectedNames) << GetParam() << " case " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(Models, ModelReference,
                         ::testing::Values("reverse", "genesis", "induction", "postnorm_tanh",
                                           "encoder_only", "decoder_postnorm"),
                         [](const auto& param) { return param.param; });

TEST(ModelTrace, NamesFollowTheLayerBlockStepPattern)
{
    const auto loaded = openModel("reverse");
    const auto& model = loaded->model;
    const auto run = model->forward(loaded->tokenizer->encode("abc"),
                                    {*loaded->tokenizer->id("<s>"), *loaded->tokenizer->id("c")});
    std::map<std::string, std::vector<std::int64_t>> shapes;
    run.forEachTensor(
        [&](const std::string& name, const engine::Tensor& t) { shapes[name] = t.shape(); });
    const std::int64_t H = model->config().numHeads;
    EXPECT_EQ(shapes.at("layer0.self.weights"), (std::vector<std::int64_t>{1, H, 3, 3}));
    EXPECT_EQ(shapes.at("layer1.masked_self.weights"), (std::vector<std::int64_t>{1, H, 2, 2}));
    EXPECT_EQ(shapes.at("layer1.cross.weights"), (std::vector<std::int64_t>{1, H, 2, 3}));
    EXPECT_EQ(shapes.at("layer0.enc_ffn.hidden"),
              (std::vector<std::int64_t>{1, 3, model->config().feedForwardWidth}));
    EXPECT_EQ(shapes.at("decoder.logits"),
              (std::vector<std::int64_t>{1, 2, model->config().vocabSize}));
    EXPECT_EQ(run.attentionBlocks(1),
              (std::vector<engine::Block>{engine::Block::Self, engine::Block::MaskedSelf,
                                          engine::Block::Cross}));
}

} // namespace
} // namespace attnviz::test
