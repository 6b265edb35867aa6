// "Predict, then reveal" (#12): every question's answer is what the trace says, and the other
// choices are distinct and wrong.
#include "lesson/attention_sinks.h"
#include "lesson/imported_run.h"
#include "lesson/model_run.h"
#include "lesson/model_walkthrough.h"
#include "lesson/playground.h"
#include "lesson/step_questions.h"

#include "model/model_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace attnviz::lesson {
namespace {

LessonStepIndex stepOf(std::string_view key)
{
    return *lessonStepIndex(key);
}

PlaygroundSettings settingsWith(MaskKind mask)
{
    PlaygroundSettings s;
    s.mask = mask;
    return s;
}

// Self-attention with and without a causal mask, cross-attention, a padded batch of two.
std::vector<std::pair<std::string, std::shared_ptr<const Walkthrough>>> walkthroughs()
{
    PlaygroundSettings cross;
    cross.keyValueSentences = {"a small black dog barked loudly today"};
    PlaygroundSettings batch = settingsWith(MaskKind::ValidLengths);
    batch.querySentences = {"the cat sat on the mat", "dogs bark"};
    PlaygroundSettings wide;
    wide.modelWidth = 24;
    wide.heads = 3;
    wide.queryKeySize = 5;
    wide.valueSize = 7;
    wide.outputWidth = 10;
    return {{"plain", computePlayground(settingsWith(MaskKind::None))},
            {"causal", computePlayground(settingsWith(MaskKind::Causal))},
            {"cross", computePlayground(cross)},
            {"batch", computePlayground(batch)},
            {"wide", computePlayground(wide)}};
}

void expectDistinctChoices(const StepQuestion& q)
{
    ASSERT_GE(q.choices.size(), 2u);
    ASSERT_LT(q.answer, q.choices.size());
    std::set<std::string> labels;
    for (const QuestionChoice& c : q.choices)
        labels.insert(c.label);
    EXPECT_EQ(labels.size(), q.choices.size()) << "two choices read the same";
}

int argmax(const Eigen::Ref<const Eigen::RowVectorXf>& row)
{
    Eigen::Index best = 0;
    row.maxCoeff(&best);
    return static_cast<int>(best);
}

TEST(StepQuestions, TheStrongestKeyIsTheArgmaxOfTheWeightsRow)
{
    for (const auto& [name, w] : walkthroughs())
        for (int b = 0; b < w->batch(); ++b)
            for (std::uint32_t seed = 0; seed < 6; ++seed) {
                SCOPED_TRACE(name + " batch " + std::to_string(b) + " seed " +
                             std::to_string(seed));
                const auto q =
                    stepQuestion(*w, stepOf("softmax"), QuestionKind::StrongestKey, b, seed);
                ASSERT_TRUE(q);
                expectDistinctChoices(*q);
                const auto weights = w->trace->weights.matrix({b, q->head});
                const auto row = weights.row(q->query);
                EXPECT_EQ(q->correct().value, argmax(row));
                EXPECT_EQ(q->value("key"), std::to_string(argmax(row)));
                // every other key offered has a smaller weight, and none is blocked
                for (std::size_t c = 0; c < q->choices.size(); ++c) {
                    const float v = row(q->choices[c].value);
                    if (c != q->answer) {
                        EXPECT_LT(v, row(q->correct().value));
                    }
                    EXPECT_FALSE(std::isinf(
                        w->trace->masked.matrix({b, q->head})(q->query, q->choices[c].value)));
                }
                EXPECT_NE(
                    w->queryTokens[static_cast<std::size_t>(b)][static_cast<std::size_t>(q->query)],
                    kPadToken);
            }
}

TEST(StepQuestions, TheRowAskedAboutHasAClearMaximum)
{
    const auto w = computePlayground(settingsWith(MaskKind::None));
    const auto margin = [&](int head, int query) {
        Eigen::RowVectorXf row = w->trace->weights.matrix({0, head}).row(query);
        std::sort(row.data(), row.data() + row.size(), std::greater<>());
        return row(0) - row(1);
    };
    std::vector<float> margins;
    for (int h = 0; h < w->heads(); ++h)
        for (int i = 0; i < w->trace->queryLength(); ++i)
            margins.push_back(margin(h, i));
    std::sort(margins.begin(), margins.end());
    const float median = margins[margins.size() / 2];
    std::set<std::pair<int, int>> rows;
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        const auto q = stepQuestion(*w, stepOf("softmax"), QuestionKind::StrongestKey, 0, seed);
        ASSERT_TRUE(q);
        EXPECT_GE(margin(q->head, q->query), median);
        rows.insert({q->head, q->query});
    }
    EXPECT_GT(rows.size(), 1u) << "the seed should vary the row asked about";
    // the same seed asks the same question
    const auto a = stepQuestion(*w, stepOf("softmax"), QuestionKind::StrongestKey, 0, 7);
    const auto b = stepQuestion(*w, stepOf("softmax"), QuestionKind::StrongestKey, 0, 7);
    EXPECT_EQ(a->head, b->head);
    EXPECT_EQ(a->query, b->query);
    EXPECT_EQ(a->answer, b->answer);
}

