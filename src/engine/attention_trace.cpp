#include "engine/attention_trace.h"

#include <stdexcept>

namespace attnviz::engine {

static_assert(kAttentionStepTable.size() == static_cast<std::size_t>(AttentionStep::Output) + 1,
              "every attention step has a row in kAttentionStepTable");

const AttentionStepInfo& stepInfo(AttentionStep step)
{
    const auto& info = kAttentionStepTable[static_cast<std::size_t>(step)];
    if (info.step != step)
        throw std::logic_error("kAttentionStepTable is not in AttentionStep order");
    return info;
}

bool stagePresent(AttentionStage stage, const AttentionDescription& description)
{
    switch (stage) {
    case AttentionStage::Rotate:
        return description.rotary.has_value();
    case AttentionStage::Bias:
        return description.scoreBias.has_value();
    case AttentionStage::OnlineSoftmax:
        return description.onlineSoftmaxTile.has_value();
    default:
        return true;
    }
}

bool stepPresent(AttentionStep step, const AttentionDescription& description)
{
    return stagePresent(stepInfo(step).stage, description);
}

bool AttentionTrace::computes(AttentionStep s) const
{
    return stepPresent(s, description);
}

std::vector<AttentionStep> AttentionTrace::computedSteps() const
{
    std::vector<AttentionStep> out;
    for (const AttentionStep s : kAttentionSteps)
        if (computes(s))
            out.push_back(s);
    return out;
}

std::string_view stepName(AttentionStep step)
{
    return stepInfo(step).name;
}

std::optional<AttentionStep> stepFromName(std::string_view name)
{
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (info.name == name)
            return info.step;
    return std::nullopt;
}

Tensor& AttentionTrace::step(AttentionStep step)
{
    return this->*stepInfo(step).field;
}

const Tensor& AttentionTrace::step(AttentionStep step) const
{
    return this->*stepInfo(step).field;
}

AttentionKeep AttentionKeep::all()
{
    AttentionKeep keep;
    for (const AttentionStepInfo& info : kAttentionStepTable)
        keep.add(info.step);
    return keep;
}

AttentionKeep AttentionKeep::only(std::initializer_list<AttentionStep> steps)
{
    AttentionKeep keep;
    for (const AttentionStep s : steps)
        keep.add(s);
    return keep;
}

bool AttentionKeep::keepsAll() const
{
    return m_bits == all().m_bits;
}

AttentionKeep& AttentionKeep::add(AttentionStep step)
{
    m_bits |= 1u << static_cast<unsigned>(step);
    return *this;
}

} // namespace attnviz::engine
