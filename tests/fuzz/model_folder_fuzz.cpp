// io::loadModel on a folder written from the input. The input is a sequence of chunks
// (fuzz_support.h); a chunk's selector, modulo the number of kModelFolderFiles, picks the file it
// is appended to, so one input can hold an AttnViz folder (config.json, vocab.json,
// model.safetensors), a GPT-2 folder (vocab.json + merges.txt or tokenizer.json, a single file or
// shards with their index) or a BERT folder (vocab.txt or tokenizer.json, tokenizer_config.json).
// A model that loads encodes a short text and, when it is small, runs one forward pass on it.
#include "fuzz_support.h"

#include "engine/thread_count.h"
#include "io/checkpoint/model_folder.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace attnviz::fuzz {
namespace {

namespace fs = std::filesystem;

/// One folder per process, emptied before each input and removed at exit.
class Folder {
public:
    Folder()
    {
        std::string pattern = (fs::temp_directory_path() / "attnviz-fuzz-model-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a folder under " +
                                     fs::temp_directory_path().string());
        m_path = pattern;
    }
    ~Folder()
    {
        std::error_code ignored;
        fs::remove_all(m_path, ignored);
    }

    const fs::path& path() const { return m_path; }

    void clear() const
    {
        for (const fs::directory_entry& entry : fs::directory_iterator(m_path))
            fs::remove_all(entry.path());
    }

private:
    fs::path m_path;
};

} // namespace

void fuzzModelFolder(std::string_view input)
{
    static const bool singleThread = [] {
        engine::setThreadCount(1);
        return true;
    }();
    (void)singleThread;
    static const Folder folder;
    folder.clear();
    for (const Chunk& chunk : decodeChunks(input)) {
        std::ofstream out(folder.path() /
                              kModelFolderFiles[chunk.selector % kModelFolderFiles.size()],
                          std::ios::binary | std::ios::app);
        out.write(chunk.bytes.data(), static_cast<std::streamsize>(chunk.bytes.size()));
        if (!out)
            throw std::runtime_error("cannot write the model folder");
    }
    acceptingDocumentedRejections([&] {
        const io::LoadedModel loaded = io::loadModel(folder.path().string());
        require(loaded.model && loaded.tokenizer && loaded.layout,
                "loadModel returned an incomplete model");
        const engine::ModelConfig& c = loaded.model->config();
        require(loaded.tokenizer->size() <= c.vocabSize, "the tokenizer outgrows vocab_size");
        require(loaded.tokenizer->size() >= 1, "a tokenizer without tokens");
        const io::Tokenizer& tokenizer = *loaded.tokenizer;
        acceptingDocumentedRejections([&] { (void)tokenizer.encode("ab c"); });
        // A text the vocabulary can spell: its last tokens, decoded.
        std::vector<int> last;
        for (int id = std::max(0, tokenizer.size() - 3); id < tokenizer.size(); ++id)
            last.push_back(id);
        const std::vector<int> ids = tokenizer.encode(tokenizer.decode(last));
        for (const int id : ids)
            (void)tokenizer.displayToken(id);
        // A forward pass costs about layers · width · (width + feed-forward) per token, and the
        // logits vocab · width: run it on models the size of the test fixtures only.
        const double layers = c.encoderLayers + c.decoderLayers;
        const double width = c.modelWidth;
        if (ids.empty() || layers * width * (width + c.feedForwardWidth) > 1 << 20 ||
            double(c.vocabSize) * width > 1 << 22)
            return;
        engine::ModelInput run;
        const std::vector<int> firstIds(ids.begin(),
                                        ids.begin() + std::min<std::size_t>(ids.size(), 4));
        if (c.hasEncoder())
            run.source = firstIds;
        if (c.hasDecoder())
            run.target = c.hasEncoder() ? std::vector<int>{c.bosTokenId.value_or(0)} : firstIds;
        (void)loaded.model->forward(run);
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzModelFolder)
