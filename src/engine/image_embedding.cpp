#include "engine/image_embedding.h"

#include "engine/input_error.h"
#include "engine/non_finite.h"

#include <string>

namespace attnviz::engine {
namespace {

std::string str(Eigen::Index v)
{
    return std::to_string(v);
}

void expectMatrix(const RowMatrix& m, Eigen::Index rows, Eigen::Index cols, const std::string& what)
{
    if (m.rows() != rows || m.cols() != cols)
        throw InputError(what + " has shape [" + str(m.rows()) + ", " + str(m.cols()) +
                         "]; the configuration expects [" + str(rows) + ", " + str(cols) + "].");
}

void expectVector(const Eigen::RowVectorXf& v, Eigen::Index size, const std::string& what)
{
    if (v.size() != size)
        throw InputError(what + " has " + str(v.size()) + " values; the configuration expects " +
                         str(size) + ".");
}

} // namespace

void checkPixels(const Tensor& pixels, const ModelConfig& c)
{
    const ImageInput& image = *c.image;
    const std::vector<std::int64_t> expected = {image.channels, image.height, image.width};
    if (pixels.shape() != expected)
        throw InputError("The picture is " + shapeText(pixels.shape()) +
                         " (channels, height, width); this model reads " + shapeText(expected) +
                         ".");
    requireFinite(pixels, "pixels");
}

void checkImageWeights(const ImageWeights& w, const ModelConfig& c)
{
    const ImageInput& image = *c.image;
    const Eigen::Index D = c.modelWidth;
    expectMatrix(w.patchProjection, D,
                 static_cast<Eigen::Index>(image.channels) * image.patchSize * image.patchSize,
                 "the patch projection");
    expectVector(w.patchBias, D, "the patch projection's bias");
    expectVector(w.clsToken, D, "the CLS token");
    if (image.distillationToken != w.distillationToken.has_value())
        throw InputError("the distillation token: the configuration and the weights disagree.");
    if (w.distillationToken)
        expectVector(*w.distillationToken, D, "the distillation token");
    expectMatrix(w.classifier, image.classes, image.classes ? D : 0, "the classifier");
    expectVector(w.classifierBias, image.classes, "the classifier's bias");
    const Eigen::Index second = image.teacherHead ? image.classes : 0;
    expectMatrix(w.distillationClassifier, second, second ? D : 0, "the distillation classifier");
    expectVector(w.distillationClassifierBias, second, "the distillation classifier's bias");
}

Tensor embedImage(const Tensor& pixels, const ImageWeights& w, const ModelConfig& c)
{
    const ImageInput& image = *c.image;
    const Eigen::Index P = image.patchSize, C = image.channels;
    const Eigen::Index columns = image.patchColumns();
    // Every patch flattened as (channel, y, x), one row a patch.
    RowMatrix patches(image.patches(), C * P * P);
    for (Eigen::Index r = 0; r < image.patchRows(); ++r)
        for (Eigen::Index q = 0; q < columns; ++q) {
            float* row = patches.row(r * columns + q).data();
            for (Eigen::Index ch = 0; ch < C; ++ch)
                for (Eigen::Index y = 0; y < P; ++y)
                    for (Eigen::Index x = 0; x < P; ++x)
                        *row++ = pixels.at({ch, r * P + y, q * P + x});
        }
    Tensor out({{"batch", 1}, {"token", image.tokens()}, {"feature", c.modelWidth}});
    MatrixView tokens = out.matrix({0});
    tokens.row(0) = w.clsToken;
    if (w.distillationToken)
        tokens.row(1) = *w.distillationToken;
    tokens.bottomRows(image.patches()).noalias() = patches * w.patchProjection.transpose();
    tokens.bottomRows(image.patches()).rowwise() += w.patchBias;
    return out;
}

Tensor classifyImage(const Tensor& output, const ImageWeights& w, const ModelConfig& c)
{
    const ImageInput& image = *c.image;
    Tensor logits({{"batch", 1}, {"class", image.classes}});
    const ConstMatrixView tokens = output.matrix({0});
    MatrixView out = logits.matrix({});
    out.row(0).noalias() = tokens.row(0) * w.classifier.transpose();
    out.row(0) += w.classifierBias;
    if (image.teacherHead) {
        Eigen::RowVectorXf second = tokens.row(1) * w.distillationClassifier.transpose();
        second += w.distillationClassifierBias;
        out.row(0) = (out.row(0) + second) / 2.0f;
    }
    requireFinite(logits, "logits");
    return logits;
}

} // namespace attnviz::engine
