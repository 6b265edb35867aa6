#include "lesson/playground.h"

#include "engine/multi_head_attention.h"
#include "engine/positional_encoding.h"
#include "io/tokenizer/utf8.h"
#include "lesson/field_limits.h"
#include "lesson/memory_budget.h"
#include "lesson/step_view.h"
#include "lesson/valid_lengths.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <random>

namespace attnviz::lesson {
namespace {

constexpr int kMaxTokens = 256;
constexpr int kMaxWidth = 1024;
constexpr int kMaxHeads = 64;
const std::string kPad = kPadToken;

std::string sizeProblem(const char* what, int value, int limit)
{
    if (value < 1)
        return std::string(what) + " must be at least 1";
    return std::string(what) + " " + std::to_string(value) + " is above the limit of " +
        std::to_string(limit);
}

std::string capitalised(std::string clause)
{
    if (!clause.empty() && clause[0] >= 'a' && clause[0] <= 'z')
        clause[0] = static_cast<char>(clause[0] - 'a' + 'A');
    return clause;
}

std::size_t longest(const std::vector<std::vector<std::string>>& batch)
{
    std::size_t n = 0;
    for (const auto& tokens : batch)
        n = std::max(n, tokens.size());
    return n;
}

std::vector<int> lengths(const std::vector<std::vector<std::string>>& batch)
{
    std::vector<int> out;
    for (const auto& tokens : batch)
        out.push_back(static_cast<int>(tokens.size()));
    return out;
}

std::vector<std::vector<std::string>> tokenizeAll(const std::vector<std::string>& sentences,
                                                  TokenUnit unit)
{
    std::vector<std::vector<std::string>> all;
    for (const std::string& s : sentences)
        all.push_back(tokenize(s, unit));
    return all;
}

void padTo(std::vector<std::vector<std::string>>& batch, std::size_t length)
{
    for (auto& tokens : batch)
        tokens.resize(length, kPad);
}

// A seeded vector per token: the same word always looks the same, whatever sentence it is in.
void embed(const std::vector<std::vector<std::string>>& tokens, std::uint32_t seed,
           engine::Tensor& out)
{
    const std::int64_t width = out.dim(2);
    for (std::size_t b = 0; b < tokens.size(); ++b)
        for (std::size_t i = 0; i < tokens[b].size(); ++i) {
            std::mt19937 random(seed ^
                                static_cast<std::uint32_t>(std::hash<std::string>{}(tokens[b][i])));
            std::normal_distribution<float> normal(0.0f, 1.0f);
            auto row = out.matrix({static_cast<std::int64_t>(b)}).row(static_cast<Eigen::Index>(i));
            for (std::int64_t c = 0; c < width; ++c)
                row(c) = tokens[b][i] == kPad ? 0.0f : normal(random);
        }
}

engine::RowMatrix randomWeight(Eigen::Index rows, Eigen::Index cols, std::mt19937& random)
{
    // PyTorch's nn.Linear default: uniform in ±1/√in
    const float bound = 1.0f / std::sqrt(static_cast<float>(cols));
    std::uniform_real_distribution<float> uniform(-bound, bound);
    engine::RowMatrix m(rows, cols);
    for (float& x : m.reshaped())
        x = uniform(random);
    return m;
}

Eigen::RowVectorXf randomBias(Eigen::Index size, Eigen::Index fanIn, std::mt19937& random)
{
    return randomWeight(1, size, random).array() * std::sqrt(static_cast<float>(size)) /
        std::sqrt(static_cast<float>(fanIn));
}

} // namespace

std::vector<std::string> tokenize(const std::string& sentence, TokenUnit unit)
{
    if (unit == TokenUnit::Word)
        return io::splitWords(sentence);
    std::vector<std::string> tokens;
    for (const std::string& ch : io::splitUtf8Characters(sentence)) {
        if (ch == " ")
            tokens.push_back("␣"); // a space is a character too, but must be visible as a label
        else if (ch != "\t" && ch != "\n" && ch != "\r")
            tokens.push_back(ch);
    }
    return tokens;
}

std::string sentencesBeyondLimits(const std::vector<std::string>& sentences, TokenUnit unit)
{
    if (sentences.size() > static_cast<std::size_t>(kMaxSentences))
        return "there are " + std::to_string(sentences.size()) + " sentences, more than the " +
            std::to_string(kMaxSentences) + " the playground takes";
    for (std::size_t b = 0; b < sentences.size(); ++b) {
        const std::string number = "batch item " + std::to_string(b);
        if (const std::size_t n = io::countUtf8Characters(sentences[b]);
            n > static_cast<std::size_t>(kMaxSentenceLength))
            return number + " has " + std::to_string(n) + " characters, more than the " +
                std::to_string(kMaxSentenceLength) + " a sentence may have";
        if (unit == TokenUnit::Word)
            for (const std::string& word : io::splitWords(sentences[b]))
                if (const std::size_t n = io::countUtf8Characters(word);
                    n > static_cast<std::size_t>(kMaxWordLength))
                    return number + " has a word of " + std::to_string(n) +
                        " characters, more than the " + std::to_string(kMaxWordLength) +
                        " a word may have";
    }
    return {};
}

std::vector<SettingsProblem> checkSettings(const PlaygroundSettings& s)
{
    std::vector<SettingsProblem> problems;
    // Beyond these nothing else is worth checking: the text is not even tokenised.
    const std::string queriesBeyond = sentencesBeyondLimits(s.querySentences, s.tokenUnit);
    const std::string keysBeyond = sentencesBeyondLimits(s.keyValueSentences, s.tokenUnit);
    if (!queriesBeyond.empty())
        problems.push_back({SettingsField::QuerySentences, capitalised(queriesBeyond) + "."});
    if (!keysBeyond.empty())
        problems.push_back({SettingsField::KeyValueSentences, capitalised(keysBeyond) + "."});
    if (!problems.empty())
        return problems;
    const auto queries = tokenizeAll(s.querySentences, s.tokenUnit);
    const auto keys = tokenizeAll(s.keyValueSentences, s.tokenUnit);
    if (queries.empty())
        problems.push_back(
            {SettingsField::QuerySentences, "Type a sentence: there is nothing to attend over."});
    for (std::size_t b = 0; b < queries.size(); ++b)
        if (queries[b].empty())
            problems.push_back(
                {SettingsField::QuerySentences,
                 "Batch item " + std::to_string(b) + " has no tokens; remove the empty line."});
    if (longest(queries) > kMaxTokens)
        problems.push_back({SettingsField::QuerySentences,
                            "A sentence has more than " + std::to_string(kMaxTokens) + " tokens."});
    if (!keys.empty()) {
        if (keys.size() != queries.size())
            problems.push_back(
                {SettingsField::KeyValueSentences,
                 "Cross-attention needs one key/value sentence per query sentence (" +
                     std::to_string(queries.size()) + "), not " + std::to_string(keys.size()) +
                     "."});
        for (std::size_t b = 0; b < keys.size(); ++b)
            if (keys[b].empty())
                problems.push_back({SettingsField::KeyValueSentences,
                                    "The key/value sentence of batch item " + std::to_string(b) +
                                        " has no tokens."});
        if (longest(keys) > kMaxTokens)
            problems.push_back(
                {SettingsField::KeyValueSentences,
                 "A sentence has more than " + std::to_string(kMaxTokens) + " tokens."});
    }
    if (s.modelWidth < 1 || s.modelWidth > kMaxWidth)
        problems.push_back(
            {SettingsField::ModelWidth, sizeProblem("The model width D", s.modelWidth, kMaxWidth)});
    if (s.heads < 1 || s.heads > kMaxHeads)
        problems.push_back(
            {SettingsField::Heads, sizeProblem("The number of heads H", s.heads, kMaxHeads)});
    const bool headsOk = s.heads >= 1 && s.heads <= kMaxHeads && s.modelWidth >= 1;
    const auto autoSize = [&](int explicitSize, SettingsField field, const char* name) {
        if (explicitSize < 0 || explicitSize > kMaxWidth)
            problems.push_back({field, sizeProblem(name, explicitSize, kMaxWidth)});
        else if (explicitSize == 0 && headsOk && s.modelWidth % s.heads != 0)
            problems.push_back({field,
                                "D = " + std::to_string(s.modelWidth) + " cannot be split into " +
                                    std::to_string(s.heads) +
                                    " equal heads: choose D as a multiple of H, or set " + name +
                                    " yourself."});
    };
    autoSize(s.queryKeySize, SettingsField::QueryKeySize, "d_k");
    autoSize(s.valueSize, SettingsField::ValueSize, "d_v");
    if (s.keyValueHeads < 0 || s.keyValueHeads > kMaxHeads)
        problems.push_back({SettingsField::KeyValueHeads,
                            sizeProblem("The number of K/V heads", s.keyValueHeads, kMaxHeads)});
    else if (headsOk && s.keyValueHeads > 0 && s.heads % s.keyValueHeads != 0)
        problems.push_back({SettingsField::KeyValueHeads,
                            std::to_string(s.keyValueHeads) + " K/V heads cannot serve " +
                                std::to_string(s.heads) +
                                " query heads in equal groups: choose a divisor of H."});
    if (s.positions == PositionKind::Rotary) {
        const int dk = s.queryKeySize ? s.queryKeySize : headsOk ? s.modelWidth / s.heads : 0;
        if (!(std::isfinite(s.ropeTheta) && s.ropeTheta > 1 && s.ropeTheta <= 1e9))
            problems.push_back({SettingsField::Positions,
                                "θ of the rotary positions must be a number above 1, at most "
                                "1e9 (Llama uses 10000 or 500000)."});
        if (dk > 0 && dk % 2 != 0 && s.rotaryDim == 0)
            problems.push_back({SettingsField::Positions,
                                "Rotary positions turn the features of a head in pairs: d_k = " +
                                    std::to_string(dk) + " must be even."});
    }
    const int dk = s.queryKeySize ? s.queryKeySize : headsOk ? s.modelWidth / s.heads : 0;
    if (s.rotaryDim != 0 &&
        (s.positions != PositionKind::Rotary || s.rotaryDim < 2 || s.rotaryDim % 2 != 0 ||
         (dk > 0 && s.rotaryDim > dk)))
        problems.push_back({SettingsField::RotaryDim,
                            s.positions != PositionKind::Rotary
                                ? std::string("The rotated features belong to rotary positions: "
                                              "choose them, or set the features to 0.")
                                : "Rotary positions turn an even number of features, from 2 to "
                                  "d_k = " +
                                    std::to_string(dk) + ", or 0 for all of them."});
    if (!(std::isfinite(s.scoreScale) && s.scoreScale >= 0 && s.scoreScale <= kMaxScoreScale))
        problems.push_back({SettingsField::ScoreScale,
                            "The scale of the scores must be a number from 0 (1/√d_k) to " +
                                formatNumber(kMaxScoreScale) + "."});
    if (!(std::isfinite(s.softCap) && s.softCap >= 0 && s.softCap <= kMaxSoftCap))
        problems.push_back({SettingsField::SoftCap,
                            "The cap of the scores must be a number from 0 (no cap) to " +
                                formatNumber(kMaxSoftCap) + " (Gemma 2 caps at 50)."});
    if (s.slidingWindow < 0 || s.slidingWindow > kMaxTokens)
        problems.push_back({SettingsField::SlidingWindow,
                            sizeProblem("The sliding window", s.slidingWindow, kMaxTokens)});
    else if (s.slidingWindow > 0 && s.mask != MaskKind::Causal)
        problems.push_back({SettingsField::SlidingWindow,
                            "A sliding window limits how far back a causal query looks: choose "
                            "the causal mask, or set the window to 0."});
    if (s.onlineSoftmaxTile < 0 || s.onlineSoftmaxTile > kMaxTokens)
        problems.push_back({SettingsField::OnlineSoftmaxTile,
                            sizeProblem("The softmax tile", s.onlineSoftmaxTile, kMaxTokens)});
    if (s.outputWidth < 0 || s.outputWidth > kMaxWidth)
        problems.push_back({SettingsField::OutputWidth,
                            sizeProblem("The output width", s.outputWidth, kMaxWidth)});
    if (s.mask == MaskKind::Custom) {
        const auto nq = static_cast<int>(longest(queries));
        const auto nk = static_cast<int>(keys.empty() ? longest(queries) : longest(keys));
        for (const auto& [q, k] : s.blockedCells)
            if (q < 0 || q >= nq || k < 0 || k >= nk) {
                problems.push_back({SettingsField::Mask,
                                    "The drawn mask has a cell outside the " + std::to_string(nq) +
                                        " × " + std::to_string(nk) +
                                        " score matrix; clear it and draw again."});
                break;
            }
    }
    if (s.mask == MaskKind::ValidLengths && !s.validLengths.empty() && !queries.empty()) {
        const auto parsed = parseValidLengths(
            s.validLengths, lengths(keys.empty() ? queries : keys), longest(queries));
        if (const auto* problem = std::get_if<std::string>(&parsed))
            problems.push_back({SettingsField::ValidLengths, *problem});
    }
    return problems;
}

namespace {

// The engine's module sizes for the settings (the defaults of d_k, d_v and the output width
// filled in), as computeWalkthrough builds them.
struct ModuleSizes {
    int heads, keyValueHeads, queryKey, value, output;
};

ModuleSizes moduleSizes(const PlaygroundSettings& s)
{
    return {s.heads, s.keyValueHeads ? s.keyValueHeads : s.heads,
            s.queryKeySize ? s.queryKeySize : s.modelWidth / s.heads,
            s.valueSize ? s.valueSize : s.modelWidth / s.heads,
            s.outputWidth ? s.outputWidth : s.modelWidth};
}

// A learned gain of n values near 1 (near 0 for Gemma's 1 + w): enough spread that the norm's
// effect shows, from the settings' own random stream after the projections.
Eigen::RowVectorXf randomGain(Eigen::Index n, bool unitOffset, std::mt19937& random)
{
    std::normal_distribution<float> normal(unitOffset ? 0.0f : 1.0f, 0.3f);
    Eigen::RowVectorXf gain(n);
    for (float& g : gain)
        g = normal(random);
    return gain;
}

std::shared_ptr<const Walkthrough> computeWalkthrough(const PlaygroundSettings& s)
{
    auto w = std::make_shared<Walkthrough>();
    PlaygroundSource source;
    source.settings = s;
    w->crossAttention = !s.keyValueSentences.empty();
    w->queryTokens = tokenizeAll(s.querySentences, s.tokenUnit);
    w->keyTokens =
        w->crossAttention ? tokenizeAll(s.keyValueSentences, s.tokenUnit) : w->queryTokens;
    w->keyLengths = lengths(w->keyTokens);
    const std::size_t nq = longest(w->queryTokens), nk = longest(w->keyTokens);
    padTo(w->queryTokens, nq);
    padTo(w->keyTokens, nk);

    const auto B = static_cast<std::int64_t>(w->queryTokens.size());
    const std::int64_t D = s.modelWidth;
    source.embedding =
        engine::Tensor({{"batch", B}, {"query", static_cast<std::int64_t>(nq)}, {"feature", D}});
    embed(w->queryTokens, s.seed, source.embedding);
    const std::size_t positions = std::max(nq, nk);
    source.positional =
        engine::Tensor({{"position", static_cast<std::int64_t>(positions)}, {"feature", D}});
    if (s.positions == PositionKind::Sinusoidal)
        source.positional.matrix({}) =
            engine::sinusoidalPositionalEncoding(static_cast<Eigen::Index>(positions), D);

    auto queryInput = std::make_shared<engine::Tensor>(source.embedding);
    for (std::int64_t b = 0; b < B; ++b)
        queryInput->matrix({b}) +=
            source.positional.matrix({}).topRows(static_cast<Eigen::Index>(nq));
    std::shared_ptr<engine::Tensor> keyValueInput = queryInput;
    if (w->crossAttention) {
        keyValueInput = std::make_shared<engine::Tensor>(
            engine::Tensor({{"batch", B}, {"key", static_cast<std::int64_t>(nk)}, {"feature", D}}));
        embed(w->keyTokens, s.seed, *keyValueInput);
        for (std::int64_t b = 0; b < B; ++b)
            keyValueInput->matrix({b}) +=
                source.positional.matrix({}).topRows(static_cast<Eigen::Index>(nk));
    }
    w->queryInput = queryInput;
    w->keyValueInput = keyValueInput;

    const auto [H, Hkv, dk, dv, po] = moduleSizes(s);
    std::mt19937 random(s.seed);
    auto weights = std::make_shared<engine::AttentionWeights>();
    weights->wQ = randomWeight(H * dk, D, random);
    weights->wK = randomWeight(Hkv * dk, D, random);
    weights->wV = randomWeight(Hkv * dv, D, random);
    weights->wO = randomWeight(po, H * dv, random);
    if (s.bias) {
        weights->bQ = randomBias(H * dk, D, random);
        weights->bK = randomBias(Hkv * dk, D, random);
        weights->bV = randomBias(Hkv * dv, D, random);
        weights->bO = randomBias(po, H * dv, random);
    }
    engine::AttentionDescription description = playgroundDescription(s);
    // Drawn after the projections, so that switching a treatment on keeps every other weight.
    if (description.queryKeyNorm) {
        const bool perHead =
            description.queryKeyNorm->scope == engine::QueryKeyNorm::Scope::PerHead;
        weights->qNorm = randomGain(perHead ? dk : H * dk, s.queryKeyNormUnitOffset, random);
        weights->kNorm = randomGain(perHead ? dk : Hkv * dk, s.queryKeyNormUnitOffset, random);
    }
    if (description.learnedSinks) {
        std::normal_distribution<float> logit(0.0f, 1.5f);
        weights->sinks = Eigen::RowVectorXf(H);
        for (float& v : *weights->sinks)
            v = logit(random);
    }
    auto module = std::make_shared<const engine::MultiHeadAttention>(std::move(*weights),
                                                                     std::move(description));

    engine::AttentionMask mask;
    const bool padded = std::any_of(w->keyLengths.begin(), w->keyLengths.end(),
                                    [&](int n) { return static_cast<std::size_t>(n) < nk; });
    // Padding keys are never real tokens: block them whenever the batch has padding.
    if (s.mask == MaskKind::ValidLengths && !s.validLengths.empty())
        mask.validLengths = std::get<engine::AttentionMask::ValidLengths>(
            parseValidLengths(s.validLengths, w->keyLengths, nq));
    else if (s.mask == MaskKind::ValidLengths || padded)
        mask.validLengths = engine::AttentionMask::ValidLengths{
            std::vector<std::int64_t>(w->keyLengths.begin(), w->keyLengths.end()), false};
    if (s.mask == MaskKind::Custom && !s.blockedCells.empty()) {
        engine::AttentionMask::Explicit e;
        e.allowed.assign(nq * nk, 1);
        for (const auto& [q, k] : s.blockedCells)
            e.allowed[static_cast<std::size_t>(q) * nk + static_cast<std::size_t>(k)] = 0;
        mask.explicitMask = std::move(e);
    }

    auto trace = std::make_shared<engine::AttentionTrace>();
    const auto start = std::chrono::steady_clock::now();
    engine::AttentionOptions options;
    for (const int h : s.ablatedHeads)
        if (h >= 0 && h < H) // a head switched off before H was lowered no longer exists
            options.ablatedHeads.push_back(h);
    module->forward(*queryInput, *keyValueInput, *keyValueInput, mask, *trace, options);
    w->mask = module->maskInForce(mask);
    w->module = std::move(module);
    w->milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    w->trace = trace;
    w->source = std::move(source);
    if (!options.ablatedHeads.empty()) {
        PlaygroundSettings everyHeadOn = s;
        everyHeadOn.ablatedHeads.clear();
        w->intact = computeWalkthrough(everyHeadOn);
    }
    return w;
}

} // namespace

engine::AttentionDescription playgroundDescription(const PlaygroundSettings& s)
{
    const auto [H, Hkv, dk, dv, po] = moduleSizes(s);
    engine::AttentionDescription d;
    d.queryHeads = H;
    d.keyValueHeads = Hkv;
    d.queryKeySize = dk;
    d.valueSize = dv;
    d.mask.causal = s.mask == MaskKind::Causal;
    if (s.mask == MaskKind::Causal && s.slidingWindow > 0)
        d.mask.slidingWindow = s.slidingWindow;
    if (s.positions == PositionKind::Rotary)
        d.rotary = engine::RotaryPositions{s.ropeTheta, s.rotaryDim};
    if (s.positions == PositionKind::Alibi)
        d.scoreBias = engine::ScoreBias::geometric(H);
    if (s.queryKeyNorm != QueryKeyNormKind::None) {
        engine::QueryKeyNorm norm;
        norm.scope = s.queryKeyNorm == QueryKeyNormKind::PerHead
            ? engine::QueryKeyNorm::Scope::PerHead
            : engine::QueryKeyNorm::Scope::WholeProjection;
        norm.unitOffset = s.queryKeyNormUnitOffset;
        d.queryKeyNorm = norm;
    }
    if (s.scoreScale > 0)
        d.scoreScale = s.scoreScale;
    if (s.softCap > 0)
        d.logitSoftCap = s.softCap;
    d.learnedSinks = s.learnedSinks;
    if (s.onlineSoftmaxTile > 0)
        d.onlineSoftmaxTile = s.onlineSoftmaxTile;
    return d;
}

std::uint64_t playgroundBytes(const PlaygroundSettings& s)
{
    const ModuleSizes m = moduleSizes(s);
    const auto queries = tokenizeAll(s.querySentences, s.tokenUnit);
    const auto keys =
        s.keyValueSentences.empty() ? queries : tokenizeAll(s.keyValueSentences, s.tokenUnit);
    engine::AttentionTrace::Sizes sizes;
    sizes.batch = static_cast<std::int64_t>(queries.size());
    sizes.heads = m.heads;
    sizes.keyValueHeads = m.keyValueHeads;
    sizes.queries = static_cast<std::int64_t>(longest(queries));
    sizes.keys = static_cast<std::int64_t>(longest(keys));
    sizes.queryKey = m.queryKey;
    sizes.value = m.value;
    const engine::AttentionDescription description = playgroundDescription(s);
    sizes.tiles = description.onlineSoftmaxTiles(sizes.keys);
    const std::uint64_t trace =
        attentionTraceBytes(sizes, description, m.output, engine::AttentionKeep::all());
    const auto D = static_cast<std::uint64_t>(s.modelWidth);
    // W_q, W_k and W_v read D features, W_o the heads' values; each has a bias.
    const auto rowsReadingD = static_cast<std::uint64_t>(m.heads + m.keyValueHeads) * m.queryKey +
        static_cast<std::uint64_t>(m.keyValueHeads) * m.value;
    const std::uint64_t weights = sizeof(float) *
        (rowsReadingD * (D + 1) +
         static_cast<std::uint64_t>(m.output) *
             (static_cast<std::uint64_t>(m.heads) * m.value + 1));
    const std::uint64_t inputs = sizeof(float) * D * static_cast<std::uint64_t>(sizes.batch) *
        static_cast<std::uint64_t>(2 * sizes.queries + 2 * sizes.keys + 1);
    const std::uint64_t once = trace + weights + inputs;
    return s.ablatedHeads.empty() ? once : 2 * once;
}

std::shared_ptr<const Walkthrough> computePlayground(const PlaygroundSettings& s,
                                                     std::optional<std::uint64_t> maxMemory)
{
    MemoryBudget::forThisMachine(maxMemory).check(playgroundBytes(s),
                                                  "Computing these playground settings");
    return computeWalkthrough(s);
}

} // namespace attnviz::lesson
