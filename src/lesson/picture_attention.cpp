#include "lesson/picture_attention.h"

#include "engine/input_error.h"

#include <cmath>

namespace attnviz::lesson {
namespace {

const engine::ImageInput& imageOf(const engine::ModelConfig& config)
{
    if (!config.image)
        throw engine::InputError(config.name +
                                 " reads text: there is no picture to draw its "
                                 "attention over.");
    return *config.image;
}

const engine::Tensor& layerWeights(const engine::ModelTrace& trace, int layer)
{
    const engine::AttentionBlockTrace* b = trace.attentionBlock(layer, engine::Block::Self);
    if (!b || !b->attention.has(engine::AttentionStep::Weights))
        throw engine::InputError("The run kept no attention weights of layer " +
                                 std::to_string(layer) + ".");
    return b->attention.weights;
}

void checkRange(const char* what, int value, int first, int last)
{
    if (value < first || value > last)
        throw engine::InputError(std::string("The ") + what + " is " + std::to_string(value) +
                                 "; expected " + std::to_string(first) + " to " +
                                 std::to_string(last) + ".");
}

} // namespace

std::string pictureTokenName(const engine::ImageInput& image, int token)
{
    if (token == 0)
        return "[CLS]";
    if (token == 1 && image.distillationToken)
        return "[DIST]";
    const int patch = token - image.extraTokens();
    return std::to_string(patch / image.patchColumns()) + "," +
        std::to_string(patch % image.patchColumns());
}

int pictureTokenAt(const engine::ImageInput& image, double x, double y)
{
    if (!(x >= 0 && y >= 0 && x < image.width && y < image.height) || image.patchSize <= 0)
        return -1;
    const int row = static_cast<int>(y) / image.patchSize;
    const int column = static_cast<int>(x) / image.patchSize;
    if (row >= image.patchRows() || column >= image.patchColumns())
        return -1;
    return image.extraTokens() + row * image.patchColumns() + column;
}

PictureAttention pictureAttention(const engine::ModelTrace& trace,
                                  const engine::ModelConfig& config, const PictureQuery& query)
{
    const engine::ImageInput& image = imageOf(config);
    checkRange("token", query.token, 0, image.tokens() - 1);
    Eigen::VectorXd row;
    std::string what;
    if (query.source == PictureSource::Rollout) {
        const Eigen::MatrixXd rollout = attentionRollout(trace, engine::Block::Self, query.rollout);
        row = rollout.row(query.token).transpose();
        what = "rollout of " + std::to_string(trace.layerCount()) + " layers (" +
            std::string(headFusionName(query.rollout.fusion)) + " of heads)";
    } else {
        checkRange("layer", query.layer, 0, trace.layerCount() - 1);
        const engine::Tensor& weights = layerWeights(trace, query.layer);
        const auto heads = static_cast<int>(weights.dim(1));
        checkRange("head", query.head, -1, heads - 1);
        row = Eigen::VectorXd::Zero(weights.dim(3));
        for (int h = 0; h < heads; ++h)
            if (query.head < 0 || query.head == h)
                row += weights.matrix({0, h}).row(query.token).transpose().cast<double>();
        if (query.head < 0)
            row /= heads;
        what = "layer " + std::to_string(query.layer) + " · " +
            (query.head < 0 ? "mean of " + std::to_string(heads) + " heads"
                            : "head " + std::to_string(query.head));
    }
    if (row.size() != image.tokens())
        throw engine::InputError("The run has " + std::to_string(row.size()) +
                                 " tokens; the picture makes " + std::to_string(image.tokens()) +
                                 ".");
    PictureAttention out;
    out.patchRows = image.patchRows();
    out.patchColumns = image.patchColumns();
    out.patchSize = image.patchSize;
    out.onFirstTokens = row.head(image.extraTokens()).sum();
    out.patches.assign(row.data() + image.extraTokens(), row.data() + row.size());
    out.title = what + " · from " + pictureTokenName(image, query.token);
    return out;
}

std::vector<double> meanAttentionDistanceInPixels(const engine::ModelTrace& trace,
                                                  const engine::ModelConfig& config)
{
    const engine::ImageInput& image = imageOf(config);
    const int extra = image.extraTokens();
    const int patches = image.patches();
    std::vector<double> out;
    for (int L = 0; L < trace.layerCount(); ++L) {
        const engine::Tensor& weights = layerWeights(trace, L);
        for (std::int64_t h = 0; h < weights.dim(1); ++h) {
            const auto a = weights.matrix({0, h});
            double total = 0;
            for (int q = 0; q < patches; ++q) {
                double weighted = 0, mass = 0;
                for (int k = 0; k < patches; ++k) {
                    const double w = a(extra + q, extra + k);
                    const double dy = q / image.patchColumns() - k / image.patchColumns();
                    const double dx = q % image.patchColumns() - k % image.patchColumns();
                    weighted += w * std::hypot(dx, dy) * image.patchSize;
                    mass += w;
                }
                total += mass > 0 ? weighted / mass : 0;
            }
            out.push_back(patches ? total / patches : 0);
        }
    }
    return out;
}

} // namespace attnviz::lesson
