#include "cli/model_loading.h"

#include "cli/arguments.h"
#include "io/attention_case.h"
#include "io/builtin_models.h"
#include "io/file_error.h"
#include "io/input_file.h"
#include "lesson/case_walkthrough.h"
#include "lesson/memory_budget.h"
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
                                                           std::optional<std::uint64_t> maxMemory,
                                                           std::optional<std::int64_t> onlineTile)
{
    try {
        const lesson::BudgetedJsonReading json(maxMemory);
        io::AttentionCase attentionCase =
            io::loadAttentionCase(io::SafetensorsFile::read(casePath));
        attentionCase.description.onlineSoftmaxTile = onlineTile;
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

std::vector<std::string> textArguments(const Arguments& arguments)
{
    std::vector<std::string> texts = arguments.all("--text");
    const bool whole = arguments.has("--whole-file");
    if (whole && arguments.all("--text-file").empty())
        throw UsageError("--whole-file applies to --text-file");
    for (const std::string& path : arguments.all("--text-file")) {
        std::string content;
        try {
            // A text longer than any model reads is refused by the run; 64 MiB bounds the read.
            content = io::readFile(path, 64ull << 20);
        } catch (const io::FileError& e) {
            throw UsageError(std::string("--text-file: ") + e.what());
        }
        if (whole) {
            texts.push_back(std::move(content));
            continue;
        }
        std::size_t added = 0;
        for (std::size_t start = 0; start < content.size();) {
            std::size_t end = content.find('\n', start);
            if (end == std::string::npos)
                end = content.size();
            std::string line = content.substr(start, end - start);
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            if (!line.empty()) {
                texts.push_back(std::move(line));
                ++added;
            }
            start = end + 1;
        }
        if (added == 0)
            throw UsageError("--text-file " + io::printable(path) +
                             " holds no text; expected one text per line (or --whole-file)");
    }
    return texts;
}

std::vector<OptionSpec> textFileOptions()
{
    return {
        {"--text-file", "FILE",
         "texts to run, one per line (blank lines skipped), as a batch with one model\n"
         "load; may be given several times, after or instead of --text",
         true},
        {"--whole-file", "",
         "each --text-file is one text, every byte kept (\"$(cat FILE)\" drops the last\n"
         "newline, which changes the tokens)"},
    };
}

} // namespace attnviz::cli
