// Writes the seed corpora of the fuzz targets from the test data, so that nothing large is
// committed: make_seeds DATA_DIR MODELS_DIR OUT_DIR writes OUT_DIR/<target>/<name> for every
// target of fuzz_targets.h.
//   json          the headers of the safetensors fixtures, every config.json, the small
//                 vocabularies and tokenizer files, the tokenizer references, a few hand-written
//                 documents
//   safetensors   the safetensors fixtures of at most 64 KB, and the weights written below
//   case          tests/data/mha/*.case.safetensors of at most 64 KB
//   import        tests/data/attentions/*.safetensors except the .expected ones
//   model_folder  the small AttnViz models of tests/data/models as they are, and every other
//                 model's config.json shrunk to a width of 4 or 8 with weights of the right names
//                 and shapes (written by walking the layout's own weight visitor): AttnViz
//                 encoder-decoder and decoder-only, GPT-2 in F32 with vocab.json + merges.txt, in
//                 F16 with tokenizer.json, in BF16 shards with an index, BERT with vocab.txt and
//                 with tokenizer.json and TF-era LayerNorm names; the GPT-2 and BERT vocabularies
//                 are the first entries of the real ones
//   tokenizers    every mode of tokenizers_fuzz.cpp: small vocabularies cut from the real ones,
//                 the texts of tests/data/tokenizers/*_reference.json, and added tokens
//   lesson        the saved lessons of tests/data/lessons
//   pictures      the PNG and JPEG files of tests/data/images, the refused ones of bad/ too
// Each generated model folder is loaded once with io::loadModel, and the program fails if one
// does not load: a seed that is refused at the first check would reach nothing.
#include "fuzz_support.h"

#include "io/checkpoint/checkpoint_layout.h"
#include "io/checkpoint/model_folder.h"
#include "io/input_file.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

namespace attnviz::fuzz {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr std::uintmax_t kMaxSeedBytes = 64 * 1024;

/// The selectors of kModelFolderFiles (fuzz_support.h).
enum ModelFile : std::uint8_t {
    kConfig,
    kVocabJson,
    kModel,
    kMerges,
    kVocabTxt,
    kTokenizerJson,
    kTokenizerConfig,
    kIndex,
    kShard1,
    kShard2,
};

fs::path gOut;
int gWritten = 0;

void writeSeed(const std::string& target, const std::string& name, std::string_view bytes)
{
    const fs::path dir = gOut / target;
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + (dir / name).string());
    ++gWritten;
}

std::vector<fs::path> filesIn(const fs::path& dir, std::string_view suffix)
{
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().string().ends_with(suffix))
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::string headerOf(const std::string& safetensors)
{
    std::uint64_t length = 0;
    std::memcpy(&length, safetensors.data(), 8);
    return safetensors.substr(8, static_cast<std::size_t>(length));
}

// --- model weights ----------------------------------------------------------------------------

enum class Storage { F32, F16, BF16 };

std::uint16_t toHalf(float f)
{
    // Small weights only (|f| < 1): normal or zero halves, rounded toward zero.
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
    if (exponent <= 0)
        return static_cast<std::uint16_t>(sign);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(exponent) << 10 |
                                      ((bits >> 13) & 0x3ffu));
}

struct WeightOptions {
    std::string prefix; ///< before every name the layout does not mark unprefixed
    Storage storage = Storage::F32;
    bool lastAlternative = false; ///< BERT's LayerNorm.gamma / beta instead of weight / bias
    bool shards = false; ///< two shards and an index instead of model.safetensors
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> extras; ///< ignored buffers (U8)
};

