#include "io/image/image_preparation.h"

#include "io/checkpoint/config_reader.h"
#include "io/file_error.h"
#include "io/input_file.h"
#include "io/safetensors.h"

#include <algorithm>

namespace attnviz::io {
namespace {

constexpr const char* kFile = "preprocessor_config.json";

// `size` or `crop_size`: an integer (both sides) or {"height": h, "width": w}.
void readSides(const JsonValue& json, const char* name, int& height, int& width)
{
    const JsonValue* v = json.find(name);
    if (!v || v->isNull())
        return;
    const auto side = [&](const JsonValue& s, const std::string& what) {
        if (!s.isInteger() || s.asInteger() < 1 || s.asInteger() > engine::ConfigLimits::kImageSide)
            throw FormatError(std::string(kFile) + ": \"" + what +
                              "\" must be a whole number of pixels from 1 to " +
                              std::to_string(engine::ConfigLimits::kImageSide) + ".");
        return static_cast<int>(s.asInteger());
    };
    if (v->isObject()) {
        const JsonValue* h = v->find("height");
        const JsonValue* w = v->find("width");
        if (!h || !w)
            throw FormatError(std::string(kFile) + ": \"" + name +
                              "\" gives no height and width; AttnViz reads a number or "
                              "{\"height\", \"width\"} (not \"shortest_edge\").");
        height = side(*h, std::string(name) + ".height");
        width = side(*w, std::string(name) + ".width");
        return;
    }
    height = width = side(*v, name);
}

std::array<float, 3> threeNumbers(const JsonValue& json, const char* name,
                                  std::array<float, 3> fallback)
{
    const JsonValue* v = json.find(name);
    if (!v || v->isNull())
        return fallback;
    if (v->isNumber())
        return {static_cast<float>(v->asNumber()), static_cast<float>(v->asNumber()),
                static_cast<float>(v->asNumber())};
    if (!v->isArray() || v->asArray().size() != 3)
        throw FormatError(std::string(kFile) + ": \"" + name +
                          "\" must be three numbers, one per colour channel.");
    std::array<float, 3> out{};
    for (std::size_t c = 0; c < 3; ++c) {
        const JsonValue& x = v->asArray()[c];
        if (!x.isNumber() || !std::isfinite(static_cast<float>(x.asNumber())))
            throw FormatError(std::string(kFile) + ": \"" + name + "\" must be three numbers.");
        out[c] = static_cast<float>(x.asNumber());
    }
    return out;
}

} // namespace

ImagePreparation readImagePreparation(const std::filesystem::path& folder,
                                      const engine::ImageInput& input)
{
    ImagePreparation p;
    p.height = p.cropHeight = input.height;
    p.width = p.cropWidth = input.width;
    const std::filesystem::path file = folder / kFile;
    std::error_code error;
    if (!std::filesystem::exists(file, error))
        return p;
    JsonValue json;
    try {
        json = parseJson(readFile(file.string(), 1 << 20), kFile);
    } catch (const JsonError& e) {
        throw FormatError(printable(file.string()) + " is not valid JSON: " + e.what());
    }
    if (!json.isObject())
        throw FormatError(std::string(kFile) + " holds no JSON object.");
    const ConfigReader r(json, kFile);
    p.resize = r.boolean("do_resize", true);
    readSides(json, "size", p.height, p.width);
    const int resample = r.integer("resample", 0, 5, 2);
    const std::optional<Resample> known = resampleFromNumber(resample);
    if (!known)
        r.fail("\"resample\" is " + std::to_string(resample) +
               "; AttnViz resizes as Pillow's bilinear (2) or bicubic (3) filter.");
    p.resample = *known;
    p.centreCrop = r.boolean("do_center_crop", false);
    readSides(json, "crop_size", p.cropHeight, p.cropWidth);
    p.rescale = r.boolean("do_rescale", true);
    p.rescaleFactor = r.real("rescale_factor", 1e-12, 1e12, 1.0 / 255.0);
    p.normalise = r.boolean("do_normalize", true);
    // Means and deviations are per colour channel; a model of another channel count is refused
    // when a picture is prepared for it, in a sentence about channels rather than about these keys.
    if (input.channels != 3)
        return p;
    p.mean = threeNumbers(json, "image_mean", p.mean);
    p.deviation = threeNumbers(json, "image_std", p.deviation);
    for (const float d : p.deviation)
        if (!(d != 0.0f))
            r.fail("\"image_std\" holds 0; a picture cannot be divided by it.");
    return p;
}

DecodedImage pictureAsModelSeesIt(const DecodedImage& image, const ImagePreparation& p,
                                  const engine::ImageInput& input, const PictureMemoryCheck& check)
{
    if (input.channels != 3)
        throw FormatError("This model reads " + std::to_string(input.channels) +
                          " channel(s); AttnViz prepares RGB pictures only.");
    // A picture already of the model's size is used as it is.
    if (image.width == input.width && image.height == input.height)
        return image;
    if (check) {
        // Resizing keeps the picture, the horizontal pass and the result; a crop copies.
        const std::uint64_t across = p.resize ? std::uint64_t{3} * p.width * image.height : 0;
        const std::uint64_t resized = p.resize ? std::uint64_t{3} * p.width * p.height
                                               : std::uint64_t{3} * image.width * image.height;
        const std::uint64_t cropped =
            p.centreCrop ? std::uint64_t{3} * p.cropWidth * p.cropHeight : 0;
        check(image.rgb.size() + across + resized + cropped,
              "Resizing the " + std::to_string(image.width) + " × " + std::to_string(image.height) +
                  " picture to " + std::to_string(p.width) + " × " + std::to_string(p.height));
    }
    DecodedImage picture =
        p.resize ? resizeLikePillow(image, p.width, p.height, p.resample) : image;
    if (p.centreCrop) {
        if (p.cropHeight > picture.height || p.cropWidth > picture.width)
            throw FormatError(
                "The crop of " + std::to_string(p.cropHeight) + " × " +
                std::to_string(p.cropWidth) + " is larger than the resized picture (" +
                std::to_string(picture.height) + " × " + std::to_string(picture.width) + ").");
        const int top = (picture.height - p.cropHeight) / 2;
        const int left = (picture.width - p.cropWidth) / 2;
        DecodedImage cropped;
        cropped.width = p.cropWidth;
        cropped.height = p.cropHeight;
        cropped.rgb.resize(static_cast<std::size_t>(cropped.width) * cropped.height * 3);
        for (int y = 0; y < cropped.height; ++y) {
            const auto from = picture.rgb.begin() +
                static_cast<std::ptrdiff_t>(
                                  ((top + y) * static_cast<std::size_t>(picture.width) + left) * 3);
            std::copy(from, from + cropped.width * 3,
                      cropped.rgb.begin() + static_cast<std::ptrdiff_t>(y) * cropped.width * 3);
        }
        picture = std::move(cropped);
    }
    if (picture.height != input.height || picture.width != input.width)
        throw FormatError("The picture is prepared to " + std::to_string(picture.height) + " × " +
                          std::to_string(picture.width) + " pixels; the model reads " +
                          std::to_string(input.height) + " × " + std::to_string(input.width) +
                          " (preprocessor_config.json's size or crop_size).");
    return picture;
}

engine::Tensor normalisedPixels(const DecodedImage& picture, const ImagePreparation& p)
{
    const int height = picture.height, width = picture.width;
    engine::Tensor out({{"channel", 3}, {"height", height}, {"width", width}});
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                // As transformers computes it: the rescale in double, the rest in float.
                double v = picture.at(y, x, c);
                if (p.rescale)
                    v *= p.rescaleFactor;
                float f = static_cast<float>(v);
                if (p.normalise)
                    f = (f - p.mean[static_cast<std::size_t>(c)]) /
                        p.deviation[static_cast<std::size_t>(c)];
                out.values()[(static_cast<std::size_t>(c) * height + y) * width + x] = f;
            }
    return out;
}

engine::Tensor prepareImage(const DecodedImage& image, const ImagePreparation& p,
                            const engine::ImageInput& input)
{
    return normalisedPixels(pictureAsModelSeesIt(image, p, input), p);
}

} // namespace attnviz::io
