#include "lesson/step_questions.h"

#include "engine/multi_head_attention.h"
#include "lesson/attention_sinks.h"
#include "lesson/memory_budget.h"
#include "lesson/playground.h"
#include "lesson/walkthrough_variant.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>

namespace attnviz::lesson {
namespace {

// More keys than this are not offered as buttons: the answer and the strongest others are.
constexpr std::size_t kMaxKeyChoices = 12;
// One pass per head with a head switched off is quick for a lesson's sizes; a long model run's
// block (1024 tokens, 12 heads) is not asked about.
constexpr double kMaxAblationCells = 64e6;

std::string number(double v, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    std::string s = text;
    if (!s.empty() && s[0] == '-')
        s.replace(0, 1, "−");
    return s;
}

// Two decimals, or more when two numbers that differ would print the same.
std::pair<std::string, std::string> twoNumbers(double a, double b)
{
    for (int decimals = 2; decimals < 6; ++decimals)
        if (number(a, decimals) != number(b, decimals))
            return {number(a, decimals), number(b, decimals)};
    return {number(a, 6), number(b, 6)};
}

// "2" for a whole number, "2.24" otherwise.
std::string compact(double v)
{
    return std::abs(v - std::round(v)) < 1e-9 ? std::to_string(std::llround(v)) : number(v, 2);
}

std::string percent(double fraction)
{
    const double p = 100 * fraction;
    return number(p, p < 10 ? 1 : 0) + " %";
}

std::string quoted(const std::string& token)
{
    return "“" + token + "”";
}

std::string tokenAt(const std::vector<std::vector<std::string>>& tokens, int batch, int index)
{
    const auto b = static_cast<std::size_t>(batch), i = static_cast<std::size_t>(index);
    if (b < tokens.size() && i < tokens[b].size())
        return tokens[b][i];
    return std::to_string(index);
}

std::string keyLabel(const Walkthrough& w, int batch, int key)
{
    return std::to_string(key) + " " + quoted(tokenAt(w.keyTokens, batch, key));
}

std::string keyList(const Walkthrough& w, int batch, const std::vector<int>& keys)
{
    if (keys.empty())
        return "none";
    std::string out;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (k == 8) {
            out += ", …";
            break;
        }
        out += (k ? ", " : "") + keyLabel(w, batch, keys[k]);
    }
    return out;
}

bool blocked(float v)
{
    return std::isinf(v) && v < 0;
}

// A deterministic shuffle (std::shuffle's order is not fixed by the standard).
template <typename T> void shuffle(std::vector<T>& items, std::mt19937& rng)
{
    for (std::size_t i = items.size(); i > 1; --i)
        std::swap(items[i - 1], items[rng() % i]);
}

// The choices, shuffled, with the index of the one that was first (the answer).
void shuffledWithAnswerFirst(StepQuestion& q, std::vector<QuestionChoice> choices,
                             std::mt19937& rng)
{
    std::vector<std::size_t> order(choices.size());
    std::iota(order.begin(), order.end(), 0);
    shuffle(order, rng);
    for (std::size_t i = 0; i < order.size(); ++i) {
        q.choices.push_back(choices[order[i]]);
        if (order[i] == 0)
            q.answer = i;
    }
}

struct RowCandidate {
    double margin = 0;
    int head = 0, query = 0;
};

// Rows whose largest value stands out come first; the seed picks among the clearest third.
const RowCandidate& pickClear(std::vector<RowCandidate>& candidates, std::mt19937& rng)
{
    std::stable_sort(
        candidates.begin(), candidates.end(),
        [](const RowCandidate& a, const RowCandidate& b) { return a.margin > b.margin; });
    const std::size_t pool = std::max<std::size_t>(1, candidates.size() / 3);
    return candidates[rng() % pool];
}

// StrongestKey on the weights, HighestScore on the scores.
std::optional<StepQuestion> keyQuestion(const Walkthrough& w, QuestionKind kind, int batch,
                                        std::mt19937& rng)
{
    const engine::AttentionTrace& t = *w.trace;
    const bool weights = kind == QuestionKind::StrongestKey;
    const engine::AttentionStep step =
        weights ? engine::AttentionStep::Weights : engine::AttentionStep::Scores;
    if (!t.has(step) || t.keyLength() < 2)
        return std::nullopt;
    const bool haveMask = t.has(engine::AttentionStep::Masked);
    const auto visibleKeys = [&](int head, int query) {
        std::vector<int> keys;
        const auto values = t.step(step).matrix({batch, head});
        for (int j = 0; j < static_cast<int>(t.keyLength()); ++j) {
            // The scores come before the mask: every key has one. A weight is for allowed keys.
            const bool allowed = !weights ||
                (haveMask ? !blocked(t.masked.matrix({batch, head})(query, j))
                          : values(query, j) > 0);
            if (allowed)
                keys.push_back(j);
        }
        return keys;
    };
    std::vector<RowCandidate> candidates;
    for (int h = 0; h < static_cast<int>(t.numHeads()); ++h) {
        const auto values = t.step(step).matrix({batch, h});
        for (int i = 0; i < static_cast<int>(t.queryLength()); ++i) {
            if (tokenAt(w.queryTokens, batch, i) == kPadToken)
                continue;
            const std::vector<int> keys = visibleKeys(h, i);
            if (keys.size() < 2)
                continue; // one key to see: nothing to predict
            std::vector<float> row;
            for (const int j : keys)
                row.push_back(values(i, j));
            std::partial_sort(row.begin(), row.begin() + 2, row.end(), std::greater<>());
            double margin = double(row[0]) - double(row[1]);
            if (!weights) {
                // Scores have no fixed scale: compare the gap with the row's spread.
                const double spread = double(row[0]) - double(row.back());
                margin = spread > 0 ? margin / spread : 0;
            }
            candidates.push_back({margin, h, i});
        }
    }
    if (candidates.empty())
        return std::nullopt;
    const RowCandidate pick = pickClear(candidates, rng);
    const auto values = t.step(step).matrix({batch, pick.head});
    std::vector<int> keys = visibleKeys(pick.head, pick.query);
    std::vector<int> byValue = keys;
    std::stable_sort(byValue.begin(), byValue.end(),
                     [&](int a, int b) { return values(pick.query, a) > values(pick.query, b); });
    const int best = byValue[0], second = byValue[1];
    if (keys.size() > kMaxKeyChoices) {
        keys.assign(byValue.begin(), byValue.begin() + kMaxKeyChoices);
        std::sort(keys.begin(), keys.end());
    }
    StepQuestion q;
    q.kind = kind;
    q.batch = batch;
    q.head = pick.head;
    q.query = pick.query;
    for (const int j : keys) {
        if (j == best)
            q.answer = q.choices.size();
        q.choices.push_back({"key " + keyLabel(w, batch, j), j});
    }
    const auto [top, next] = twoNumbers(values(pick.query, best), values(pick.query, second));
    const std::size_t visible = visibleKeys(pick.head, pick.query).size();
    q.values = {{"query", std::to_string(pick.query)},
                {"token", tokenAt(w.queryTokens, batch, pick.query)},
                {"head", std::to_string(pick.head)},
                {"key", std::to_string(best)},
                {"keyToken", tokenAt(w.keyTokens, batch, best)},
                {"value", top},
                {"second", std::to_string(second)},
                {"secondToken", tokenAt(w.keyTokens, batch, second)},
                {"secondValue", next},
                {"keys", std::to_string(visible)},
                {"uniform", number(1.0 / double(visible), 2)},
                {"answer", q.correct().label}};
    return q;
}

std::optional<StepQuestion> divisorQuestion(const Walkthrough& w, int batch, std::mt19937& rng)
{
    const engine::AttentionTrace& t = *w.trace;
    if (!t.has(engine::AttentionStep::Scores) || !t.has(engine::AttentionStep::Scaled))
        return std::nullopt;
    // The cell with the largest score says most precisely what it was divided by.
    int head = -1, query = 0, key = 0;
    double largest = 0;
    for (int h = 0; h < static_cast<int>(t.numHeads()); ++h) {
        const auto s = t.scores.matrix({batch, h});
        for (int i = 0; i < s.rows(); ++i)
            for (int j = 0; j < s.cols(); ++j)
                if (std::abs(s(i, j)) > largest &&
                    std::isfinite(t.scaled.matrix({batch, h})(i, j))) {
                    largest = std::abs(s(i, j));
                    head = h;
                    query = i;
                    key = j;
                }
    }
    if (head < 0 || largest < 1e-6)
        return std::nullopt;
    const double score = t.scores.matrix({batch, head})(query, key);
    const double scaled = t.scaled.matrix({batch, head})(query, key);
    const double ratio = score / scaled;
    const int dk = w.dk(), d = w.modelWidth(), heads = w.heads();
    struct Candidate {
        std::string label;
        double value;
    };
    std::vector<Candidate> all = {
        {"√d_k = √" + std::to_string(dk) + " = " + compact(std::sqrt(double(dk))),
         std::sqrt(double(dk))},
        {"d_k = " + std::to_string(dk), double(dk)},
        {"1 (nothing: the scores stay as they are)", 1.0},
        {"h = " + std::to_string(heads) + " (the number of heads)", double(heads)},
    };
    if (d > 0)
        all.push_back({"√d_model = √" + std::to_string(d) + " = " + compact(std::sqrt(double(d))),
                       std::sqrt(double(d))});
    const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-3 * std::max(a, b); };
    const auto answer = std::find_if(all.begin(), all.end(),
                                     [&](const Candidate& c) { return same(c.value, ratio); });
    if (answer == all.end())
        return std::nullopt; // another temperature: not a question with one of these answers
    std::vector<QuestionChoice> choices = {{answer->label, -1}};
    std::vector<double> taken = {answer->value};
    for (const Candidate& c : all) {
        if (choices.size() == 4)
            break;
        if (std::none_of(taken.begin(), taken.end(), [&](double v) { return same(v, c.value); })) {
            choices.push_back({c.label, -1});
            taken.push_back(c.value);
        }
    }
    if (choices.size() < 2)
        return std::nullopt;
    StepQuestion q;
    q.kind = QuestionKind::Divisor;
    q.batch = batch;
    q.head = head;
    q.query = query;
    shuffledWithAnswerFirst(q, std::move(choices), rng);
    q.values = {{"head", std::to_string(head)},
                {"query", std::to_string(query)},
                {"token", tokenAt(w.queryTokens, batch, query)},
                {"key", std::to_string(key)},
                {"keyToken", tokenAt(w.keyTokens, batch, key)},
                {"score", number(score, 3)},
                {"scaled", number(scaled, 3)},
                {"ratio", number(ratio, 3)},
                {"answer", q.correct().label}};
    return q;
}