/// The weights a layout expects for `config.json`, small random numbers, as chunks of a model
/// folder seed.
std::string weightChunks(const io::CheckpointLayout& layout, const std::string& configJson,
                         const WeightOptions& options)
{
    const io::JsonValue json = io::parseJson(configJson);
    const engine::ModelConfig config = layout.parseConfig(json);
    engine::ModelWeights weights;
    std::vector<io::WeightSlot> slots;
    layout.forEachWeight(config, weights,
                         [&](io::WeightSlot slot) { slots.push_back(std::move(slot)); });
    std::mt19937 random(7);
    std::uniform_real_distribution<float> value(-0.5f, 0.5f);
    io::SafetensorsWriter writers[2] = {io::SafetensorsWriter::inMemory(),
                                        io::SafetensorsWriter::inMemory()};
    Json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", Json::object()}};
    std::size_t totalBytes = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const io::WeightSlot& slot = slots[i];
        const std::string name = (slot.unprefixed ? "" : options.prefix) +
            (options.lastAlternative ? slot.names.back() : slot.names.front());
        std::int64_t n = 1;
        for (const std::int64_t d : slot.shape)
            n *= d;
        std::vector<float> values(static_cast<std::size_t>(n));
        for (float& v : values)
            v = value(random);
        io::SafetensorsWriter& writer = writers[options.shards ? i % 2 : 0];
        if (options.storage == Storage::F32) {
            writer.addF32(name, slot.shape, values);
            totalBytes += values.size() * 4;
        } else {
            std::vector<std::uint16_t> halves;
            for (const float v : values)
                halves.push_back(
                    options.storage == Storage::F16
                        ? toHalf(v)
                        : static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16));
            writer.addRaw(name, options.storage == Storage::F16 ? io::DType::F16 : io::DType::BF16,
                          slot.shape,
                          {reinterpret_cast<const char*>(halves.data()), halves.size() * 2});
            totalBytes += halves.size() * 2;
        }
        index["weight_map"][name] = options.shards && i % 2 ? "model-00002-of-00002.safetensors"
                                                            : "model-00001-of-00002.safetensors";
    }
    for (const auto& [name, shape] : options.extras) {
        std::int64_t n = 1;
        for (const std::int64_t d : shape)
            n *= d;
        const std::string ones(static_cast<std::size_t>(n), '\1');
        writers[0].addRaw(options.prefix + name, io::DType::U8, shape, ones);
        index["weight_map"][options.prefix + name] = "model-00001-of-00002.safetensors";
    }
    writers[0].setMetadata("format", "pt");
    std::string chunks;
    if (!options.shards) {
        appendChunk(chunks, kModel, writers[0].finish());
        return chunks;
    }
    index["metadata"]["total_size"] = totalBytes;
    appendChunk(chunks, kIndex, index.dump(2));
    appendChunk(chunks, kShard1, writers[0].finish());
    appendChunk(chunks, kShard2, writers[1].finish());
    return chunks;
}

/// Loads a model folder seed the way the fuzz target does, to make sure it is accepted.
void checkLoads(const std::string& name, const std::string& seed)
{
    const fs::path dir =
        fs::temp_directory_path() / ("attnviz-fuzz-seed-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const Chunk& chunk : decodeChunks(seed)) {
        std::ofstream out(dir / kModelFolderFiles[chunk.selector % kModelFolderFiles.size()],
                          std::ios::binary | std::ios::app);
        out.write(chunk.bytes.data(), static_cast<std::streamsize>(chunk.bytes.size()));
    }
    try {
        (void)io::loadModel(dir.string());
    } catch (const std::exception& e) {
        fs::remove_all(dir);
        throw std::runtime_error("the model folder seed " + name + " does not load: " + e.what());
    }
    fs::remove_all(dir);
}

// --- vocabularies cut from the real ones ------------------------------------------------------

struct BpeFiles {
    Json vocab = Json::object(); ///< token -> id
    std::vector<std::string> merges; ///< "left right", in rank order
};

/// GPT-2's vocabulary up to id 256 + extra (the byte symbols and the first merges' results),
/// the merges among them, and <|endoftext|> after them.
BpeFiles smallGpt2(const fs::path& data, int extra)
{
    const Json real = Json::parse(io::readFile((data / "hf/gpt2/vocab.json").string()));
    const int limit = 256 + extra;
    BpeFiles files;
    std::map<int, std::string> byId;
    for (const auto& [token, id] : real.items())
        if (id.get<int>() < limit)
            byId[id.get<int>()] = token;
    for (const auto& [id, token] : byId)
        files.vocab[token] = id;
    const std::string merges = io::readFile((data / "hf/gpt2/merges.txt").string());
    std::size_t at = 0;
    while (at < merges.size()) {
        const std::size_t end = std::min(merges.find('\n', at), merges.size());
        const std::string line = merges.substr(at, end - at);
        at = end + 1;
        const std::size_t space = line.find(' ');
        if (line.starts_with("#") || space == std::string::npos)
            continue;
        const std::string left = line.substr(0, space), right = line.substr(space + 1);
        if (files.vocab.contains(left) && files.vocab.contains(right) &&
            files.vocab.contains(left + right))
            files.merges.push_back(line);
        if (static_cast<int>(files.merges.size()) >= extra)
            break;
    }
    files.vocab["<|endoftext|>"] = limit;
    return files;
}