TEST(StepQuestions, TheHighestScoreIsTheArgmaxOfTheScoresRow)
{
    for (const auto& [name, w] : walkthroughs())
        for (std::uint32_t seed = 0; seed < 4; ++seed) {
            SCOPED_TRACE(name);
            const auto q = stepQuestion(*w, stepOf("scores"), QuestionKind::HighestScore, 0, seed);
            ASSERT_TRUE(q);
            expectDistinctChoices(*q);
            const auto row = w->trace->scores.matrix({0, q->head}).row(q->query);
            EXPECT_EQ(q->correct().value, argmax(row));
            for (std::size_t c = 0; c < q->choices.size(); ++c)
                if (c != q->answer) {
                    EXPECT_LT(row(q->choices[c].value), row(q->correct().value));
                }
        }
}

TEST(StepQuestions, TheDivisorIsMeasuredFromTheScoresAndIsSqrtDk)
{
    for (const auto& [name, w] : walkthroughs()) {
        SCOPED_TRACE(name);
        const auto q = stepQuestion(*w, stepOf("scaled"), QuestionKind::Divisor, 0, 3);
        ASSERT_TRUE(q);
        expectDistinctChoices(*q);
        EXPECT_EQ(q->correct().label.rfind("√d_k = √" + std::to_string(w->dk()), 0), 0u)
            << q->correct().label;
        const double score =
            w->trace->scores.at({0, q->head, q->query, std::stoi(q->value("key"))});
        const double scaled =
            w->trace->scaled.at({0, q->head, q->query, std::stoi(q->value("key"))});
        EXPECT_NEAR(score / scaled, std::sqrt(double(w->dk())), 1e-4);
    }
    // d_k = 1: √d_k, d_k and "nothing" are the same number, so only one of them is offered
    PlaygroundSettings tiny;
    tiny.modelWidth = 4;
    tiny.heads = 4;
    const auto w = computePlayground(tiny);
    ASSERT_EQ(w->dk(), 1);
    const auto q = stepQuestion(*w, stepOf("scaled"), QuestionKind::Divisor, 0, 0);
    ASSERT_TRUE(q);
    expectDistinctChoices(*q);
    EXPECT_EQ(q->correct().label, "√d_k = √1 = 1");
    for (const QuestionChoice& c : q->choices) {
        EXPECT_NE(c.label, "d_k = 1");
        EXPECT_EQ(c.label.find("nothing"), std::string::npos);
    }
}

