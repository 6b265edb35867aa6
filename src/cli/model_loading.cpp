#include "cli/model_loading.h"

#include "io/builtin_models.h"
#include "io/file_error.h"

#include <stdexcept>

namespace attnviz::cli {

std::shared_ptr<const io::LoadedModel> loadModelArgument(const std::string& nameOrFolder)
{
    try {
        return std::make_shared<const io::LoadedModel>(
            io::loadModel(io::resolveModelFolder(nameOrFolder)));
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

} // namespace attnviz::cli
