#include "cli/model_arguments.h"

#include "engine/input_error.h"
#include "io/builtin_models.h"
#include "io/model_loader.h"

namespace attnviz::cli {

ModelOnText runModelOnArguments(const std::string& modelName, const std::string& text,
                                const std::optional<std::string>& target, int generate)
{
    ModelOnText result;
    try {
        result.model = io::loadModel(io::resolveModelFolder(modelName));
    } catch (const io::ModelError& e) {
        throw engine::InputError(modelName + ": " + e.what());
    }
    const engine::ModelConfig& c = result.model->config();
    if (generate && c.architecture != engine::Architecture::DecoderOnly)
        throw engine::InputError("--generate continues a decoder-only model's text; this model is " +
                                 std::string(engine::architectureName(c.architecture)) + ".");
    result.run = engine::runModelOnText(*result.model, text, target, generate);
    return result;
}

} // namespace attnviz::cli
