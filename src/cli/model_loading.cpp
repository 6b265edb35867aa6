#include "cli/model_loading.h"

#include "cli/arguments.h"
#include "io/attention_case.h"
#include "io/builtin_models.h"
#include "io/file_error.h"
#include "lesson/case_walkthrough.h"
#include "lesson/model_run.h"

#include <filesystem>
#include <stdexcept>

namespace attnviz::cli {

std::shared_ptr<const io::LoadedModel> loadModelArgument(const std::string& nameOrFolder,
                                                         std::optional<std::uint64_t> maxMemory)
{
    try {
        return std::make_shared<const io::LoadedModel>(
            lesson::openModel(io::resolveModelFolder(nameOrFolder), maxMemory));
    } catch (const io::ModelError& e) {
        throw std::invalid_argument(io::printable(nameOrFolder) + ": " + e.what());
    }
}

lesson::ModelRun runModelArguments(std::shared_ptr<const io::LoadedModel> model,
                                   const lesson::RunRequest& request,
                                   std::optional<engine::CapturePolicy> policy)
{
    const engine::ModelConfig& c = model->model->config();
    if (request.generate && c.architecture != engine::Architecture::DecoderOnly)
        throw std::invalid_argument(
            std::string("--generate continues a decoder-only model's text; this model is ") +
            engine::architectureName(c.architecture) + ".");
    return lesson::runModelOnText(std::move(model), request, std::move(policy));
}

std::shared_ptr<const lesson::Walkthrough> runCaseArgument(const std::string& casePath,
                                                           const std::optional<std::string>& ablate,
                                                           std::optional<std::uint64_t> maxMemory)
{
    try {
        io::AttentionCase attentionCase =
            io::loadAttentionCase(io::SafetensorsFile::read(casePath));
        engine::AttentionOptions options;
        if (ablate)
            options.ablatedHeads = headAblation(*ablate, attentionCase.description.queryHeads);
        return lesson::computeCase(std::move(attentionCase),
                                   std::filesystem::path(casePath).filename().string(), options,
                                   maxMemory);
    } catch (const UsageError&) {
        throw;
    } catch (const io::FileError&) {
        throw; // names the path already
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        // FormatError and InputError: the sentence names the tensor or field at fault.
        throw std::invalid_argument(io::printable(casePath) + ": " + e.what());
    }
}

} // namespace attnviz::cli