TEST(StepQuestions, TheVisibleKeysAreTheUnmaskedCellsOfTheRow)
{
    for (const auto& [name, w] : walkthroughs())
        for (int b = 0; b < w->batch(); ++b)
            for (std::uint32_t seed = 0; seed < 5; ++seed) {
                SCOPED_TRACE(name);
                const auto q =
                    stepQuestion(*w, stepOf("masked"), QuestionKind::VisibleKeys, b, seed);
                ASSERT_TRUE(q);
                expectDistinctChoices(*q);
                const auto row = w->trace->masked.matrix({b, 0}).row(q->query);
                int finite = 0;
                for (Eigen::Index j = 0; j < row.size(); ++j)
                    finite += std::isfinite(row(j)) ? 1 : 0;
                EXPECT_EQ(q->correct().value, finite);
                for (std::size_t c = 0; c < q->choices.size(); ++c)
                    if (c != q->answer) {
                        EXPECT_NE(q->choices[c].value, finite);
                    }
                if (name == "causal") { // the causal row i sees keys 0…i
                    EXPECT_EQ(finite, q->query + 1);
                }
            }
}

TEST(StepQuestions, TheShapeIsTheNextTensorsAndTheOthersAreNot)
{
    for (const auto& [name, w] : walkthroughs())
        for (const std::string_view key :
             {"projections", "split", "scores", "context", "concat", "output"})
            for (std::uint32_t seed = 0; seed < 4; ++seed) {
                SCOPED_TRACE(name + " " + std::string(key));
                const auto q = stepQuestion(*w, stepOf(key), QuestionKind::Shape, 0, seed);
                ASSERT_TRUE(q);
                expectDistinctChoices(*q);
                EXPECT_GE(q->choices.size(), 3u);
                const engine::Tensor& t =
                    w->trace->step(kLessonSteps[stepOf(key)].views.front().step);
                EXPECT_EQ(q->correct().label, t.shapeString());
                for (std::size_t c = 0; c < q->choices.size(); ++c)
                    if (c != q->answer) {
                        EXPECT_NE(q->choices[c].label, t.shapeString());
                    }
            }
    // the seed moves the answer around
    const auto w = computePlayground(PlaygroundSettings{});
    std::set<std::size_t> places;
    for (std::uint32_t seed = 0; seed < 12; ++seed)
        places.insert(stepQuestion(*w, stepOf("split"), QuestionKind::Shape, 0, seed)->answer);
    EXPECT_GT(places.size(), 1u);
}

TEST(StepQuestions, TheWrongShapesAreTheUsualConfusionsWithTheTracesSizes)
{
    PlaygroundSettings rotary;
    rotary.positions = PositionKind::Rotary;
    rotary.modelWidth = 24;
    rotary.heads = 3; // d_k 8: a rotation neither halves nor doubles it
    const auto w = computePlayground(rotary);
    const auto q = stepQuestion(*w, stepOf("rotate"), QuestionKind::Shape, 0, 0);
    ASSERT_TRUE(q);
    const std::int64_t b = 1, h = 3, n = w->trace->queryLength();
    const auto offered = [&](std::vector<engine::Axis> axes) {
        const std::string label = engine::shapeText(axes);
        return std::any_of(q->choices.begin(), q->choices.end(),
                           [&](const QuestionChoice& c) { return c.label == label; });
    };
    EXPECT_TRUE(offered({{"batch", b}, {"head", h}, {"query", n}, {"d_k", 4}}));
    EXPECT_TRUE(offered({{"batch", b}, {"head", h}, {"query", n}, {"d_k", 16}}));
    EXPECT_TRUE(offered({{"batch", b}, {"query", n}, {"feature", 24}}));
}

