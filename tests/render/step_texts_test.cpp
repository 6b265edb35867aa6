// The words of a step follow the block shown: a model's masked self-attention does not speak of
// cross-attention, its cross-attention does, and the playground keeps its own first step.
#include "lesson/lesson_steps.h"
#include "lesson/walkthrough.h"
#include "render/step_texts.h"

#include <gtest/gtest.h>

namespace attnviz::render {
namespace {

lesson::Walkthrough modelBlock(engine::Block block)
{
    lesson::Walkthrough w;
    lesson::ModelBlockSource source;
    source.block = block;
    w.source = source;
    w.crossAttention = block == engine::Block::Cross;
    return w;
}

const lesson::LessonStep& inputStep()
{
    return lesson::kLessonSteps[*lesson::lessonStepIndex("input")];
}

TEST(StepTexts, AModelsMaskedSelfAttentionInputSpeaksOfItsOwnBlock)
{
    const lesson::Walkthrough masked = modelBlock(engine::Block::MaskedSelf);
    const StepText text = stepText(inputStep(), &masked);
    EXPECT_FALSE(text.explanation.contains("cross-attention")) << text.explanation.toStdString();
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.explanation.contains("self-attention"));
}

TEST(StepTexts, AModelsCrossAttentionInputNamesBothItsInputs)
{
    const lesson::Walkthrough cross = modelBlock(engine::Block::Cross);
    const StepText text = stepText(inputStep(), &cross);
    EXPECT_TRUE(text.explanation.contains("cross-attention"));
    EXPECT_TRUE(text.explanation.contains("residual stream"));
    EXPECT_TRUE(text.formula.contains("encoder"));
}

TEST(StepTexts, ThePlaygroundsInputIsEmbeddingsPlusPositions)
{
    const StepText text = stepText(inputStep(), nullptr);
    EXPECT_TRUE(text.title.contains("embeddings")) << text.title.toStdString();
    EXPECT_FALSE(text.explanation.contains("residual stream"));
}

} // namespace
} // namespace attnviz::render
