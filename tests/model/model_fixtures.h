#pragma once

#include "engine/transformer_model.h"
#include "io/builtin_models.h"
#include "io/checkpoint/model_folder.h"

#include <filesystem>
#include <memory>
#include <string>

namespace attnviz::test {

/// The folder of a model the tests use: the bundled demos (reverse, genesis, induction) or the
/// small untrained models under tests/data/models, which cover the options the demos leave out.
inline std::string modelFolder(const std::string& name)
{
    const std::filesystem::path testModel =
        std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "models" / name;
    if (std::filesystem::exists(testModel / "config.json"))
        return testModel.string();
    return (std::filesystem::path(ATTNVIZ_SOURCE_MODELS_DIR) / name).string();
}

/// A test or bundled model, opened.
inline std::shared_ptr<const io::LoadedModel> openModel(const std::string& name)
{
    return std::make_shared<const io::LoadedModel>(io::loadModel(modelFolder(name)));
}

inline std::string referenceFile(const std::string& name)
{
    return (std::filesystem::path(ATTNVIZ_TEST_DATA_DIR) / "models" / name /
            "reference.safetensors")
        .string();
}

} // namespace attnviz::test