std::string mergesTxt(const BpeFiles& files)
{
    std::string text = "#version: 0.2\n";
    for (const std::string& m : files.merges)
        text += m + "\n";
    return text;
}

std::string gpt2TokenizerJson(const BpeFiles& files, bool pairs)
{
    Json merges = Json::array();
    for (const std::string& m : files.merges) {
        const std::size_t space = m.find(' ');
        if (pairs)
            merges.push_back(Json::array({m.substr(0, space), m.substr(space + 1)}));
        else
            merges.push_back(m);
    }
    const int endOfText = files.vocab["<|endoftext|>"].get<int>();
    Json root = {
        {"version", "1.0"},
        {"added_tokens",
         Json::array({{{"id", endOfText}, {"content", "<|endoftext|>"}, {"special", true}}})},
        {"normalizer", nullptr},
        {"pre_tokenizer",
         {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model",
         {{"type", "BPE"}, {"dropout", nullptr}, {"vocab", files.vocab}, {"merges", merges}}}};
    return root.dump();
}

/// bert-base-uncased's special tokens (ids 0 to 104 of vocab.txt) and `words` lines from its
/// single characters on (line 1000: "!", then letters, "##" pieces and the commonest words).
std::vector<std::string> smallBert(const fs::path& data, int words)
{
    const std::string text = io::readFile((data / "hf/bert/vocab.txt").string());
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    std::vector<std::string> vocab(lines.begin(), lines.begin() + 105);
    vocab.insert(vocab.end(), lines.begin() + 999, lines.begin() + 999 + words);
    return vocab;
}

std::string vocabTxt(const std::vector<std::string>& vocab)
{
    std::string text;
    for (const std::string& token : vocab)
        text += token + "\n";
    return text;
}

std::string bertTokenizerJson(const std::vector<std::string>& vocab)
{
    Json ids = Json::object();
    for (std::size_t i = 0; i < vocab.size(); ++i)
        ids[vocab[i]] = i;
    Json added = Json::array();
    for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
        added.push_back({{"id", ids[special]}, {"content", special}, {"special", true}});
    Json root = {{"added_tokens", added},
                 {"normalizer",
                  {{"type", "BertNormalizer"},
                   {"clean_text", true},
                   {"handle_chinese_chars", true},
                   {"strip_accents", nullptr},
                   {"lowercase", true}}},
                 {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
                 {"model",
                  {{"type", "WordPiece"},
                   {"unk_token", "[UNK]"},
                   {"continuing_subword_prefix", "##"},
                   {"max_input_chars_per_word", 100},
                   {"vocab", ids}}}};
    return root.dump();
}

// --- the corpora ------------------------------------------------------------------------------

/// `config` with each field of `sizes` that it has set to the given value.
Json shrunk(Json config, const std::map<std::string, Json>& sizes)
{
    for (const auto& [field, value] : sizes)
        if (config.contains(field))
            config[field] = value;
    return config;
}

void modelFolderSeeds(const fs::path& data, const fs::path& models)
{
    // AttnViz's own small test models, as they are.
    for (const char* name : {"decoder_postnorm", "encoder_only", "postnorm_tanh"}) {
        const fs::path dir = data / "models" / name;
        std::string seed;
        appendChunk(seed, kConfig, io::readFile((dir / "config.json").string()));
        appendChunk(seed, kVocabJson, io::readFile((dir / "vocab.json").string()));
        appendChunk(seed, kModel, io::readFile((dir / "model.safetensors").string()));
        checkLoads(name, seed);
        writeSeed("model_folder", std::string("attnviz_") + name, seed);
    }
    // The demo models, shrunk: encoder-decoder (reverse) and decoder-only (genesis).
    for (const char* name : {"reverse", "genesis"}) {
        const fs::path dir = models / name;
        const Json config =
            shrunk(Json::parse(io::readFile((dir / "config.json").string())),
                   {{"d_model", 8}, {"num_heads", 2}, {"d_ff", 16}, {"max_length", 16}});
        Json small = config;
        if (small.value("encoder_layers", 0) > 1)
            small["encoder_layers"] = 1;
        if (small.value("decoder_layers", 0) > 1)
            small["decoder_layers"] = 1;
        std::string seed;
        appendChunk(seed, kConfig, small.dump(2));
        appendChunk(seed, kVocabJson, io::readFile((dir / "vocab.json").string()));
        seed += weightChunks(io::attnvizLayout(), small.dump(), {});
        checkLoads(name, seed);
        writeSeed("model_folder", std::string("attnviz_") + name + "_small", seed);
    }

    const BpeFiles gpt2 = smallGpt2(data, 200);
    const int gpt2Size = static_cast<int>(gpt2.vocab.size());
    const int endOfText = gpt2Size - 1;
    const std::map<std::string, Json> gpt2Sizes = {{"vocab_size", gpt2Size},
                                                   {"n_embd", 8},
                                                   {"n_head", 2},
                                                   {"n_layer", 1},
                                                   {"n_positions", 16},
                                                   {"n_ctx", 16},
                                                   {"bos_token_id", endOfText},
                                                   {"eos_token_id", endOfText}};
    const auto gpt2Config = [&](const char* folder) {
        return shrunk(Json::parse(io::readFile((data / "hf" / folder / "config.json").string())),
                      gpt2Sizes)
            .dump(2);
    };
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>> gpt2Buffers = {
        {"h.0.attn.bias", {1, 1, 16, 16}}};
    {
        const std::string config = gpt2Config("gpt2");
        std::string seed;
        appendChunk(seed, kConfig, config);
        appendChunk(seed, kVocabJson, gpt2.vocab.dump());
        appendChunk(seed, kMerges, mergesTxt(gpt2));
        seed += weightChunks(io::gpt2Layout(), config,
                             {.prefix = "transformer.", .extras = gpt2Buffers});
        checkLoads("gpt2", seed);
        writeSeed("model_folder", "gpt2_vocab_merges_f32", seed);
    }
    {
        const std::string config = gpt2Config("gpt2-f16");
        std::string seed;
        appendChunk(seed, kConfig, config);
        appendChunk(seed, kTokenizerJson, gpt2TokenizerJson(gpt2, false));
        seed += weightChunks(io::gpt2Layout(), config,
                             {.storage = Storage::F16, .extras = gpt2Buffers});
        checkLoads("gpt2-f16", seed);
        writeSeed("model_folder", "gpt2_tokenizer_json_f16", seed);
    }
    {
        const std::string config = gpt2Config("gpt2-bf16-sharded");
        std::string seed;
        appendChunk(seed, kConfig, config);
        appendChunk(seed, kTokenizerJson, gpt2TokenizerJson(gpt2, true));
        seed += weightChunks(io::gpt2Layout(), config,
                             {.prefix = "transformer.", .storage = Storage::BF16, .shards = true});
        checkLoads("gpt2-bf16-sharded", seed);
        writeSeed("model_folder", "gpt2_sharded_bf16", seed);
    }

    const std::vector<std::string> bert = smallBert(data, 600);
    const std::map<std::string, Json> bertSizes = {
        {"vocab_size", bert.size()}, {"hidden_size", 4},       {"num_attention_heads", 2},
        {"num_hidden_layers", 1},    {"intermediate_size", 8}, {"max_position_embeddings", 16}};
    const auto bertConfig = [&](const char* folder) {
        return shrunk(Json::parse(io::readFile((data / "hf" / folder / "config.json").string())),
                      bertSizes)
            .dump(2);
    };
    {
        const std::string config = bertConfig("bert");
        std::string seed;
        appendChunk(seed, kConfig, config);
        appendChunk(seed, kVocabTxt, vocabTxt(bert));
        appendChunk(seed, kTokenizerConfig, R"({"do_lower_case": true, "model_max_length": 16})");
        seed += weightChunks(io::bertLayout(), config,
                             {.prefix = "bert.", .extras = {{"embeddings.position_ids", {1, 16}}}});
        checkLoads("bert", seed);
        writeSeed("model_folder", "bert_vocab_txt", seed);
    }
    {
        const std::string config = bertConfig("bert-gamma");
        std::string seed;
        appendChunk(seed, kConfig, config);
        appendChunk(seed, kTokenizerJson, bertTokenizerJson(bert));
        seed += weightChunks(io::bertLayout(), config, {.lastAlternative = true});
        checkLoads("bert-gamma", seed);
        writeSeed("model_folder", "bert_tokenizer_json_gamma", seed);
    }
}

std::vector<std::string> referenceTexts(const fs::path& file)
{
    std::vector<std::string> texts;
    const Json document = Json::parse(io::readFile(file.string()));
    for (const Json& c : document["cases"])
        texts.push_back(c["text"].get<std::string>());
    return texts;
}

void tokenizerSeeds(const fs::path& data)
{
    const std::string sample = "Hello world, the quick brown fox<|endoftext|> jumps 123 times! "
                               "unaffable naïve 東京 [CLS] [SEP]\n\ttabs";
    const BpeFiles gpt2 = smallGpt2(data, 60);
    const std::vector<std::string> bert = smallBert(data, 150);
    const auto seed = [&](char mode,
                          std::initializer_list<std::pair<std::uint8_t, std::string>> files) {
        std::string s(1, mode);
        for (const auto& [selector, content] : files)
            appendChunk(s, selector, content);
        return s;
    };
    writeSeed("tokenizers", "bpe_vocab_merges",
              seed(0, {{0, gpt2.vocab.dump()}, {1, mergesTxt(gpt2)}, {2, sample}}));
    writeSeed("tokenizers", "bpe_tokenizer_json",
              seed(1, {{0, gpt2TokenizerJson(gpt2, false)}, {2, sample}}));
    writeSeed("tokenizers", "bpe_tokenizer_json_pairs",
              seed(1, {{0, gpt2TokenizerJson(gpt2, true)}, {2, sample}}));
    writeSeed("tokenizers", "wordpiece_vocab_txt", seed(2, {{0, vocabTxt(bert)}, {2, sample}}));
    writeSeed("tokenizers", "wordpiece_tokenizer_json",
              seed(3, {{0, bertTokenizerJson(bert)}, {2, sample}}));
    // Added tokens sharing prefixes, one a prefix of another, one repeated, one empty line.
    writeSeed("tokenizers", "added_tokens",
              seed(6,
                   {{0, "<|endoftext|>\n<|end|>\n<|end|>x\n[CLS]\n\n<|end|>\n<|"},
                    {2, sample + "<|end|>x<|end|<|endoftext|><|"}}));
    // The pipeline on GPT-2's small files under Llama 3's, Qwen2's, SmolLM's and Mistral's steps.
    const Json llama3Steps = Json::parse(R"json({
        "normalizer": null,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
             "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<|endoftext|>"}}, {"Sequence": {"id": "A"}}],
            "special_tokens": {"<|endoftext|>": {"ids": [0]}}}})json");
    const Json otherSteps[] = {
        llama3Steps,
        {{"normalizer", {{"type", "NFC"}}}},
        {{"pre_tokenizer",
          {{"type", "Sequence"},
           {"pretokenizers",
            {{{"type", "Digits"}, {"individual_digits", true}},
             {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}}}}}},
        {{"normalizer", nullptr},
         {"pre_tokenizer",
          {{"type", "Metaspace"},
           {"replacement", "▁"},
           {"prepend_scheme", "first"},
           {"split", false}}},
         {"decoder", {{"type", "Metaspace"}, {"replacement", "▁"}}}}};
    int i = 0;
    for (const Json& steps : otherSteps) {
        Json pipeline = Json::parse(gpt2TokenizerJson(gpt2, i % 2 == 1));
        pipeline.update(steps);
        writeSeed("tokenizers", "pipeline_" + std::to_string(i++),
                  seed(7, {{0, pipeline.dump()}, {2, sample + " ½ ٣ 12345 I'M"}}));
    }
    i = 0;
    for (const std::string& text : referenceTexts(data / "tokenizers/llama3_reference.json"))
        writeSeed("tokenizers", "llama3_text_" + std::to_string(i++), std::string(1, 8) + text);
    i = 0;
    for (const std::string& text : referenceTexts(data / "tokenizers/llama2_reference.json"))
        writeSeed("tokenizers", "llama2_text_" + std::to_string(i++), std::string(1, 9) + text);
    i = 0;
    for (const std::string& text : referenceTexts(data / "tokenizers/gpt2_reference.json"))
        writeSeed("tokenizers", "gpt2_text_" + std::to_string(i++), std::string(1, 4) + text);
    i = 0;
    for (const std::string& text : referenceTexts(data / "tokenizers/bert_reference.json"))
        writeSeed("tokenizers", "bert_text_" + std::to_string(i++), std::string(1, 5) + text);
}

