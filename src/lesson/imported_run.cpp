#include "lesson/imported_run.h"

#include "io/file_error.h"
#include "io/tokenizer/vocabulary_tokenizer.h"
#include "lesson/memory_budget.h"

#include <filesystem>
#include <map>
#include <stdexcept>

namespace attnviz::lesson {
namespace {

// A vocabulary of the file's distinct tokens, so the run's ids spell them back.
struct Spelling {
    std::vector<std::string> vocabulary;
    std::map<std::string, int> ids;

    std::vector<int> idsOf(const std::vector<std::string>& tokens)
    {
        std::vector<int> out;
        for (const std::string& t : tokens) {
            const auto [at, added] = ids.emplace(t, static_cast<int>(vocabulary.size()));
            if (added)
                vocabulary.push_back(t);
            out.push_back(at->second);
        }
        return out;
    }
};

} // namespace

std::shared_ptr<const ModelRun> importedRun(io::ImportedAttentions a, const std::string& fileName)
{
    const engine::Block block = a.crossAttention ? engine::Block::Cross
        : a.causal                               ? engine::Block::MaskedSelf
                                                 : engine::Block::Self;
    auto run = std::make_shared<ModelRun>();
    engine::ModelConfig& c = run->config;
    c.name = a.model.empty() ? fileName : a.model;
    c.description = "Attention weights imported from " + fileName + ".";
    c.architecture = block == engine::Block::Cross ? engine::Architecture::EncoderDecoder
        : block == engine::Block::MaskedSelf       ? engine::Architecture::DecoderOnly
                                                   : engine::Architecture::EncoderOnly;
    c.numHeads = a.heads;
    (c.hasEncoder() && block != engine::Block::Cross ? c.encoderLayers : c.decoderLayers) =
        a.layers;

    Spelling spelling;
    auto trace = std::make_shared<engine::ModelTrace>();
    const std::vector<int> queryIds = spelling.idsOf(a.queryTokens);
    const std::vector<int> keyIds = spelling.idsOf(a.keyTokens);
    engine::StackTrace& stack =
        block == engine::Block::Self ? trace->encoder.emplace() : trace->decoder.emplace();
    if (block == engine::Block::Self) {
        trace->sourceIds = queryIds;
    } else {
        trace->targetIds = queryIds;
        if (block == engine::Block::Cross) {
            trace->sourceIds = keyIds;
            trace->encoder.emplace();
        }
    }
    stack.layers.resize(static_cast<std::size_t>(a.layers));
    for (int L = 0; L < a.layers; ++L) {
        engine::AttentionBlockTrace& b =
            stack.layers[static_cast<std::size_t>(L)].attention.emplace_back();
        b.block = block;
        engine::AttentionTrace& t = b.attention;
        t.sizes.batch = 1;
        t.sizes.heads = a.heads;
        t.sizes.keyValueHeads = a.heads;
        // What is known of the module that made the weights: its heads, and a causal mask.
        t.description.queryHeads = t.description.keyValueHeads = a.heads;
        t.description.mask.causal = block == engine::Block::MaskedSelf;
        t.sizes.queries = static_cast<std::int64_t>(a.queryTokens.size());
        t.sizes.keys = static_cast<std::int64_t>(a.keyTokens.size());
        t.weights = std::move(a.weights[static_cast<std::size_t>(L)]);
        t.fullyMaskedRows = std::move(a.fullyMaskedRows[static_cast<std::size_t>(L)]);
    }
    c.vocabSize = static_cast<int>(spelling.vocabulary.size());
    run->trace = std::move(trace);
    auto loaded = std::make_shared<io::LoadedModel>();
    loaded->tokenizer = std::make_shared<const io::VocabularyTokenizer>(
        std::move(spelling.vocabulary), io::VocabularyTokenizer::Unit::Word);
    run->model = std::move(loaded);
    return run;
}

std::shared_ptr<const ModelRun> openImportedRun(const std::string& path,
                                                std::optional<std::uint64_t> maxMemory)
{
    const std::string fileName = std::filesystem::path(path).filename().string();
    try {
        const BudgetedJsonReading json(maxMemory);
        const io::SafetensorsFile file = io::SafetensorsFile::read(path);
        MemoryBudget::forThisMachine(maxMemory).check(io::attentionImportBytes(file),
                                                      "Opening " + io::printable(fileName, 60));
        return importedRun(io::readAttentionImport(file), fileName);
    } catch (const io::FileError& e) {
        throw std::invalid_argument(e.what());
    } catch (const io::FormatError& e) {
        throw std::invalid_argument(io::printable(path) + ": " + e.what());
    }
}

} // namespace attnviz::lesson
