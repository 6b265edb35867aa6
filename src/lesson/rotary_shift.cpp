#include "lesson/rotary_shift.h"

#include "lesson/walkthrough_variant.h"

#include <algorithm>
#include <cmath>

namespace attnviz::lesson {
namespace {

// 0 … N − 1 in every batch item when `given` is empty, then each moved on by `shift`.
std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& given, std::int64_t batch,
                                  std::int64_t length, std::int64_t shift)
{
    std::vector<std::int64_t> out = given;
    if (out.empty()) {
        out.resize(static_cast<std::size_t>(batch * length));
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<std::int64_t>(i) % length;
    }
    for (std::int64_t& p : out)
        p += shift;
    return out;
}

double largestDifference(const engine::Tensor& a, const engine::Tensor& b)
{
    const auto x = a.values(), y = b.values();
    double largest = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::isfinite(x[i]) && std::isfinite(y[i]))
            largest = std::max(largest, std::abs(static_cast<double>(x[i]) - y[i]));
    return largest;
}

} // namespace

std::optional<engine::AttentionTrace> runShifted(const Walkthrough& w, std::int64_t shift,
                                                 const engine::AttentionKeep& keep)
{
    const engine::AttentionTrace& t = *w.trace;
    if (!t.description.rotary || whyNotRecomputable(w))
        return std::nullopt;
    if (double(t.batchSize()) * double(t.numHeads()) * double(t.queryLength()) *
            double(t.keyLength()) >
        kMaxShiftCells)
        return std::nullopt;
    engine::AttentionOptions options = w.rerunOptions(keep);
    options.positions.query = shifted(w.positions.query, t.batchSize(), t.queryLength(), shift);
    options.positions.key = shifted(w.positions.key, t.batchSize(), t.keyLength(), shift);
    for (const auto* positions : {&options.positions.query, &options.positions.key})
        if (std::any_of(positions->begin(), positions->end(),
                        [](std::int64_t p) { return p > engine::kMaxPosition; }))
            return std::nullopt;
    return w.module->forward(*w.queryInput, *w.keyValueInput, *w.keyValueInput, w.mask, options);
}

std::optional<RotaryShift> rotaryShift(const Walkthrough& w, std::int64_t shift)
{
    const engine::AttentionTrace& t = *w.trace;
    if (!t.has(engine::AttentionStep::Scores) || !t.has(engine::AttentionStep::QRotated))
        return std::nullopt;
    const std::optional<engine::AttentionTrace> moved =
        runShifted(w, shift,
                   engine::AttentionKeep::only(
                       {engine::AttentionStep::QRotated, engine::AttentionStep::Scores}));
    if (!moved)
        return std::nullopt;
    RotaryShift out;
    out.shift = shift;
    out.queryChange = largestDifference(moved->qRotated, t.qRotated);
    out.scoreChange = largestDifference(moved->scores, t.scores);
    for (const float v : t.scores.values())
        out.largestScore = std::max(out.largestScore, static_cast<double>(std::abs(v)));
    return out;
}

} // namespace attnviz::lesson