std::optional<StepQuestion> visibleKeysQuestion(const Walkthrough& w, int batch, std::mt19937& rng)
{
    const engine::AttentionTrace& t = *w.trace;
    const int nk = static_cast<int>(t.keyLength());
    if (!t.has(engine::AttentionStep::Masked) || nk < 2)
        return std::nullopt;
    // The mask is the same in every head: head 0's row says it.
    const auto masked = t.masked.matrix({batch, 0});
    const auto allowedKeys = [&](int i) {
        std::vector<int> keys;
        for (int j = 0; j < nk; ++j)
            if (!blocked(masked(i, j)))
                keys.push_back(j);
        return keys;
    };
    std::vector<int> partly, any;
    for (int i = 0; i < static_cast<int>(t.queryLength()); ++i) {
        if (tokenAt(w.queryTokens, batch, i) == kPadToken)
            continue;
        const std::size_t n = allowedKeys(i).size();
        if (n == 0)
            continue;
        any.push_back(i);
        if (n < static_cast<std::size_t>(nk) && n > 1)
            partly.push_back(i);
    }
    const std::vector<int>& rows = partly.empty() ? any : partly;
    if (rows.empty())
        return std::nullopt;
    const int query = rows[rng() % rows.size()];
    const std::vector<int> allowed = allowedKeys(query);
    std::vector<int> refused;
    for (int j = 0; j < nk; ++j)
        if (std::find(allowed.begin(), allowed.end(), j) == allowed.end())
            refused.push_back(j);
    const int n = static_cast<int>(allowed.size());
    std::vector<int> counts = {n};
    for (const int c : {nk, query + 1, n - 1, n + 1, 1, n + 2, n - 2, nk - 1})
        if (counts.size() < 4 && c >= 1 && c <= nk &&
            std::find(counts.begin(), counts.end(), c) == counts.end())
            counts.push_back(c);
    std::sort(counts.begin(), counts.end());
    StepQuestion q;
    q.kind = QuestionKind::VisibleKeys;
    q.batch = batch;
    q.query = query;
    for (const int c : counts) {
        if (c == n)
            q.answer = q.choices.size();
        q.choices.push_back({c == nk ? "all " + std::to_string(nk)
                                     : std::to_string(c) + (c == 1 ? " key" : " keys"),
                             c});
    }
    q.values = {{"query", std::to_string(query)},
                {"token", tokenAt(w.queryTokens, batch, query)},
                {"count", std::to_string(n)},
                {"keys", std::to_string(nk)},
                {"allowed", keyList(w, batch, allowed)},
                {"blocked", keyList(w, batch, refused)},
                {"answer", q.correct().label}};
    return q;
}

