// Issue #28's exactness: on every PyTorch reference case, every step the engine computes is at
// least as close to the float64 trace as PyTorch's own float32 computation of the same case.
// tools/make_reference_cases.py writes both yardsticks: <case>.float64.safetensors (the trace in
// float64, from the case's float32 inputs) and torch_float32_error.json (per case and step, the
// largest error of the trace's operations run in float32, and of nn.MultiheadAttention in
// float32 for output and weights where it can take the case).
#include "engine/multi_head_attention.h"
#include "io/attention_case.h"
#include "support/tensor_compare.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>

namespace attnviz::test {
namespace {

const std::string kDataDir = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";

const nlohmann::json& torchErrors()
{
    static const nlohmann::json errors = [] {
        std::ifstream in(kDataDir + "torch_float32_error.json");
        return nlohmann::json::parse(in).at("errors");
    }();
    return errors;
}

std::vector<std::string> caseNames()
{
    std::vector<std::string> names;
    for (const auto& [name, steps] : torchErrors().items())
        names.push_back(name);
    return names;
}

// The largest |engine − float64| over the reference's finite entries, and the largest share of
// the stated tolerance (support/tensor_compare.h) any entry uses.
struct StepError {
    double largest = 0;
    double shareOfTolerance = 0;
};

StepError errorOf(const engine::Tensor& actual, const io::TensorEntry& reference)
{
    EXPECT_EQ(reference.dtype, io::DType::F64);
    EXPECT_EQ(static_cast<std::size_t>(actual.size()) * sizeof(double), reference.bytes.size());
    StepError e;
    const auto values = actual.values();
    for (std::size_t i = 0; i < values.size(); ++i) {
        double r = 0;
        std::memcpy(&r, reference.bytes.data() + i * sizeof(double), sizeof r);
        if (!std::isfinite(r))
            continue;
        const double d = std::abs(static_cast<double>(values[i]) - r);
        e.largest = std::max(e.largest, d);
        e.shareOfTolerance =
            std::max(e.shareOfTolerance, d / (kAbsTolerance + kRelTolerance * std::abs(r)));
    }
    return e;
}

class Float32Exactness : public ::testing::TestWithParam<std::string> { };

TEST_P(Float32Exactness, NoStepIsLessExactThanPyTorchFloat32)
{
    const io::AttentionCase c = io::loadAttentionCase(
        io::SafetensorsFile::read(kDataDir + GetParam() + ".case.safetensors"));
    const io::SafetensorsFile reference =
        io::SafetensorsFile::read(kDataDir + GetParam() + ".float64.safetensors");
    const nlohmann::json& torch = torchErrors().at(GetParam());
    const engine::MultiHeadAttention module(c.weights, c.description);
    engine::AttentionOptions options;
    options.positions = c.positions;
    {
        const engine::AttentionTrace trace =
            module.forward(c.query, c.key, c.value, c.mask, options);
        for (const engine::AttentionStep step : engine::kAttentionSteps) {
            if (!trace.computes(step))
                continue;
            const std::string name(engine::stepName(step));
            const io::TensorEntry* expected = reference.find(name);
            ASSERT_NE(expected, nullptr) << name;
            const StepError ours = errorOf(trace.step(step), *expected);
            // PyTorch's error: the smaller of its two ways where it has two.
            double theirs = torch.at(name).at("ops").get<double>();
            if (torch.at(name).contains("module"))
                theirs = std::min(theirs, torch.at(name).at("module").get<double>());
            EXPECT_LE(ours.largest, theirs) << name << ": the engine is " << ours.largest
                                            << " from float64, PyTorch float32 " << theirs;
            if (GetParam() == "large_logits" || step == engine::AttentionStep::Output ||
                step == engine::AttentionStep::Weights) {
                std::cout << "[ exactness ] " << GetParam() << " " << name << " engine "
                          << ours.largest << " torch " << theirs << " share of tolerance "
                          << ours.shareOfTolerance << "\n";
            }
            if (GetParam() == "large_logits" && step == engine::AttentionStep::Output) {
                EXPECT_LE(ours.shareOfTolerance, 1.0 / 3.0);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, Float32Exactness, ::testing::ValuesIn(caseNames()),
                         [](const auto& param) { return param.param; });

TEST(Float32ExactnessData, HoldsEveryReferenceCase)
{
    std::ifstream listing(kDataDir + "cases.txt");
    std::size_t cases = 0;
    for (std::string line; std::getline(listing, line);)
        if (!line.empty()) {
            ++cases;
            EXPECT_TRUE(torchErrors().contains(line.substr(0, line.find('\t')))) << line;
        }
    EXPECT_EQ(cases, torchErrors().size());
}

} // namespace
} // namespace attnviz::test
