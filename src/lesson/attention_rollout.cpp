#include "lesson/attention_rollout.h"

#include "engine/input_error.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

namespace attnviz::lesson {
namespace {

// The heads of one layer's weights [1, H, N, N] fused into one N × N matrix.
Eigen::MatrixXd fused(const engine::Tensor& weights, HeadFusion fusion)
{
    const Eigen::Index n = weights.dim(2);
    Eigen::MatrixXd out(n, n);
    for (std::int64_t h = 0; h < weights.dim(1); ++h) {
        const Eigen::MatrixXd head = weights.matrix({0, h}).cast<double>();
        if (h == 0)
            out = head;
        else if (fusion == HeadFusion::Mean)
            out += head;
        else if (fusion == HeadFusion::Max)
            out = out.cwiseMax(head);
        else
            out = out.cwiseMin(head);
    }
    if (fusion == HeadFusion::Mean)
        out /= static_cast<double>(weights.dim(1));
    return out;
}

// The ⌊r · N⌋ smallest off-diagonal entries of each row set to 0: the smaller value first, the
// smaller column among equal values, so the choice is the same in any implementation.
void discard(Eigen::MatrixXd& a, double ratio)
{
    const Eigen::Index n = a.rows();
    const auto count = static_cast<Eigen::Index>(std::floor(ratio * static_cast<double>(n)));
    if (count == 0)
        return;
    std::vector<Eigen::Index> columns;
    for (Eigen::Index i = 0; i < n; ++i) {
        columns.clear();
        for (Eigen::Index j = 0; j < n; ++j)
            if (j != i)
                columns.push_back(j);
        std::stable_sort(columns.begin(), columns.end(),
                         [&](Eigen::Index x, Eigen::Index y) { return a(i, x) < a(i, y); });
        const auto dropped = std::min<std::size_t>(static_cast<std::size_t>(count), columns.size());
        for (std::size_t k = 0; k < dropped; ++k)
            a(i, columns[k]) = 0;
    }
}

} // namespace

std::string_view headFusionName(HeadFusion fusion)
{
    for (const HeadFusionInfo& info : kHeadFusions)
        if (info.fusion == fusion)
            return info.name;
    return {};
}

std::optional<HeadFusion> headFusionFromName(std::string_view name)
{
    for (const HeadFusionInfo& info : kHeadFusions)
        if (info.name == name)
            return info.fusion;
    return std::nullopt;
}

engine::Block firstAttentionStack(const engine::ModelConfig& config)
{
    return config.hasEncoder() ? engine::Block::Self : engine::Block::MaskedSelf;
}

Eigen::MatrixXd attentionRollout(const std::vector<const engine::Tensor*>& layerWeights,
                                 const RolloutOptions& options)
{
    if (!(options.discardRatio >= 0 && options.discardRatio <= 1))
        throw engine::InputError("The discard ratio is " + std::to_string(options.discardRatio) +
                                 "; expected a number from 0 to 1.");
    if (layerWeights.empty())
        throw engine::InputError("A rollout needs at least one layer of attention weights.");
    Eigen::MatrixXd rollout;
    for (const engine::Tensor* weights : layerWeights) {
        if (weights->rank() != 4 || weights->dim(2) != weights->dim(3) ||
            (rollout.size() && rollout.rows() != weights->dim(2)))
            throw engine::InputError("Attention weights of shape " + weights->shapeString() +
                                     " cannot be rolled out; expected [1, H, N, N] with the same "
                                     "N in every layer.");
        Eigen::MatrixXd a = fused(*weights, options.fusion);
        discard(a, options.discardRatio);
        a = 0.5 * (a + Eigen::MatrixXd::Identity(a.rows(), a.cols()));
        a.array().colwise() /= a.rowwise().sum().array();
        rollout = rollout.size() ? Eigen::MatrixXd(a * rollout) : a;
    }
    return rollout;
}

Eigen::MatrixXd attentionRollout(const engine::ModelTrace& trace, engine::Block block,
                                 const RolloutOptions& options)
{
    if (block != engine::Block::Self && block != engine::Block::MaskedSelf)
        throw engine::InputError(std::string("A rollout follows one sequence through its "
                                             "self-attention; the ") +
                                 engine::blockName(block) + " block mixes two.");
    const engine::StackTrace* stack = trace.stackOf(block);
    const int layers = stack ? static_cast<int>(stack->layers.size()) : 0;
    if (layers == 0)
        throw engine::InputError(std::string("The run has no ") + engine::blockName(block) +
                                 " attention to roll out.");
    std::vector<const engine::Tensor*> weights;
    for (int L = 0; L < layers; ++L) {
        const engine::AttentionBlockTrace* b = trace.attentionBlock(L, block);
        if (!b || !b->attention.has(engine::AttentionStep::Weights))
            throw engine::InputError("The run kept no attention weights of layer " +
                                     std::to_string(L) + "; a rollout needs every layer's.");
        weights.push_back(&b->attention.weights);
    }
    return attentionRollout(weights, options);
}

Heatmap rolloutHeatmap(Eigen::MatrixXd rollout, std::vector<std::string> labels,
                       const RolloutOptions& options)
{
    const auto n = static_cast<int>(rollout.rows());
    auto values = std::make_shared<std::vector<float>>(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            (*values)[static_cast<std::size_t>(i) * n + j] = static_cast<float>(rollout(i, j));
    Heatmap h;
    h.matrix.values = values->data();
    h.matrix.rows = n;
    h.matrix.cols = n;
    h.matrix.rowAxis = "token";
    h.matrix.columnAxis = "input token";
    h.matrix.rowLabels = labels;
    h.matrix.columnLabels = std::move(labels);
    h.owner = std::move(values);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%g", options.discardRatio);
    h.caption = "attention rollout (" + std::string(headFusionName(options.fusion)) +
        " of the heads, discard " + ratio + ")";
    h.title = h.caption;
    h.scale = ColourScale::Sequential;
    return h;
}

} // namespace attnviz::lesson