/// The shapes a student might expect instead of a step's, written with the trace's sizes: B
/// batch, H heads, Nq queries, Nk keys, Dk and Dv head sizes, D model width, Po output width;
/// `H*Dk` a product, `Dk/2` a half. They are the usual confusions: the head axis in the wrong
/// place, features not yet split or already merged, rows and columns swapped.
struct WrongShapes {
    engine::AttentionStep step;
    std::array<std::string_view, 4> shapes; ///< "axis=size" separated by spaces; "" unused
};

inline constexpr std::array<std::string_view, 4> kScoreShapeConfusions = {
    "batch=B head=H key=Nk query=Nq", "batch=B head=H query=Nq d_k=Dk", "batch=B query=Nq key=Nk",
    ""};

inline constexpr std::array kWrongShapes = {
    WrongShapes{engine::AttentionStep::QProj,
                {"batch=B query=Nq d_k=Dk", "batch=B head=H query=Nq d_k=Dk",
                 "batch=B query=Nq feature=D", "batch=B feature=H*Dk query=Nq"}},
    WrongShapes{engine::AttentionStep::QHeads,
                {"batch=B query=Nq head=H d_k=Dk", "batch=B query=Nq feature=H*Dk",
                 "batch=B head=H query=Nq feature=H*Dk", ""}},
    // A rotation turns pairs of features: nothing is halved, doubled or merged.
    WrongShapes{engine::AttentionStep::QRotated,
                {"batch=B head=H query=Nq d_k=Dk/2", "batch=B head=H query=Nq d_k=2*Dk",
                 "batch=B query=Nq feature=H*Dk", ""}},
    WrongShapes{engine::AttentionStep::Scores, kScoreShapeConfusions},
    // A bias changes the scores' values, not their shape.
    WrongShapes{engine::AttentionStep::Biased, kScoreShapeConfusions},
    // One m per row (what the plain softmax keeps), or one per key (the row held whole).
    WrongShapes{
        engine::AttentionStep::OnlineMax,
        {"batch=B head=H query=Nq", "batch=B head=H query=Nq key=Nk", "batch=B head=H tile=T", ""}},
    WrongShapes{engine::AttentionStep::Context,
                {"batch=B head=H query=Nq key=Nk", "batch=B head=H key=Nk d_v=Dv",
                 "batch=B query=Nq feature=H*Dv", ""}},
    WrongShapes{engine::AttentionStep::Concat,
                {"batch=B head=H query=Nq d_v=Dv", "batch=B query=Nq d_v=Dv",
                 "batch=B head·query=H*Nq d_v=Dv", ""}},
    WrongShapes{engine::AttentionStep::Output,
                {"batch=B query=Nq feature=H*Dv", "batch=B head=H query=Nq feature=Po",
                 "batch=B query=Nq key=Nk", "batch=B query=Nq d_v=Dv"}},
};