void safetensorsSeeds(const fs::path& data)
{
    for (const char* folder : {"mha", "attentions"})
        for (const fs::path& file : filesIn(data / folder, ".safetensors")) {
            const std::string name = file.stem().string();
            const std::string bytes = io::readFile(file.string());
            writeSeed("json", std::string(folder) + "_" + name + "_header", headerOf(bytes));
            if (fs::file_size(file) <= kMaxSeedBytes)
                writeSeed("safetensors", std::string(folder) + "_" + name, bytes);
            if (std::string(folder) == "mha" && name.ends_with(".case") &&
                fs::file_size(file) <= kMaxSeedBytes)
                writeSeed("case", name, bytes);
            if (std::string(folder) == "attentions" && !name.ends_with(".expected"))
                writeSeed("import", name, bytes);
        }
    for (const char* name : {"decoder_postnorm", "encoder_only", "postnorm_tanh"}) {
        const fs::path file = data / "models" / name / "model.safetensors";
        writeSeed("safetensors", std::string("model_") + name, io::readFile(file.string()));
    }
}

void jsonSeeds(const fs::path& data, const fs::path& models)
{
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(data)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || !name.ends_with(".json") || e.file_size() > kMaxSeedBytes * 2)
            continue;
        std::string label = fs::relative(e.path(), data).string();
        std::replace(label.begin(), label.end(), '/', '_');
        writeSeed("json", label, io::readFile(e.path().string()));
    }
    for (const char* name : {"reverse", "genesis"}) {
        writeSeed("json", std::string("resources_") + name + "_config",
                  io::readFile((models / name / "config.json").string()));
        writeSeed("json", std::string("resources_") + name + "_vocab",
                  io::readFile((models / name / "vocab.json").string()));
    }
    writeSeed("json", "small_gpt2_tokenizer", gpt2TokenizerJson(smallGpt2(data, 40), true));
    writeSeed("json", "small_bert_tokenizer", bertTokenizerJson(smallBert(data, 40)));
    const char* handWritten[] = {
        R"({"escapes": "\" \\ \/ \b \f \n \r \t \u0000 \u00e9 \u4e2d \ud83d\ude00", "e": ""})",
        R"([0, -0, 1.5, -2.25e-3, 1E+2, 9007199254740993, 1e308, 123456789012345678901234567890])",
        R"({"nested": [[[[{"a": [true, false, null]}]]]], "empty": {}, "list": []})",
        R"(  {"__metadata__": {"format": "pt"}, "t": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}}  )",
        "\"a string alone\"",
        "null",
    };
    int i = 0;
    for (const char* text : handWritten)
        writeSeed("json", "hand_" + std::to_string(i++), text);
}

