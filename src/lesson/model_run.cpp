#include "lesson/model_run.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "io/image/image_preparation.h"
#include "lesson/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace attnviz::lesson {
const engine::ModelTrace& ModelRun::traceAt(int decodingStep) const
{
    return *sharedTraceAt(decodingStep);
}

std::shared_ptr<const engine::ModelTrace> ModelRun::sharedTraceAt(int decodingStep) const
{
    if (decodingStep >= 0 && decodingStep < static_cast<int>(decoding.size()))
        return decoding[static_cast<std::size_t>(decodingStep)].trace;
    return trace;
}

std::uint64_t fullTraceBytes(const engine::ModelConfig& c, std::int64_t tokens)
{
    const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(tokens, 1));
    const auto D = static_cast<std::uint64_t>(c.modelWidth),
               H = static_cast<std::uint64_t>(c.numHeads);
    const auto F = static_cast<std::uint64_t>(c.feedForwardWidth);
    // Per attention block: 4 score-shaped steps, 9 token × feature-sized ones, norm and residual.
    const std::uint64_t attention = 4 * H * n * n + 11 * n * D;
    const std::uint64_t feedForward = 2 * n * F + 3 * n * D;
    const std::uint64_t blocks =
        static_cast<std::uint64_t>(c.encoderLayers) * (attention + feedForward) +
        static_cast<std::uint64_t>(c.decoderLayers) *
            ((c.architecture == engine::Architecture::EncoderDecoder ? 2 : 1) * attention +
             feedForward);
    const std::uint64_t logits = c.hasDecoder() ? n * static_cast<std::uint64_t>(c.vocabSize) : 0;
    return 4 * (blocks + logits + 8 * n * D);
}

io::LoadedModel openModel(const std::string& folder, std::optional<std::uint64_t> maxMemory)
{
    const BudgetedJsonReading json(maxMemory);
    return io::loadModel(folder, [&](std::uint64_t bytes, const std::string& name) {
        MemoryBudget::forThisMachine(maxMemory).check(bytes, "Opening " + io::printable(name, 60));
    });
}

namespace {

// runModelOnText for a Vision Transformer: the picture, prepared, through the encoder.
ModelRun runModelOnImage(std::shared_ptr<const io::LoadedModel> loaded, const RunRequest& request,
                         std::optional<engine::CapturePolicy> policy,
                         const std::function<void(int done, int total)>& progress)
{
    const engine::TransformerModel& model = *loaded->model;
    const engine::ModelConfig& c = model.config();
    if (request.image.empty())
        throw engine::InputError(io::printable(c.name, 60) +
                                 " is a Vision Transformer: it reads a picture (a PNG or JPEG "
                                 "file), not text.");
    if (request.target || request.generate)
        throw engine::InputError("A Vision Transformer classifies a picture; it writes no text.");
    const io::ImagePreparation preparation = io::readImagePreparation(loaded->folder, *c.image);
    const MemoryBudget budget = MemoryBudget::forThisMachine(request.maxMemory);
    const io::PictureMemoryCheck check = [&](std::uint64_t bytes, const std::string& what) {
        budget.check(bytes, what);
    };
    auto picture = std::make_shared<const io::DecodedImage>(io::pictureAsModelSeesIt(
        io::readImage(request.image, check), preparation, *c.image, check));
    engine::ModelInput input;
    input.pixels = io::normalisedPixels(*picture, preparation);
    const std::int64_t tokens = c.image->tokens();
    engine::CapturePolicy p = policy                  ? *policy
        : fullTraceBytes(c, tokens) > kFullTraceLimit ? engine::CapturePolicy::attentionWeights()
                                                      : engine::CapturePolicy::everything();
    if (progress)
        p.progress = progress;
    const std::uint64_t passes = request.compareWithIntact && !request.ablation.empty() ? 2 : 1;
    MemoryBudget::forThisMachine(request.maxMemory)
        .check(modelWeightBytes(model) + passes * modelRunBytes(c, tokens, p),
               "Running " + io::printable(c.name, 60) + " on a picture of " +
                   std::to_string(tokens) + " tokens");
    ModelRun run;
    run.model = loaded;
    run.config = c;
    run.request = request;
    run.trace =
        std::make_shared<const engine::ModelTrace>(model.forward(input, p, request.ablation));
    run.picture = std::move(picture);
    if (passes == 2) {
        ModelRun intact = run;
        intact.request.ablation = {};
        intact.request.compareWithIntact = false;
        intact.trace = std::make_shared<const engine::ModelTrace>(model.forward(input, p));
        run.intact = std::make_shared<const ModelRun>(std::move(intact));
    }
    return run;
}

} // namespace

