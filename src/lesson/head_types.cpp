#include "lesson/head_types.h"

#include "engine/input_error.h"
#include "lesson/attention_sinks.h"
#include "lesson/picture_attention.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <random>

namespace attnviz::lesson {
namespace {

// Σ_j A[i, j] · |i − j| averaged over the rows.
double meanDistance(engine::ConstMatrixView a)
{
    double sum = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            sum += a(i, j) * static_cast<double>(std::abs(i - j));
    return sum / static_cast<double>(a.rows());
}

// −Σ_j A[i, j] ln A[i, j] averaged over the rows (0 ln 0 = 0).
double meanEntropy(engine::ConstMatrixView a)
{
    double sum = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
            if (a(i, j) > 0)
                sum -= a(i, j) * std::log(static_cast<double>(a(i, j)));
    return sum / static_cast<double>(a.rows());
}

// Spellings wrapped in <…> or […]: special tokens (<s>, <|endoftext|>, [CLS]) and byte pieces,
// which an induction prompt of ordinary tokens leaves out.
bool hasPattern(HeadType type)
{
    return type == HeadType::PreviousToken || type == HeadType::DuplicateToken ||
        type == HeadType::Induction;
}

bool looksSpecial(const std::string& token)
{
    return token.size() > 2 &&
        ((token.front() == '<' && token.back() == '>') ||
         (token.front() == '[' && token.back() == ']'));
}

} // namespace

const HeadTypeInfo& headTypeInfo(HeadType type)
{
    for (const HeadTypeInfo& info : kHeadTypes)
        if (info.type == type)
            return info;
    return kHeadTypes.front();
}

std::vector<std::pair<int, int>> HeadTypeMap::ranking() const
{
    std::vector<std::pair<int, int>> order;
    for (int L = 0; L < layers; ++L)
        for (int h = 0; h < heads; ++h)
            order.emplace_back(L, h);
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        return at(a.first, a.second) > at(b.first, b.second);
    });
    return order;
}

Heatmap HeadTypeMap::heatmap() const
{
    auto shown = std::make_shared<std::vector<float>>(values.begin(), values.end());
    Heatmap h = layersByHeads(shown, layers, heads);
    h.caption =
        std::string(engine::blockName(block)) + ": " + std::string(headTypeInfo(type).title);
    h.title = h.caption;
    h.scale = ColourScale::Sequential;
    return h;
}

std::vector<std::uint8_t> detectionPattern(HeadType type, const std::vector<int>& t)
{
    const std::size_t n = t.size();
    std::vector<std::uint8_t> p(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            bool on = false;
            if (type == HeadType::PreviousToken)
                on = j + 1 == i;
            else if (type == HeadType::DuplicateToken)
                on = j < i && t[j] == t[i];
            else if (type == HeadType::Induction)
                on = j >= 1 && t[j - 1] == t[i];
            p[i * n + j] = on;
        }
    return p;
}

double patternScore(const std::vector<std::uint8_t>& pattern, engine::ConstMatrixView a)
{
    double on = 0, all = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            all += a(i, j);
            if (pattern[static_cast<std::size_t>(i * a.cols() + j)])
                on += a(i, j);
        }
    return all > 0 ? on / all : 0.0;
}

namespace {

// The `wanted` head types of every self-attention block of `text` (the induction score on
// `repeated`'s trace, when it has weights).
std::vector<HeadTypeMap> scoreHeads(const engine::ModelTrace& text,
                                    const engine::ModelTrace& repeated,
                                    const std::function<bool(HeadType)>& wanted)
{
    std::vector<HeadTypeMap> maps;
    for (const engine::Block block : {engine::Block::Self, engine::Block::MaskedSelf}) {
        const engine::StackTrace* stack = text.stackOf(block);
        if (!stack || stack->layers.empty())
            continue;
        const int layers = static_cast<int>(stack->layers.size());
        const auto weightsOf = [&](const engine::ModelTrace& trace,
                                   int L) -> const engine::Tensor* {
            const engine::AttentionBlockTrace* b = trace.attentionBlock(L, block);
            return b && b->attention.has(engine::AttentionStep::Weights) &&
                    b->attention.keyLength() > 1
                ? &b->attention.weights
                : nullptr;
        };
        if (!weightsOf(text, 0))
            continue;
        const int heads = static_cast<int>(weightsOf(text, 0)->dim(1));
        const std::vector<int>& ids = text.queryIds(block);
        const std::vector<int>& repeatedIds = repeated.queryIds(block);
        std::vector<HeadTypeMap> blockMaps;
        for (const HeadTypeInfo& info : kHeadTypes) {
            // The induction score needs a repetition the text may not have.
            if (!wanted(info.type) || (info.type == HeadType::Induction && !weightsOf(repeated, 0)))
                continue;
            blockMaps.push_back(
                HeadTypeMap{info.type, block, layers, heads,
                            std::vector<double>(static_cast<std::size_t>(layers * heads))});
        }
        const auto patternOn = [&](HeadType type) {
            return type == HeadType::Induction ? detectionPattern(type, repeatedIds)
                                               : detectionPattern(type, ids);
        };
        for (HeadTypeMap& m : blockMaps) {
            const std::vector<std::uint8_t> pattern =
                hasPattern(m.type) ? patternOn(m.type) : std::vector<std::uint8_t>{};
            for (int L = 0; L < layers; ++L) {
                const engine::Tensor* w =
                    weightsOf(m.type == HeadType::Induction ? repeated : text, L);
                if (!w)
                    throw engine::InputError("The run kept no attention weights of layer " +
                                             std::to_string(L) +
                                             "; head types need every layer's.");
                for (int h = 0; h < heads; ++h) {
                    const engine::ConstMatrixView a = w->matrix({0, h});
                    double& score = m.values[static_cast<std::size_t>(L * heads + h)];
                    switch (m.type) {
                    case HeadType::PreviousToken:
                    case HeadType::DuplicateToken:
                    case HeadType::Induction:
                        score = patternScore(pattern, a);
                        break;
                    case HeadType::FirstToken:
                        score = firstTokenShare(text.attentionBlock(L, block)->attention, 0, h);
                        break;
                    case HeadType::Distance:
                        score = meanDistance(a);
                        break;
                    case HeadType::Entropy:
                        score = meanEntropy(a);
                        break;
                    case HeadType::PixelDistance: // pictureHeadTypes
                        break;
                    }
                }
            }
        }
        for (HeadTypeMap& m : blockMaps)
            maps.push_back(std::move(m));
    }
    return maps;
}

} // namespace

