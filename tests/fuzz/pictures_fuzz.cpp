// io::decodeImage on any bytes, held to 256 MiB as --max-memory would hold it, then the picture
// prepared for a small Vision Transformer. What is accepted must be as large as its header says,
// and the prepared picture of the model's size, beyond the absence of crashes and hangs (a
// progressive JPEG of many scans, a PNG whose data goes on).
#include "fuzz_support.h"
#include "io/image/decoded_image.h"
#include "io/image/image_preparation.h"

namespace attnviz::fuzz {

void fuzzPictures(std::string_view input)
{
    const io::PictureMemoryCheck budget = [](std::uint64_t bytes, const std::string& what) {
        if (bytes > (std::uint64_t{256} << 20))
            throw engine::InputError(what + " needs more than the fuzzer's 256 MiB.");
    };
    io::DecodedImage image;
    if (!acceptingDocumentedRejections([&] { image = io::decodeImage(input, "fuzz", budget); }))
        return;
    require(image.width > 0 && image.height > 0 &&
                image.rgb.size() == static_cast<std::size_t>(image.width) * image.height * 3,
            "a decoded picture's pixels do not match its size");
    engine::ImageInput input24;
    input24.height = input24.width = 24;
    input24.patchSize = 8;
    io::ImagePreparation preparation;
    preparation.height = preparation.width = 32;
    preparation.centreCrop = true;
    preparation.cropHeight = preparation.cropWidth = 24;
    io::DecodedImage prepared;
    if (!acceptingDocumentedRejections(
            [&] { prepared = io::pictureAsModelSeesIt(image, preparation, input24, budget); }))
        return;
    require(prepared.width == 24 && prepared.height == 24 && prepared.rgb.size() == 24 * 24 * 3,
            "a prepared picture is not of the model's size");
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzPictures)