/// The axes of one wrong shape of kWrongShapes, with the trace's sizes put in.
std::vector<engine::Axis> wrongAxes(std::string_view shape,
                                    const std::map<std::string_view, std::int64_t>& sizes)
{
    const auto value = [&](std::string_view term) -> std::int64_t {
        if (std::isdigit(static_cast<unsigned char>(term.front())))
            return std::stoll(std::string(term));
        return sizes.at(term);
    };
    const auto size = [&](std::string_view term) {
        std::int64_t divisor = 1;
        if (const std::size_t slash = term.find('/'); slash != std::string_view::npos) {
            divisor = value(term.substr(slash + 1));
            term = term.substr(0, slash);
        }
        std::int64_t product = 1;
        for (std::size_t star; (star = term.find('*')) != std::string_view::npos;) {
            product *= value(term.substr(0, star));
            term.remove_prefix(star + 1);
        }
        return product * value(term) / divisor;
    };
    std::vector<engine::Axis> axes;
    while (!shape.empty()) {
        const std::size_t end = std::min(shape.find(' '), shape.size());
        const std::string_view axis = shape.substr(0, end);
        const std::size_t equals = axis.find('=');
        axes.push_back({std::string(axis.substr(0, equals)), size(axis.substr(equals + 1))});
        shape.remove_prefix(std::min(end + 1, shape.size()));
    }
    return axes;
}

