// Parameter counts (#12) against PyTorch's sum(p.numel()) (tools/make_parameter_counts.py).
#include "io/input_file.h"
#include "io/json.h"
#include "lesson/parameter_count.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"

#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

io::JsonValue counts()
{
    return io::parseJson(
        io::readFile(std::string(ATTNVIZ_TEST_DATA_DIR) + "/parameters/counts.json"));
}

engine::AttentionWeights shaped(int d, int heads, bool bias, int kdim, int vdim)
{
    (void)heads; // PyTorch's module: H·P = embed_dim, so the shapes do not depend on H
    engine::AttentionWeights w;
    w.wQ = engine::RowMatrix::Zero(d, d);
    w.wK = engine::RowMatrix::Zero(d, kdim);
    w.wV = engine::RowMatrix::Zero(d, vdim);
    w.wO = engine::RowMatrix::Zero(d, d);
    if (bias)
        w.bQ = w.bK = w.bV = w.bO = Eigen::RowVectorXf::Zero(d);
    return w;
}

TEST(ParameterCount, AttentionModulesMatchPyTorch)
{
    const io::JsonValue all = counts();
    const io::JsonValue* mha = all.find("mha");
    ASSERT_NE(mha, nullptr);
    ASSERT_GE(mha->asArray().size(), 5u);
    for (const io::JsonValue& c : mha->asArray()) {
        const int d = static_cast<int>(c.find("embed_dim")->asNumber());
        const bool bias = c.find("bias")->asBool();
        const auto matrices =
            attentionParameters(shaped(d, static_cast<int>(c.find("num_heads")->asNumber()), bias,
                                       static_cast<int>(c.find("kdim")->asNumber()),
                                       static_cast<int>(c.find("vdim")->asNumber())));
        EXPECT_EQ(totalParameters(matrices),
                  static_cast<std::int64_t>(c.find("parameters")->asNumber()))
            << "embed_dim " << d << (bias ? " with" : " without") << " bias";
        if (!bias) {
            EXPECT_EQ(totalWeights(matrices), totalParameters(matrices));
        }
    }
}

TEST(ParameterCount, NamesAndShapesFollowTheWeights)
{
    const auto m = attentionParameters(shaped(512, 8, true, 512, 512));
    ASSERT_EQ(m.size(), 4u);
    EXPECT_EQ(m[0].name, "W_q");
    EXPECT_EQ(m[3].name, "W_o");
    EXPECT_EQ(m[2].rows, 512);
    EXPECT_EQ(m[2].biases, 512);
    EXPECT_EQ(totalWeights(m), 4 * 512 * 512);
    EXPECT_EQ(groupedNumber(totalParameters(m)), "1,050,624");
    EXPECT_EQ(groupedNumber(999), "999");
    EXPECT_EQ(groupedNumber(1000), "1,000");
    EXPECT_EQ(groupedNumber(0), "0");
}

TEST(ParameterCount, StepsThatApplyWeightsCountThem)
{
    PlaygroundSettings settings; // D = 16, H = 4, with bias
    const auto w = computePlayground(settings);
    const std::string projections = stepShapes(kLessonSteps[*lessonStepIndex("projections")], *w);
    EXPECT_NE(projections.find("\nW_q 16×16 + 16, W_k 16×16 + 16, W_v 16×16 + 16 = 816 parameters"),
              std::string::npos)
        << projections;
    const std::string output = stepShapes(kLessonSteps[*lessonStepIndex("output")], *w);
    EXPECT_NE(output.find("W_o 16×16 + 16 = 272 parameters; the module: 1,088 (1,024 without "
                          "biases)"),
              std::string::npos)
        << output;
    EXPECT_EQ(stepShapes(kLessonSteps[*lessonStepIndex("softmax")], *w).find("parameters"),
              std::string::npos);
    settings.bias = false;
    settings.outputWidth = 10;
    EXPECT_NE(stepShapes(kLessonSteps[*lessonStepIndex("output")], *computePlayground(settings))
                  .find("W_o 10×16 = 160 parameters; the module: 928 (928 without biases)"),
              std::string::npos);
}

} // namespace
} // namespace attnviz::lesson
