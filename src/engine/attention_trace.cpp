#include "engine/attention_trace.h"

#include "engine/attention_stages.h"

#include <stdexcept>

namespace attnviz::engine {

static_assert(kAttentionStepTable.size() == static_cast<std::size_t>(AttentionStep::Output) + 1,
              "every attention step has a row in kAttentionStepTable");
static_assert(AttentionTrace::kSteps.size() == kAttentionStepTable.size(),
              "every attention step has a tensor in the trace");

const AttentionStepInfo& stepInfo(AttentionStep step)
{
    const auto& info = kAttentionStepTable[static_cast<std::size_t>(step)];
    if (info.step != step)
        throw std::logic_error("kAttentionStepTable is not in AttentionStep order");
    return info;
}

bool stagePresent(AttentionStage stage, const AttentionDescription& description)
{
    return stageInfo(stage).present(description);
}

bool stepPresent(AttentionStep step, const AttentionDescription& description)
{
    const AttentionStepInfo& info = stepInfo(step);
    return stagePresent(info.stage, description) && (!info.onlyWhen || info.onlyWhen(description));
}

AttentionStep latestStep(StepStream stream, AttentionStage reader,
                         const AttentionDescription& description)
{
    std::optional<AttentionStep> latest;
    for (const AttentionStepInfo& info : kAttentionStepTable)
        if (info.stream == stream && info.stage < reader && stepPresent(info.step, description))
            latest = info.step;
    if (!latest)
        throw std::logic_error("no step of the stream comes before the stage");
    return *latest;
}

const char* attentionPathName(AttentionPath path)
{
    switch (path) {
    case AttentionPath::Exact:
        return "exact";
    case AttentionPath::Fused:
        return "fused";
    case AttentionPath::ByStages:
        return "by_stages";
    case AttentionPath::Automatic:
        break;
    }
    return "automatic";
}

template <typename Scalar> bool BasicAttentionTrace<Scalar>::computes(AttentionStep s) const
{
    return stepPresent(s, description);
}

template <typename Scalar>
std::vector<AttentionStep> BasicAttentionTrace<Scalar>::computedSteps() const
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

template struct BasicAttentionTrace<float>;
template struct BasicAttentionTrace<double>;

} // namespace attnviz::engine