std::string examplePicture(const io::LoadedModel& model)
{
    if (!model.model || !model.model->config().image)
        return {};
    std::error_code error;
    std::vector<std::filesystem::path> pictures;
    for (std::filesystem::directory_iterator
             it(std::filesystem::path(model.folder) / "examples", error),
         end;
         !error && it != end; it.increment(error)) {
        std::string ext = it->path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char ch) { return std::tolower(ch); });
        if ((ext == ".png" || ext == ".jpg" || ext == ".jpeg") && it->is_regular_file(error))
            pictures.push_back(it->path());
    }
    if (pictures.empty())
        return {};
    return std::min_element(pictures.begin(), pictures.end())->string();
}

ModelRun runModelOnText(std::shared_ptr<const io::LoadedModel> loaded, const RunRequest& request,
                        std::optional<engine::CapturePolicy> policy,
                        const std::function<void(int done, int total)>& progress)
{
    if (loaded->model->config().image)
        return runModelOnImage(std::move(loaded), request, std::move(policy), progress);
    if (!request.image.empty())
        throw engine::InputError(io::printable(loaded->model->config().name, 60) +
                                 " reads text; a picture needs a Vision Transformer.");
    const engine::TransformerModel& model = *loaded->model;
    const io::Tokenizer& tokenizer = *loaded->tokenizer;
    const engine::ModelConfig& c = model.config();
    ModelRun run;
    run.model = loaded;
    run.config = c;
    run.request = request;
    if (const std::size_t fewest = tokenizer.fewestTokens(request.text);
        fewest > static_cast<std::size_t>(c.maxLength))
        throw engine::InputError("The text of " + std::to_string(request.text.size()) +
                                 " bytes has at least " + std::to_string(fewest) +
                                 " tokens; this model takes at most " +
                                 std::to_string(c.maxLength) + " (max_length).");
    const std::vector<int> ids = tokenizer.encode(request.text);
    if (request.generate && c.architecture != engine::Architecture::DecoderOnly)
        throw engine::InputError(
            std::string("Continuing the text by --generate tokens needs a decoder-only model; this "
                        "model is ") +
            engine::architectureName(c.architecture) + ".");
    if (request.generate < 0 || request.generate > c.maxLength)
        throw engine::InputError("The number of tokens to generate is " +
                                 std::to_string(request.generate) + "; this model takes 0 to " +
                                 std::to_string(c.maxLength) + ".");
    // Decoding stops at the context, and the trace would keep only its first tokens: a text
    // that leaves no room for the tokens asked for is refused rather than cut.
    if (const auto n = static_cast<std::int64_t>(ids.size());
        c.architecture == engine::Architecture::DecoderOnly && request.generate > 0 &&
        n + request.generate > c.maxLength)
        throw engine::InputError("The text has " + std::to_string(n) + " tokens and " +
                                 io::printable(c.name, 60) + " reads at most " +
                                 std::to_string(c.maxLength) + " (its context), so " +
                                 (n >= c.maxLength ? std::string("there is no room to continue it")
                                                   : "it can be continued by at most " +
                                          std::to_string(c.maxLength - n) + " tokens, not " +
                                          std::to_string(request.generate)) +
                                 ".");
    const auto bySize = [&](std::int64_t tokens) {
        engine::CapturePolicy p = fullTraceBytes(c, tokens) > kFullTraceLimit
            ? engine::CapturePolicy::attentionWeights()
            : engine::CapturePolicy::everything();
        p.progress = progress;
        return p;
    };
    const auto chosen = [&](std::int64_t tokens) {
        if (!policy)
            return bySize(tokens);
        engine::CapturePolicy p = *policy;
        if (progress)
            p.progress = progress;
        return p;
    };
    {
        // The longest sequence a pass reads, and how many decoding passes keep a trace too.
        auto longest = static_cast<std::int64_t>(ids.size());
        std::int64_t decodingPasses = 0;
        if (c.architecture == engine::Architecture::EncoderDecoder) {
            const std::int64_t decoded = request.target
                ? static_cast<std::int64_t>(tokenizer.encode(*request.target).size()) + 1
                : c.maxLength;
            longest = std::max(longest, decoded);
            decodingPasses = request.target ? 0 : c.maxLength;
        } else if (c.architecture == engine::Architecture::DecoderOnly) {
            longest += request.generate;
            decodingPasses = request.generate;
        }
        longest = std::min<std::int64_t>(longest, c.maxLength);
        const std::uint64_t pass = modelRunBytes(c, longest, chosen(longest));
        const std::uint64_t decoding =
            static_cast<std::uint64_t>(decodingPasses) * modelRunBytes(c, longest, bySize(longest));
        const std::uint64_t passes = request.compareWithIntact && !request.ablation.empty() ? 2 : 1;
        MemoryBudget::forThisMachine(request.maxMemory)
            .check(modelWeightBytes(model) + passes * pass + decoding,
                   "Running " + io::printable(c.name, 60) + " (its weights and trace) on " +
                       std::to_string(longest) + " tokens");
    }
    engine::ModelInput finalInput;
    std::int64_t finalLength = 0;
    switch (c.architecture) {
    case engine::Architecture::EncoderOnly:
        if (request.target)
            throw engine::InputError(
                "An encoder-only model reads only the text; it has no decoder for a target.");
        finalInput = {ids, c.tokenTypes > 1 ? tokenizer.tokenTypes(ids) : std::vector<int>{}, {}};
        finalLength = static_cast<std::int64_t>(ids.size());
        break;
    case engine::Architecture::EncoderDecoder: {
        std::vector<int> decoderInput{*c.bosTokenId};
        if (request.target) {
            const std::vector<int> t = tokenizer.encode(*request.target);
            decoderInput.insert(decoderInput.end(), t.begin(), t.end());
        } else {
            run.decoding =
                engine::decodeGreedily(model, ids, decoderInput, c.maxLength, tokenizer.size(),
                                       bySize(c.maxLength), request.ablation);
            const std::vector<int> out = engine::generatedIds(model, run.decoding);
            run.generated = tokenizer.decode(out);
            decoderInput.insert(decoderInput.end(), out.begin(), out.end());
            if (decoderInput.size() > static_cast<std::size_t>(c.maxLength))
                decoderInput.resize(static_cast<std::size_t>(c.maxLength));
        }
        finalLength = static_cast<std::int64_t>(std::max(ids.size(), decoderInput.size()));
        finalInput = {ids, {}, decoderInput};
        break;
    }
    case engine::Architecture::DecoderOnly: {
        if (request.target)
            throw engine::InputError(
                "A decoder-only model reads only the text; give the whole sequence as the text.");
        std::vector<int> input = ids;
        if (request.generate > 0) {
            run.decoding = engine::decodeGreedily(
                model, {}, ids, request.generate, tokenizer.size(),
                bySize(static_cast<std::int64_t>(ids.size()) + request.generate), request.ablation);
            const std::vector<int> out = engine::generatedIds(model, run.decoding);
            run.generated = tokenizer.decode(out);
            input.insert(input.end(), out.begin(), out.end());
        }
        finalLength = static_cast<std::int64_t>(input.size());
        finalInput = {{}, {}, input};
        break;
    }
    }
    run.trace = std::make_shared<const engine::ModelTrace>(
        model.forward(finalInput, chosen(finalLength), request.ablation));
    if (request.compareWithIntact && !request.ablation.empty()) {
        // The same tokens with every head on: the decoding that chose them is not redone, so
        // both passes read the same sequence and differ only by the heads switched off.
        ModelRun intact = run;
        intact.request.ablation = {};
        intact.request.compareWithIntact = false;
        intact.decoding.clear();
        intact.trace = std::make_shared<const engine::ModelTrace>(
            model.forward(finalInput, chosen(finalLength)));
        run.intact = std::make_shared<const ModelRun>(std::move(intact));
    }
    return run;
}

} // namespace attnviz::lesson
