#pragma once

#include "engine/attention_trace.h"
#include "engine/multi_head_attention.h"

#include <array>
#include <string>

namespace attnviz::test {

/// The passes every reference test of the engine runs on (engine/attention_passes.h): each one
/// is held to the same references, and each trace says which pass made it.
inline constexpr std::array kEveryPath = {
    engine::AttentionPath::Exact, engine::AttentionPath::Fused, engine::AttentionPath::ByStages};

/// `options` with the pass forced.
inline engine::AttentionOptions onPath(engine::AttentionPath path,
                                       engine::AttentionOptions options = {})
{
    options.path = path;
    return options;
}

inline std::string pathName(engine::AttentionPath path)
{
    return engine::attentionPathName(path);
}

} // namespace attnviz::test