std::optional<StepQuestion> shapeQuestion(const Walkthrough& w, const LessonStep& lessonStep,
                                          int batch, std::mt19937& rng)
{
    const engine::AttentionTrace& t = *w.trace;
    if (lessonStep.views.empty() || w.weightsOnly())
        return std::nullopt;
    const TraceView& view = lessonStep.views.front();
    const auto row = std::find_if(kWrongShapes.begin(), kWrongShapes.end(),
                                  [&](const WrongShapes& r) { return r.step == view.step; });
    if (!t.has(view.step) || row == kWrongShapes.end())
        return std::nullopt;
    const std::map<std::string_view, std::int64_t> sizes = {
        {"B", t.batchSize()},     {"H", t.numHeads()},
        {"Nq", t.queryLength()},  {"Nk", t.keyLength()},
        {"Dk", t.queryKeySize()}, {"Dv", t.valueSize()},
        {"D", w.modelWidth()},    {"Po", t.output.rank() ? t.output.dim(2) : 0},
        {"T", t.tileCount()}};
    const std::string truth = t.step(view.step).shapeString();
    std::vector<QuestionChoice> choices = {{truth, -1}};
    for (const std::string_view shape : row->shapes) {
        if (shape.empty())
            continue;
        const std::string label = engine::shapeText(wrongAxes(shape, sizes));
        if (choices.size() < 4 &&
            std::none_of(choices.begin(), choices.end(),
                         [&](const QuestionChoice& c) { return c.label == label; }))
            choices.push_back({label, -1});
    }
    StepQuestion q;
    q.kind = QuestionKind::Shape;
    q.batch = batch;
    shuffledWithAnswerFirst(q, std::move(choices), rng);
    q.values = {{"symbol", std::string(view.symbol)}, {"answer", truth}};
    return q;
}

std::optional<StepQuestion> headQuestion(const Walkthrough& w, int batch)
{
    const engine::AttentionTrace& t = *w.trace;
    if (w.heads() < 2 || whyNotRecomputable(w))
        return std::nullopt;
    if (double(t.queryLength()) * double(t.keyLength()) * double(t.batchSize()) *
            double(w.heads()) * double(w.heads()) >
        kMaxAblationCells)
        return std::nullopt;
    const std::vector<double> changes = headSwitchOffChanges(w, batch);
    StepQuestion q;
    q.kind = QuestionKind::ImportantHead;
    q.batch = batch;
    std::vector<int> order;
    for (int h = 0; h < static_cast<int>(changes.size()); ++h)
        if (changes[static_cast<std::size_t>(h)] >= 0)
            order.push_back(h);
    if (order.size() < 2)
        return std::nullopt;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return changes[static_cast<std::size_t>(a)] > changes[static_cast<std::size_t>(b)];
    });
    std::string all;
    for (int h = 0; h < static_cast<int>(changes.size()); ++h) {
        const double c = changes[static_cast<std::size_t>(h)];
        if (c < 0)
            continue;
        if (h == order[0])
            q.answer = q.choices.size();
        q.choices.push_back({"head " + std::to_string(h), h});
        all += (all.empty() ? "" : ", ") + ("head " + std::to_string(h) + " " + percent(c));
    }
    q.head = order[0];
    q.values = {{"head", std::to_string(order[0])},
                {"change", percent(changes[static_cast<std::size_t>(order[0])])},
                {"second", std::to_string(order[1])},
                {"secondChange", percent(changes[static_cast<std::size_t>(order[1])])},
                {"all", all},
                {"answer", q.correct().label}};
    return q;
}

