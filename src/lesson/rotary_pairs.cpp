#include "lesson/rotary_pairs.h"

#include "engine/input_error.h"
#include "lesson/rotary_shift.h"

#include <cmath>
#include <numbers>
#include <string>

namespace attnviz::lesson {
namespace {

using engine::AttentionStep;

std::int64_t positionOf(const std::vector<std::int64_t>& given, int batch, std::int64_t length,
                        int index)
{
    return given.empty() ? index : given[static_cast<std::size_t>(batch * length + index)];
}

void checkIndex(int value, std::int64_t size, const char* what)
{
    if (value < 0 || value >= size)
        throw engine::InputError(std::string(what) + " " + std::to_string(value) +
                                 " does not exist; there are " + std::to_string(size) + ".");
}

// Wrapped to (−π, π]: where a pair points, whatever the number of turns.
double wrapped(double angle)
{
    const double turn = 2 * std::numbers::pi;
    double a = std::fmod(angle, turn);
    if (a <= -std::numbers::pi)
        a += turn;
    else if (a > std::numbers::pi)
        a -= turn;
    return a;
}

} // namespace

std::optional<RotaryPairs> rotaryPairs(const Walkthrough& w, int batch, int head, int query,
                                       int key, std::int64_t shift)
{
    const engine::AttentionTrace& own = *w.trace;
    const engine::AttentionDescription& d = own.description;
    if (!d.rotary)
        return std::nullopt;
    const engine::AttentionKeep keep = engine::AttentionKeep::only(
        {AttentionStep::QHeads, AttentionStep::KHeads, AttentionStep::QRotated,
         AttentionStep::KRotated, AttentionStep::Scores});
    for (const AttentionStep s :
         {AttentionStep::QHeads, AttentionStep::KHeads, AttentionStep::QRotated,
          AttentionStep::KRotated, AttentionStep::Scores})
        if (!own.has(s))
            return std::nullopt;
    checkIndex(batch, own.batchSize(), "Batch item");
    checkIndex(head, own.numHeads(), "Head");
    checkIndex(query, own.queryLength(), "Query");
    checkIndex(key, own.keyLength(), "Key");
    std::optional<engine::AttentionTrace> moved;
    if (shift != 0) {
        moved = runShifted(w, shift, keep);
        if (!moved)
            return std::nullopt;
    }
    const engine::AttentionTrace& t = moved ? *moved : own;

    RotaryPairs out;
    out.head = head;
    out.keyValueHead = d.keyValueHeadOf(head);
    out.query = query;
    out.key = key;
    out.shift = shift;
    out.queryPosition = positionOf(w.positions.query, batch, own.queryLength(), query) + shift;
    out.keyPosition = positionOf(w.positions.key, batch, own.keyLength(), key) + shift;
    const int r = d.rotatedSize();
    const std::vector<double> frequency = d.rotary->frequencies(r);
    const auto q = t.qHeads.matrix({batch, head}).row(query);
    const auto qTurned = t.qRotated.matrix({batch, head}).row(query);
    const auto k = t.kHeads.matrix({batch, out.keyValueHead}).row(key);
    const auto kTurned = t.kRotated.matrix({batch, out.keyValueHead}).row(key);
    for (int i = 0; i < r / 2; ++i) {
        RotaryPair p;
        p.index = i;
        p.frequency = frequency[static_cast<std::size_t>(i)];
        p.queryAngle = static_cast<double>(out.queryPosition) * p.frequency;
        p.keyAngle = static_cast<double>(out.keyPosition) * p.frequency;
        p.query = {q(i), q(i + r / 2)};
        p.queryTurned = {qTurned(i), qTurned(i + r / 2)};
        p.key = {k(i), k(i + r / 2)};
        p.keyTurned = {kTurned(i), kTurned(i + r / 2)};
        p.product =
            double(p.queryTurned[0]) * p.keyTurned[0] + double(p.queryTurned[1]) * p.keyTurned[1];
        out.pairs.push_back(p);
    }
    for (Eigen::Index f = r; f < qTurned.size(); ++f)
        out.unturned += double(qTurned(f)) * kTurned(f);
    out.score = t.scores.at({batch, head, query, key});
    out.unshiftedScore = own.scores.at({batch, head, query, key});
    return out;
}

std::optional<Heatmap> rotaryAngles(const Walkthrough& w, int batch, std::int64_t shift)
{
    const engine::AttentionTrace& t = *w.trace;
    const engine::AttentionDescription& d = t.description;
    if (!d.rotary)
        return std::nullopt;
    checkIndex(batch, t.batchSize(), "Batch item");
    const int r = d.rotatedSize();
    const int rows = static_cast<int>(t.queryLength());
    const std::vector<double> frequency = d.rotary->frequencies(r);
    auto values = std::make_shared<std::vector<float>>();
    values->reserve(static_cast<std::size_t>(rows) * (r / 2));
    for (int i = 0; i < rows; ++i) {
        const double position =
            static_cast<double>(positionOf(w.positions.query, batch, rows, i) + shift);
        for (int p = 0; p < r / 2; ++p)
            values->push_back(
                static_cast<float>(wrapped(position * frequency[static_cast<std::size_t>(p)])));
    }
    Heatmap h;
    h.matrix.values = values->data();
    h.matrix.rows = rows;
    h.matrix.cols = r / 2;
    h.matrix.rowAxis = "query";
    h.matrix.columnAxis = "pair";
    const std::vector<std::string>& tokens = w.queryTokens[static_cast<std::size_t>(batch)];
    for (int i = 0; i < rows; ++i)
        h.matrix.rowLabels.push_back(static_cast<std::size_t>(i) < tokens.size()
                                         ? tokens[static_cast<std::size_t>(i)]
                                         : std::to_string(i));
    for (int p = 0; p < r / 2; ++p)
        h.matrix.columnLabels.push_back(std::to_string(p));
    h.owner = std::move(values);
    h.caption = "angle = position × frequency (radians, wrapped)";
    h.title = h.caption;
    h.scale = ColourScale::Diverging;
    return h;
}

} // namespace attnviz::lesson
