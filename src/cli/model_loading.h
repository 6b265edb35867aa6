#pragma once

#include "cli/arguments.h"
#include "io/checkpoint/model_folder.h"
#include "lesson/model_run.h"
#include "lesson/walkthrough.h"

#include <memory>
#include <string>

namespace attnviz::cli {

/// Loads --model: a folder, or a bundled demo's name, held to --max-memory (lesson::openModel). A
/// model that cannot be loaded is an invalid_argument whose sentence starts with the name given.
std::shared_ptr<const io::LoadedModel> loadModelArgument(const std::string& nameOrFolder,
                                                         std::optional<std::uint64_t> maxMemory);

/// The texts of --text (repeatable) and --text-file (repeatable: each line of the file a text, a
/// line ending "\n" or "\r\n" not part of it, blank lines skipped; with --whole-file, each file
/// one text with every byte kept, its last newline too), in the order given. UsageError for a
/// file that cannot be read or holds no text.
std::vector<std::string> textArguments(const Arguments& arguments);
/// Their rows in an option table.
std::vector<OptionSpec> textFileOptions();

/// Runs the model on --text, --target and --generate, refusing --generate for a model that
/// cannot continue a text (in the CLI's words, before any work).
lesson::ModelRun runModelArguments(std::shared_ptr<const io::LoadedModel> model,
                                   const lesson::RunRequest& request,
                                   std::optional<engine::CapturePolicy> policy = std::nullopt);

/// Reads an `mha` case file (mha's CASE, export's --case) and runs its module, with the heads
/// `ablate` names (mha's --ablate syntax) switched off. Problems with the file are an
/// invalid_argument whose sentence starts with the path (a FileError names it already); a head
/// the module does not have is a UsageError. With `onlineTile` the softmax runs online over key
/// tiles of that many keys (FlashAttention's), and the trace adds online_max and online_sum.
std::shared_ptr<const lesson::Walkthrough> runCaseArgument(
    const std::string& casePath, const std::optional<std::string>& ablate,
    std::optional<std::uint64_t> maxMemory, std::optional<std::int64_t> onlineTile = {});

} // namespace attnviz::cli