// Up to four distinct numbers, the answer first; nullopt when fewer than two are distinct.
std::optional<std::vector<std::int64_t>> distinctWithAnswerFirst(
    std::int64_t answer, std::initializer_list<std::int64_t> others)
{
    std::vector<std::int64_t> out = {answer};
    for (const std::int64_t v : others)
        if (out.size() < 4 && v >= 0 && std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    if (out.size() < 2)
        return std::nullopt;
    return out;
}

// A sliding window of W keys: L layers of it reach L · (W − 1) tokens back (lesson 4 of #25).
std::optional<StepQuestion> windowReachQuestion(const Walkthrough& w, int batch, std::mt19937& rng)
{
    const std::optional<std::int64_t> window = w.description().mask.slidingWindow;
    if (!window || *window < 2)
        return std::nullopt;
    const std::int64_t W = *window;
    const std::int64_t layers = 2 + static_cast<std::int64_t>(rng() % 3);
    const std::int64_t reach = layers * (W - 1);
    const auto numbers = distinctWithAnswerFirst(reach, {layers * W, W - 1, W - 1 + layers, W});
    if (!numbers)
        return std::nullopt;
    std::vector<QuestionChoice> choices;
    for (const std::int64_t n : *numbers)
        choices.push_back({std::to_string(n) + " tokens", static_cast<int>(n)});
    StepQuestion q;
    q.kind = QuestionKind::WindowReach;
    q.batch = batch;
    shuffledWithAnswerFirst(q, std::move(choices), rng);
    q.values = {{"W", std::to_string(W)},
                {"Wm1", std::to_string(W - 1)},
                {"layers", std::to_string(layers)},
                {"reach", std::to_string(reach)},
                {"answer", q.correct().label}};
    return q;
}

// What a decoder keeps of this block for every token it has read (lesson 2 and 3 of #25).
std::optional<StepQuestion> cacheBytesQuestion(const Walkthrough& w, int batch, std::mt19937& rng)
{
    const engine::AttentionDescription& d = w.description();
    if (!d.mask.causal || w.crossAttention)
        return std::nullopt;
    const std::int64_t H = d.queryHeads, Hkv = d.keyValueHeads, dk = d.queryKeySize,
                       dv = d.valueSize;
    const std::int64_t bytes = Hkv * (dk + dv) * 4;
    const auto numbers =
        distinctWithAnswerFirst(bytes, {H * (dk + dv) * 4, Hkv * dk * 4, 2 * bytes, bytes / 2});
    if (!numbers)
        return std::nullopt;
    std::vector<QuestionChoice> choices;
    for (const std::int64_t n : *numbers)
        choices.push_back({std::to_string(n) + " bytes", static_cast<int>(n)});
    StepQuestion q;
    q.kind = QuestionKind::CacheBytes;
    q.batch = batch;
    shuffledWithAnswerFirst(q, std::move(choices), rng);
    q.values = {{"H", std::to_string(H)},
                {"Hkv", std::to_string(Hkv)},
                {"dk", std::to_string(dk)},
                {"dv", std::to_string(dv)},
                {"per1024", formatBytes(static_cast<std::uint64_t>(bytes) * 1024)},
                {"answer", q.correct().label}};
    return q;
}

// An attention sink (lesson 5 of #25): only a trained model's heads have one to find.
std::optional<StepQuestion> firstTokenShareQuestion(const Walkthrough& w, int batch)
{
    const engine::AttentionTrace& t = *w.trace;
    if (!std::holds_alternative<ModelBlockSource>(w.source) || w.crossAttention || w.heads() < 2 ||
        t.keyLength() < 3 || !t.has(engine::AttentionStep::Weights))
        return std::nullopt;
    std::vector<double> shares;
    for (int h = 0; h < w.heads(); ++h)
        shares.push_back(firstTokenShare(t, batch, h));
    std::vector<int> order(shares.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return shares[static_cast<std::size_t>(a)] > shares[static_cast<std::size_t>(b)];
    });
    const double top = shares[static_cast<std::size_t>(order[0])];
    const double second = shares[static_cast<std::size_t>(order[1])];
    if (top - second < 0.01)
        return std::nullopt; // no head stands out: not a question with one answer
    std::vector<QuestionChoice> choices;
    for (const int h : order) {
        if (choices.size() == kMaxKeyChoices)
            break;
        choices.push_back({"head " + std::to_string(h), h});
    }
    StepQuestion q;
    q.kind = QuestionKind::FirstTokenShare;
    q.batch = batch;
    q.head = order[0];
    // Heads in their order, as the grid shows them.
    std::sort(choices.begin(), choices.end(),
              [](const QuestionChoice& a, const QuestionChoice& b) { return a.value < b.value; });
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (choices[i].value == order[0])
            q.answer = i;
    q.choices = std::move(choices);
    q.values = {{"head", std::to_string(order[0])},        {"share", percent(top)},
                {"second", std::to_string(order[1])},      {"secondShare", percent(second)},
                {"token", tokenAt(w.keyTokens, batch, 0)}, {"answer", q.correct().label}};
    return q;
}

} // namespace