TEST(StepQuestions, TheImportantHeadIsTheOneWhoseAblationChangesTheOutputMost)
{
    for (const auto& [name, w] : walkthroughs()) {
        SCOPED_TRACE(name);
        const auto q = stepQuestion(*w, stepOf("context"), QuestionKind::ImportantHead, 0, 0);
        ASSERT_TRUE(q);
        expectDistinctChoices(*q);
        EXPECT_EQ(q->choices.size(), static_cast<std::size_t>(w->heads()));
        // Independently: the playground recomputed with each head switched off in its settings.
        const PlaygroundSettings base = std::get<PlaygroundSource>(w->source).settings;
        const Eigen::MatrixXd intact = w->trace->output.matrix({0}).cast<double>();
        int best = -1;
        double bestChange = -1;
        for (int h = 0; h < w->heads(); ++h) {
            PlaygroundSettings off = base;
            off.ablatedHeads = {h};
            const auto v = computePlayground(off);
            const double change =
                (v->trace->output.matrix({0}).cast<double>() - intact).norm() / intact.norm();
            if (change > bestChange) {
                bestChange = change;
                best = h;
            }
        }
        EXPECT_EQ(q->correct().value, best);
        EXPECT_EQ(q->head, best);
    }
}

TEST(StepQuestions, HeadsAlreadySwitchedOffAreNotOffered)
{
    PlaygroundSettings s;
    s.ablatedHeads = {1};
    const auto w = computePlayground(s);
    const auto q = stepQuestion(*w, stepOf("output"), QuestionKind::ImportantHead, 0, 0);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->choices.size(), 3u);
    for (const QuestionChoice& c : q->choices)
        EXPECT_NE(c.value, 1);
    const std::vector<double> changes = headSwitchOffChanges(*w, 0);
    EXPECT_EQ(changes[1], -1);
}

TEST(StepQuestions, QuestionsThatCannotBeAnsweredAreNotAsked)
{
    PlaygroundSettings one;
    one.heads = 1;
    const auto single = computePlayground(one);
    EXPECT_FALSE(stepQuestion(*single, stepOf("context"), QuestionKind::ImportantHead, 0, 0));
    // a kind that does not belong to the step
    EXPECT_FALSE(stepQuestion(*single, stepOf("input"), QuestionKind::Shape, 0, 0));
    EXPECT_FALSE(stepQuestion(*single, stepOf("softmax"), QuestionKind::StrongestKey, 3, 0));
    // the list falls back to the next kind that can be asked
    const QuestionKind kinds[] = {QuestionKind::ImportantHead, QuestionKind::Shape};
    const auto q = stepQuestion(*single, stepOf("context"), kinds, 0, 0);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->kind, QuestionKind::Shape);

    // An import holds weights only: its weights can be asked about, nothing else.
    const auto run =
        openImportedRun(std::string(ATTNVIZ_TEST_DATA_DIR) + "/attentions/gpt_layers.safetensors");
    const auto imported = walkthroughForBlock(run, {0, engine::Block::MaskedSelf, -1});
    EXPECT_TRUE(stepQuestion(*imported, stepOf("softmax"), QuestionKind::StrongestKey, 0, 0));
    EXPECT_FALSE(stepQuestion(*imported, stepOf("concat"), QuestionKind::Shape, 0, 0));
    EXPECT_FALSE(stepQuestion(*imported, stepOf("output"), QuestionKind::ImportantHead, 0, 0));
    EXPECT_FALSE(stepQuestion(*imported, stepOf("scaled"), QuestionKind::Divisor, 0, 0));
}

// #25: the questions of today's attention.
TEST(StepQuestions, TheWindowsReachIsLayersTimesWMinusOne)
{
    PlaygroundSettings s = settingsWith(MaskKind::Causal);
    s.slidingWindow = 3;
    const auto w = computePlayground(s);
    for (std::uint32_t seed = 0; seed < 6; ++seed) {
        const auto q = stepQuestion(*w, stepOf("masked"), QuestionKind::WindowReach, 0, seed);
        ASSERT_TRUE(q);
        expectDistinctChoices(*q);
        const int layers = std::stoi(q->value("layers"));
        EXPECT_GE(layers, 2);
        EXPECT_LE(layers, 4);
        EXPECT_EQ(q->correct().value, layers * 2);
        EXPECT_EQ(q->correct().label, std::to_string(layers * 2) + " tokens");
    }
    // Without a window there is nothing to ask; the step asks how many keys a row sees instead.
    const auto plain = computePlayground(settingsWith(MaskKind::Causal));
    EXPECT_FALSE(stepQuestion(*plain, stepOf("masked"), QuestionKind::WindowReach, 0, 0));
    const auto fallback =
        stepQuestion(*plain, stepOf("masked"), lessonStep(stepOf("masked")).questions, 0, 1);
    ASSERT_TRUE(fallback);
    EXPECT_EQ(fallback->kind, QuestionKind::VisibleKeys);
}