void lessonSeeds(const fs::path& data)
{
    for (const fs::path& file : filesIn(data / "lessons", ".attnviz"))
        writeSeed("lesson", file.stem().string(), io::readFile(file.string()));
}

// Every picture of the decoders' tests, the refused ones too.
void pictureSeeds(const fs::path& data)
{
    for (const fs::path& folder : {data / "images", data / "images" / "bad"})
        for (const char* extension : {".png", ".jpg"})
            for (const fs::path& file : filesIn(folder, extension))
                writeSeed("pictures", file.filename().string(), io::readFile(file.string()));
}

} // namespace
} // namespace attnviz::fuzz

int main(int argc, char** argv)
{
    using namespace attnviz::fuzz;
    if (argc != 4) {
        std::cerr << "usage: make_seeds DATA_DIR MODELS_DIR OUT_DIR\n";
        return 2;
    }
    try {
        const fs::path data = argv[1], models = argv[2];
        gOut = argv[3];
        fs::remove_all(gOut);
        jsonSeeds(data, models);
        safetensorsSeeds(data);
        modelFolderSeeds(data, models);
        tokenizerSeeds(data);
        lessonSeeds(data);
        pictureSeeds(data);
    } catch (const std::exception& e) {
        std::cerr << "make_seeds: " << e.what() << "\n";
        return 1;
    }
    std::cout << "make_seeds: wrote " << gWritten << " seeds under " << gOut.string() << "\n";
    return 0;
}
