#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attnviz::io {

/// Where the bundled demo models live: `<program>/../share/attnviz/models` (the build and install
/// layout), else the source tree's resources/models.
std::filesystem::path builtInModelsFolder();

/// The bundled models' folder names, sorted ("genesis", "induction", "reverse").
std::vector<std::string> builtInModelNames();

/// `nameOrPath` as a folder: an existing folder as given, else a bundled model of that name.
/// Returns it unchanged when neither exists, so the loader names what was asked for.
std::string resolveModelFolder(const std::string& nameOrPath);

} // namespace attnviz::io