TEST(StepQuestions, TheCacheKeepsAKeyAndAValuePerKeyValueHead)
{
    PlaygroundSettings s = settingsWith(MaskKind::Causal);
    s.heads = 4;
    s.keyValueHeads = 2;
    s.queryKeySize = 6;
    s.valueSize = 5;
    const auto w = computePlayground(s);
    const auto q = stepQuestion(*w, stepOf("split"), QuestionKind::CacheBytes, 0, 3);
    ASSERT_TRUE(q);
    expectDistinctChoices(*q);
    EXPECT_EQ(q->correct().value, 2 * (6 + 5) * 4);
    EXPECT_EQ(q->correct().label, "88 bytes");
    EXPECT_EQ(q->value("per1024"), "88.0 KiB");
    // Not for a block whose queries may see later keys: it is never decoded token by token.
    EXPECT_FALSE(stepQuestion(*computePlayground(settingsWith(MaskKind::None)), stepOf("split"),
                              QuestionKind::CacheBytes, 0, 0));
}

TEST(StepQuestions, TheSinkHeadIsTheOneWithTheLargestShareOnTheFirstToken)
{
    const auto model = test::openModel("modern");
    const auto run = std::make_shared<const ModelRun>(runModelOnText(
        model,
        {.text = "And God said, Let there be light: and there was light. And God saw the "
                 "light, that it was good."}));
    int asked = 0;
    for (int layer = 0; layer < 4; ++layer) {
        const auto w = walkthroughForBlock(run, {layer, engine::Block::MaskedSelf, -1});
        const auto q = stepQuestion(*w, stepOf("softmax"), QuestionKind::FirstTokenShare, 0, 0);
        if (!q)
            continue;
        ++asked;
        expectDistinctChoices(*q);
        double best = -1;
        int head = -1;
        for (int h = 0; h < w->heads(); ++h)
            if (const double share = firstTokenShare(*w->trace, 0, h); share > best) {
                best = share;
                head = h;
            }
        EXPECT_EQ(q->correct().value, head) << "layer " << layer;
        EXPECT_EQ(q->value("token"), "<s>");
    }
    EXPECT_GE(asked, 1);
    // The playground's random heads have no sink to find.
    EXPECT_FALSE(stepQuestion(*computePlayground(settingsWith(MaskKind::Causal)), stepOf("softmax"),
                              QuestionKind::FirstTokenShare, 0, 0));
}

TEST(StepQuestions, PlaceholdersAreFilledFromTheQuestionsValues)
{
    const auto w = computePlayground(PlaygroundSettings{});
    const auto q = stepQuestion(*w, stepOf("softmax"), QuestionKind::StrongestKey, 0, 1);
    ASSERT_TRUE(q);
    const std::string text = q->fill("query {query} “{token}” → key {key} ({value}) {key}");
    EXPECT_EQ(text,
              "query " + q->value("query") + " “" + q->value("token") + "” → key " +
                  q->value("key") + " (" + q->value("value") + ") " + q->value("key"));
    EXPECT_NEAR(std::stod(q->value("value")),
                w->trace->weights.at({0, q->head, q->query, q->correct().value}), 0.005);
}

} // namespace
} // namespace attnviz::lesson