std::string_view questionKindName(QuestionKind kind)
{
    for (const QuestionKindInfo& info : kQuestionKinds)
        if (info.kind == kind)
            return info.name;
    return {};
}

std::optional<QuestionKind> questionKindFromName(std::string_view name)
{
    for (const QuestionKindInfo& info : kQuestionKinds)
        if (info.name == name)
            return info.kind;
    return std::nullopt;
}

std::string StepQuestion::value(std::string_view name) const
{
    for (const auto& [key, v] : values)
        if (key == name)
            return v;
    return {};
}

std::string StepQuestion::fill(std::string_view text) const
{
    std::string out(text);
    for (const auto& [key, v] : values) {
        const std::string placeholder = "{" + key + "}";
        for (std::size_t at = out.find(placeholder); at != std::string::npos;
             at = out.find(placeholder, at + v.size()))
            out.replace(at, placeholder.size(), v);
    }
    return out;
}

std::vector<double> headSwitchOffChanges(const Walkthrough& w, int batch)
{
    if (whyNotRecomputable(w))
        return {};
    const engine::AttentionTrace& t = *w.trace;
    const Eigen::MatrixXd intact = t.output.matrix({batch}).cast<double>();
    const double norm = intact.norm();
    std::vector<double> changes;
    for (int h = 0; h < w.heads(); ++h) {
        if (std::find(t.ablatedHeads.begin(), t.ablatedHeads.end(), h) != t.ablatedHeads.end()) {
            changes.push_back(-1);
            continue;
        }
        engine::AttentionOptions options =
            w.rerunOptions(engine::AttentionKeep::only({engine::AttentionStep::Output}));
        options.ablatedHeads.push_back(h);
        const engine::AttentionTrace off =
            w.module->forward(*w.queryInput, *w.keyValueInput, *w.keyValueInput, w.mask, options);
        const double diff = (off.output.matrix({batch}).cast<double>() - intact).norm();
        changes.push_back(norm > 0 ? diff / norm : diff);
    }
    return changes;
}

std::optional<StepQuestion> stepQuestion(const Walkthrough& w, LessonStepIndex step,
                                         QuestionKind kind, int batch, std::uint32_t seed)
{
    if (!w.trace || step >= kLessonSteps.size() || batch < 0 || batch >= w.batch())
        return std::nullopt;
    const LessonStep& info = kLessonSteps[step];
    std::mt19937 rng(seed);
    std::optional<StepQuestion> q;
    switch (kind) {
    case QuestionKind::StrongestKey:
    case QuestionKind::HighestScore:
        q = keyQuestion(w, kind, batch, rng);
        break;
    case QuestionKind::Divisor:
        q = divisorQuestion(w, batch, rng);
        break;
    case QuestionKind::VisibleKeys:
        q = visibleKeysQuestion(w, batch, rng);
        break;
    case QuestionKind::Shape:
        q = shapeQuestion(w, info, batch, rng);
        break;
    case QuestionKind::ImportantHead:
        q = headQuestion(w, batch);
        break;
    case QuestionKind::WindowReach:
        q = windowReachQuestion(w, batch, rng);
        break;
    case QuestionKind::CacheBytes:
        q = cacheBytesQuestion(w, batch, rng);
        break;
    case QuestionKind::FirstTokenShare:
        q = firstTokenShareQuestion(w, batch);
        break;
    }
    if (q)
        q->step = step;
    return q;
}

std::optional<StepQuestion> stepQuestion(const Walkthrough& w, LessonStepIndex step,
                                         std::span<const QuestionKind> kinds, int batch,
                                         std::uint32_t seed)
{
    for (std::size_t k = 0; k < kinds.size(); ++k)
        if (auto q = stepQuestion(w, step, kinds[(seed + k) % kinds.size()], batch, seed))
            return q;
    return std::nullopt;
}

} // namespace attnviz::lesson
