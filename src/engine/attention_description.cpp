#include "engine/attention_description.h"

#include "engine/input_error.h"
#include "engine/resolved_mask.h"

#include <cmath>
#include <numbers>
#include <sstream>

namespace attnviz::engine {
namespace {

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

std::string number(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

bool positive(double v)
{
    return std::isfinite(v) && v > 0;
}

} // namespace

const char* ropeScalingName(RopeScaling::Kind kind)
{
    return kind == RopeScaling::Kind::Linear ? "linear" : "llama3";
}

std::string ropeScalingProblem(const RopeScaling& s)
{
    const std::string kind = ropeScalingName(s.kind);
    if (!positive(s.factor))
        return "the " + kind + " rope scaling has factor " + number(s.factor) +
            "; expected a positive number such as 8";
    if (s.kind != RopeScaling::Kind::Llama3)
        return {};
    if (!positive(s.originalContext))
        return "the llama3 rope scaling has original_max_position_embeddings " +
            number(s.originalContext) + "; expected a positive number such as 8192";
    if (!positive(s.lowFrequencyFactor) || !std::isfinite(s.highFrequencyFactor) ||
        !(s.highFrequencyFactor > s.lowFrequencyFactor))
        return "the llama3 rope scaling has low_freq_factor " + number(s.lowFrequencyFactor) +
            " and high_freq_factor " + number(s.highFrequencyFactor) +
            "; expected positive numbers with the high one larger, such as 1 and 4";
    return {};
}

std::vector<double> RotaryPositions::frequencies(int r) const
{
    std::vector<double> out(static_cast<std::size_t>(r / 2));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double base = std::pow(theta, -2.0 * static_cast<double>(i) / r);
        out[i] = base;
        if (!scaling)
            continue;
        const RopeScaling& s = *scaling;
        if (s.kind == RopeScaling::Kind::Linear) {
            out[i] = base / s.factor;
            continue;
        }
        // Hugging Face's _compute_llama3_parameters, term by term.
        const double wavelength = 2 * std::numbers::pi / base;
        const double longest = s.originalContext / s.lowFrequencyFactor;
        const double shortest = s.originalContext / s.highFrequencyFactor;
        if (wavelength > longest) {
            out[i] = base / s.factor;
        } else if (wavelength >= shortest) {
            const double smooth = (s.originalContext / wavelength - s.lowFrequencyFactor) /
                (s.highFrequencyFactor - s.lowFrequencyFactor);
            out[i] = (1 - smooth) * base / s.factor + smooth * base;
        }
    }
    return out;
}

int AttentionDescription::rotatedSize() const
{
    if (!rotary)
        return 0;
    return rotary->rotatedSize > 0 ? rotary->rotatedSize : queryKeySize;
}

double AttentionDescription::scale() const
{
    return scoreScale ? *scoreScale : 1.0 / std::sqrt(static_cast<double>(queryKeySize));
}

const char* queryKeyNormScopeName(QueryKeyNorm::Scope scope)
{
    return scope == QueryKeyNorm::Scope::PerHead ? "per_head" : "whole_projection";
}

ScoreBias ScoreBias::geometric(int heads)
{
    ScoreBias bias;
    int n = 1;
    while (2 * n <= heads)
        n *= 2;
    for (int h = 1; h <= n; ++h)
        bias.slopes.push_back(static_cast<float>(std::pow(2.0, -8.0 * h / n)));
    for (int h = 1; n + (h + 1) / 2 <= heads; h += 2)
        bias.slopes.push_back(static_cast<float>(std::pow(2.0, -4.0 * h / n)));
    return bias;
}

AttentionDescription AttentionDescription::fromWeights(const AttentionWeights& w, int queryHeads,
                                                       int keyValueHeads)
{
    if (queryHeads < 1 || queryHeads > kMaxAttentionHeads)
        throw InputError("num_heads is " + str(queryHeads) + "; expected 1 to " +
                         str(kMaxAttentionHeads));
    if (keyValueHeads == 0)
        keyValueHeads = queryHeads;
    if (keyValueHeads < 1 || queryHeads % keyValueHeads != 0)
        throw InputError("num_kv_heads is " + str(keyValueHeads) + "; expected a divisor of the " +
                         str(queryHeads) + " query heads (each K/V head serves a group of them)");
    if (w.wQ.rows() % queryHeads != 0)
        throw InputError("w_q has " + str(w.wQ.rows()) + " rows, which " + str(queryHeads) +
                         " heads cannot share equally; expected a multiple of num_heads");
    if (w.wV.rows() % keyValueHeads != 0)
        throw InputError("w_v has " + str(w.wV.rows()) + " rows, which " + str(keyValueHeads) +
                         (keyValueHeads == queryHeads
                              ? " heads cannot share equally; expected a multiple of num_heads"
                              : " K/V heads cannot share equally; expected a multiple of "
                                "num_kv_heads"));
    AttentionDescription d;
    d.queryHeads = queryHeads;
    d.keyValueHeads = keyValueHeads;
    d.queryKeySize = static_cast<int>(w.wQ.rows() / queryHeads);
    d.valueSize = static_cast<int>(w.wV.rows() / keyValueHeads);
    return d;
}

void checkDescription(const AttentionDescription& d)
{
    if (d.queryHeads < 1 || d.queryHeads > kMaxAttentionHeads)
        throw InputError("the module has " + str(d.queryHeads) + " query heads; expected 1 to " +
                         str(kMaxAttentionHeads));
    if (d.keyValueHeads < 1 || d.queryHeads % d.keyValueHeads != 0)
        throw InputError("the module has " + str(d.keyValueHeads) + " K/V heads for " +
                         str(d.queryHeads) +
                         " query heads; expected a divisor of the query heads, so that every K/V "
                         "head serves a group of the same size");
    if (d.queryKeySize < 1 || d.valueSize < 1)
        throw InputError("a head has size " + str(std::min(d.queryKeySize, d.valueSize)) +
                         "; query, key and value heads need at least one feature");
    if (d.rotary) {
        if (!std::isfinite(d.rotary->theta) || !(d.rotary->theta > 0))
            throw InputError("rope_theta is " + number(d.rotary->theta) +
                             "; expected a positive number such as 10000");
        const int r = d.rotatedSize();
        if (d.rotary->rotatedSize < 0 || r < 2 || r % 2 != 0 || r > d.queryKeySize)
            throw InputError("rotary positions turn " +
                             str(d.rotary->rotatedSize < 0 ? d.rotary->rotatedSize : r) +
                             " features of a head of " + str(d.queryKeySize) +
                             "; expected an even number from 2 to the head size, since features "
                             "turn in pairs");
        if (d.rotary->scaling)
            if (const std::string problem = ropeScalingProblem(*d.rotary->scaling);
                !problem.empty())
                throw InputError(problem);
    }
    if (d.queryKeyNorm && !(positive(d.queryKeyNorm->epsilon) && d.queryKeyNorm->epsilon < 1))
        throw InputError("qk_norm_eps is " + number(d.queryKeyNorm->epsilon) +
                         "; expected a small positive number such as 1e-6");
    if (d.scoreScale && !(positive(*d.scoreScale) && std::isfinite(1.0 / *d.scoreScale)))
        throw InputError("score_scale is " + number(*d.scoreScale) +
                         "; expected a positive number such as 0.0625, what QKᵀ is multiplied by");
    if (d.logitSoftCap && !positive(*d.logitSoftCap))
        throw InputError("attn_logit_softcapping is " + number(*d.logitSoftCap) +
                         "; expected a positive number such as 50, the largest a score may grow");
    if (d.scoreBias) {
        if (static_cast<std::int64_t>(d.scoreBias->slopes.size()) != d.queryHeads)
            throw InputError("the score bias has " + str(std::ssize(d.scoreBias->slopes)) +
                             " slopes; expected one per query head, " + str(d.queryHeads));
        for (const float s : d.scoreBias->slopes)
            if (!std::isfinite(s))
                throw InputError("a slope of the score bias is not a finite number");
    }
    checkSlidingWindow(d.mask.causal, d.mask.slidingWindow);
    if (d.onlineSoftmaxTile &&
        (*d.onlineSoftmaxTile < 1 || *d.onlineSoftmaxTile > kMaxOnlineSoftmaxTile))
        throw InputError("the online softmax's tile is " + str(*d.onlineSoftmaxTile) +
                         " keys; expected 1 to " + str(kMaxOnlineSoftmaxTile));
}

std::int64_t AttentionDescription::onlineSoftmaxTiles(std::int64_t keys) const
{
    return onlineSoftmaxTile ? (keys + *onlineSoftmaxTile - 1) / *onlineSoftmaxTile : 0;
}

} // namespace attnviz::engine
