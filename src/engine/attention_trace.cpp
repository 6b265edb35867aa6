#include "engine/attention_trace.h"

namespace attnviz::engine {

std::string_view stepName(AttentionStep step)
{
    switch (step) {
    case AttentionStep::QProj: return "q_proj";
    case AttentionStep::KProj: return "k_proj";
    case AttentionStep::VProj: return "v_proj";
    case AttentionStep::QHeads: return "q_heads";
    case AttentionStep::KHeads: return "k_heads";
    case AttentionStep::VHeads: return "v_heads";
    case AttentionStep::Scores: return "scores";
    case AttentionStep::Scaled: return "scaled";
    case AttentionStep::Masked: return "masked";
    case AttentionStep::Weights: return "weights";
    case AttentionStep::Context: return "context";
    case AttentionStep::Concat: return "concat";
    case AttentionStep::Output: return "output";
    }
    return "unknown";
}

Tensor& AttentionTrace::step(AttentionStep step)
{
    return const_cast<Tensor&>(static_cast<const AttentionTrace&>(*this).step(step));
}

const Tensor& AttentionTrace::step(AttentionStep step) const
{
    switch (step) {
    case AttentionStep::QProj: return qProj;
    case AttentionStep::KProj: return kProj;
    case AttentionStep::VProj: return vProj;
    case AttentionStep::QHeads: return qHeads;
    case AttentionStep::KHeads: return kHeads;
    case AttentionStep::VHeads: return vHeads;
    case AttentionStep::Scores: return scores;
    case AttentionStep::Scaled: return scaled;
    case AttentionStep::Masked: return masked;
    case AttentionStep::Weights: return weights;
    case AttentionStep::Context: return context;
    case AttentionStep::Concat: return concat;
    case AttentionStep::Output: return output;
    }
    return output;
}

} // namespace attnviz::engine