std::vector<HeadTypeMap> headTypes(const engine::ModelTrace& text,
                                   const engine::ModelTrace& repeated)
{
    return scoreHeads(text, repeated,
                      [](HeadType type) { return type != HeadType::PixelDistance; });
}

std::vector<HeadTypeMap> pictureHeadTypes(const engine::ModelTrace& trace,
                                          const engine::ModelConfig& config)
{
    const std::vector<double> pixels = meanAttentionDistanceInPixels(trace, config);
    // The token patterns mean nothing for patches: only the share on [CLS] and the entropy.
    std::vector<HeadTypeMap> maps = scoreHeads(trace, trace, [](HeadType type) {
        return type == HeadType::FirstToken || type == HeadType::Entropy;
    });
    if (maps.empty())
        return maps;
    maps.insert(maps.begin() + 1,
                HeadTypeMap{HeadType::PixelDistance, engine::Block::Self, maps.front().layers,
                            maps.front().heads, pixels});
    return maps;
}

std::vector<int> repeatedRandomTokens(std::vector<int> prefix, int length, int first, int last,
                                      std::uint32_t seed)
{
    if (length < 1 || first > last)
        throw engine::InputError("A repeated random prompt needs at least one token to draw.");
    std::mt19937 rng(seed);
    std::vector<int> half;
    for (int i = 0; i < length; ++i)
        half.push_back(first +
                       static_cast<int>(rng() % static_cast<std::uint32_t>(last - first + 1)));
    prefix.insert(prefix.end(), half.begin(), half.end());
    prefix.insert(prefix.end(), half.begin(), half.end());
    return prefix;
}

engine::ModelTrace runOnRepeatedRandomTokens(const io::LoadedModel& model, std::uint32_t seed)
{
    const engine::ModelConfig& c = model.model->config();
    // Ordinary tokens only, drawn through a table of their ids.
    std::vector<int> ordinary;
    for (int id = 0; id < model.tokenizer->size(); ++id)
        if (id != c.bosTokenId && id != c.eosTokenId && !looksSpecial(model.tokenizer->token(id)))
            ordinary.push_back(id);
    if (ordinary.empty())
        throw engine::InputError("The vocabulary has no ordinary token to build an induction "
                                 "prompt from.");
    // The BOS the tokenizer puts first, when it puts one.
    std::vector<int> prefix;
    const std::vector<int> probe = model.tokenizer->encode("a");
    if (!probe.empty() && c.bosTokenId && probe.front() == *c.bosTokenId)
        prefix.push_back(*c.bosTokenId);
    const int room = (c.maxLength - static_cast<int>(prefix.size())) / 2;
    const int length = std::min(50, room);
    std::vector<int> ids =
        repeatedRandomTokens(prefix, length, 0, static_cast<int>(ordinary.size()) - 1, seed);
    for (std::size_t k = prefix.size(); k < ids.size(); ++k)
        ids[k] = ordinary[static_cast<std::size_t>(ids[k])];
    engine::CapturePolicy policy = engine::CapturePolicy::attentionWeights();
    policy.layerTensors = false;
    engine::ModelInput input;
    if (c.hasEncoder()) {
        input.source = ids;
        if (c.hasDecoder())
            input.target = {c.bosTokenId.value_or(0)};
    } else {
        input.target = ids;
    }
    return model.model->forward(input, policy);
}

} // namespace attnviz::lesson
