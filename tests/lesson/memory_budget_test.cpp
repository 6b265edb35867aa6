// The memory budget (#11): sizes people write, and estimates that are never below what a run
// really keeps, so a refusal comes before the allocation and a run that fits is not refused.
#include "lesson/case_walkthrough.h"
#include "lesson/memory_budget.h"
#include "lesson/model_run.h"
#include "model/model_fixtures.h"

#include "engine/input_error.h"
#include "io/attention_case.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace attnviz::lesson {
namespace {

using ::testing::HasSubstr;

std::uint64_t traceBytes(const engine::ModelTrace& trace)
{
    std::uint64_t bytes = 0;
    trace.forEachTensor([&](const std::string&, const engine::Tensor& t) {
        bytes += t.values().size() * sizeof(float);
    });
    return bytes;
}

TEST(MemoryBudget, ReadsTheSizesPeopleWrite)
{
    EXPECT_EQ(parseByteSize("2G"), 2ull << 30);
    EXPECT_EQ(parseByteSize("1.5GB"), 3ull << 29);
    EXPECT_EQ(parseByteSize("512m"), 512ull << 20);
    EXPECT_EQ(parseByteSize("800MiB"), 800ull << 20);
    EXPECT_EQ(parseByteSize("100000"), 100000u);
    for (const char* bad : {"", "G", "-1G", "0", "2X", "1e30G", "nan", "inf", "2 G"})
        EXPECT_EQ(parseByteSize(bad), std::nullopt) << bad;
    EXPECT_EQ(formatBytes(512), "512 bytes");
    EXPECT_EQ(formatBytes(3ull << 29), "1.5 GiB");
}

TEST(MemoryBudget, RefusesWithTheEstimateAndTheLimit)
{
    const MemoryBudget budget{1ull << 20, "the limit"};
    budget.check(1ull << 20, "Fits");
    try {
        budget.check(3ull << 20, "This run");
        FAIL();
    } catch (const engine::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "This run needs about 3.0 MiB of memory; the limit allows 1.0 MiB.");
    }
    try {
        budget.check((1ull << 20) + 100, "Reading vocab.json");
        FAIL();
    } catch (const engine::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "Reading vocab.json needs a little more than 1.0 MiB of "
                  "memory; the limit allows 1.0 MiB.");
    }
    EXPECT_LE(MemoryBudget::forThisMachine(1ull << 20).limit, 1ull << 20);
    EXPECT_GT(MemoryBudget::forThisMachine().limit, 0u);
}

// #45 item 5: every JSON file read below a model's opening is counted, and names itself.
TEST(MemoryBudget, JsonReadWhileAModelOpensIsHeldToTheLimit)
{
    try {
        openModel(std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/gpt2", 2ull << 20);
        FAIL() << "opened under 2 MiB";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), ::testing::StartsWith("Reading vocab.json needs about "));
        EXPECT_THAT(e.what(), ::testing::EndsWith("the memory limit you set allows 2.0 MiB."));
    }
    EXPECT_EQ(io::JsonMemoryScope::current(), nullptr) << "the scope ends with the opening";
    {
        const BudgetedJsonReading scope(1024);
        EXPECT_THROW(io::parseJson(std::string(2000, ' ') + "[1]", "a file"), engine::InputError);
        EXPECT_EQ(io::parseJson("[1]").asArray().size(), 1u);
    }
}

TEST(MemoryBudget, ModelEstimatesCoverWhatTheRunKeeps)
{
    const auto loaded = test::openModel("reverse");
    const engine::ModelConfig& c = loaded->model->config();
    const std::vector<int> source = loaded->tokenizer->encode("attention");
    std::vector<int> target{*c.bosTokenId};
    for (int id : loaded->tokenizer->encode("noitnetta"))
        target.push_back(id);
    const auto n = static_cast<std::int64_t>(std::max(source.size(), target.size()));
    for (const engine::CapturePolicy& policy :
         {engine::CapturePolicy::everything(), engine::CapturePolicy::attentionWeights(1)}) {
        const std::uint64_t kept = traceBytes(loaded->model->forward({source, {}, target}, policy));
        const std::uint64_t estimate = modelRunBytes(c, n, policy);
        EXPECT_GE(estimate, kept);
        EXPECT_LE(estimate, 4 * kept + (1u << 20)); // an estimate, not a wild guess
    }
}

TEST(MemoryBudget, ARunOverTheLimitIsRefusedBeforeComputing)
{
    RunRequest request{.text = "attention", .maxMemory = 64 * 1024};
    try {
        runModelOnText(test::openModel("reverse"), request);
        FAIL() << "ran within 64 KiB";
    } catch (const engine::InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("needs about"));
        EXPECT_THAT(e.what(), HasSubstr("the memory limit you set allows 64.0 KiB"));
    }
    request.maxMemory = 1ull << 30;
    EXPECT_NO_THROW(runModelOnText(test::openModel("reverse"), request));
}

TEST(MemoryBudget, ACaseOverTheLimitIsRefusedBeforeComputing)
{
    const std::string cases = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";
    const auto load = [&] {
        return io::loadAttentionCase(io::SafetensorsFile::read(cases + "batched.case.safetensors"));
    };
    const auto w = computeCase(load(), "batched");
    std::uint64_t kept = 0;
    for (const engine::AttentionStepInfo& info : engine::kAttentionStepTable)
        kept += w->trace->step(info.step).values().size() * sizeof(float);
    EXPECT_GE(attentionTraceBytes(w->trace->sizes, w->description(), w->weights()->wO.rows(),
                                  engine::AttentionKeep::all()),
              kept);
    EXPECT_THROW(computeCase(load(), "batched", {}, kept / 2), engine::InputError);
}

} // namespace
} // namespace attnviz::lesson
