#include "io/builtin_models.h"

#include <algorithm>
#include <system_error>

namespace attnviz::io {

std::filesystem::path builtInModelsFolder()
{
    std::error_code error;
    const auto program = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        const auto installed = program.parent_path().parent_path() / "share" / "attnviz" / "models";
        if (std::filesystem::is_directory(installed, error))
            return installed;
    }
    return ATTNVIZ_SOURCE_MODELS_DIR;
}

std::vector<std::string> builtInModelNames()
{
    std::vector<std::string> names;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(builtInModelsFolder(), error))
        if (entry.is_directory() && std::filesystem::exists(entry.path() / "config.json"))
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string resolveModelFolder(const std::string& nameOrPath)
{
    std::error_code error;
    if (std::filesystem::is_directory(nameOrPath, error))
        return nameOrPath;
    const auto bundled = builtInModelsFolder() / nameOrPath;
    if (nameOrPath.find('/') == std::string::npos && std::filesystem::is_directory(bundled, error))
        return bundled.string();
    return nameOrPath;
}

} // namespace attnviz::io
