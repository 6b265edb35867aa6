#include "io/checkpoint/model_folder.h"

#include "engine/input_error.h"
#include "io/checkpoint/checkpoint_files.h"
#include "io/checkpoint/streamed_layers.h"
#include "io/input_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unordered_set>

namespace attnviz::io {
namespace {

namespace fs = std::filesystem;

JsonValue readConfig(const fs::path& dir)
{
    try {
        return parseJson(readFile((dir / "config.json").string(), 16u << 20), "config.json");
    } catch (const JsonError& e) {
        throw ModelError(std::string("config.json is not valid JSON: ") + e.what());
    } catch (const FileError& e) {
        throw ModelError(e.what());
    }
}

// "gpt2" for "models/gpt2/", the name a model without one in config.json is shown under.
std::string folderName(const fs::path& dir)
{
    fs::path path = fs::absolute(dir).lexically_normal();
    if (path.filename().empty())
        path = path.parent_path();
    return path.filename().string();
}

const CheckpointLayout& layoutFor(const JsonValue& config)
{
    for (const CheckpointLayout* layout : checkpointLayouts())
        if (layout->recognises(config))
            return *layout;
    std::string accepted;
    for (const CheckpointLayout* layout : checkpointLayouts())
        accepted += (accepted.empty() ? "" : ", ") + std::string(layout->description());
    const JsonValue* type = config.isObject() ? config.find("model_type") : nullptr;
    const std::string what =
        type ? "describes a " + type->describe() + " model" : "names no model type AttnViz knows";
    throw ModelError("config.json " + what + "; AttnViz opens " + accepted + ".");
}

// The prefix this checkpoint puts before every name: the one under which the first required
// tensor exists.
std::string prefixOf(const CheckpointLayout& layout, const std::vector<WeightSlot>& slots,
                     const CheckpointFiles& files)
{
    for (const WeightSlot& slot : slots) {
        if (!slot.required)
            continue;
        for (const std::string& prefix : layout.namePrefixes())
            for (const std::string& name : slot.names)
                if (files.find(prefix + name))
                    return prefix;
        break;
    }
    return layout.namePrefixes().front();
}

std::string gibibytes(std::uint64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
    return text;
}

// Above this many bytes of layers as floats, Automatic streams them: a 1B-parameter model's
// layers are 4 GiB as floats, GPT-2 small's 0.3 GiB.
constexpr std::uint64_t kStreamLayersAbove = 1ull << 30;

std::uint64_t floatBytes(const TensorEntry& t)
{
    return static_cast<std::uint64_t>(t.elementCount()) * sizeof(float);
}

// What opening takes: the weights held as floats (streamed: all but the layers, and the largest
// layer a pass loads) and, at the peak, a second copy of the largest tensor while it is
// converted and its bytes in the file, mapped in while they are read (each tensor's pages are
// released once it is converted).
struct LoadingBytes {
    std::uint64_t floats = 0;
    std::uint64_t layers = 0; ///< of `floats`, the layers'
    std::uint64_t largestLayer = 0;
    std::uint64_t largest = 0;
    std::uint64_t largestStored = 0;
    std::uint64_t held(bool streamed) const
    {
        return streamed ? floats - layers + largestLayer : floats;
    }
    std::uint64_t peak(bool streamed) const { return held(streamed) + largest + largestStored; }
};

LoadingBytes loadingBytes(const std::vector<WeightSlot>& slots,
                          const std::vector<const TensorEntry*>& found)
{
    LoadingBytes b;
    std::vector<std::uint64_t> perLayer;
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (const TensorEntry* t = found[i]) {
            const std::uint64_t bytes = floatBytes(*t);
            b.floats += bytes;
            b.largest = std::max(b.largest, bytes);
            b.largestStored = std::max<std::uint64_t>(b.largestStored, t->bytes.size());
            if (slots[i].layer >= 0) {
                const auto L = static_cast<std::size_t>(slots[i].layer);
                perLayer.resize(std::max(perLayer.size(), L + 1));
                perLayer[L] += bytes;
                b.layers += bytes;
            }
        }
    for (const std::uint64_t layer : perLayer)
        b.largestLayer = std::max(b.largestLayer, layer);
    return b;
}

bool streams(LayerStreaming streaming, const engine::ModelConfig& c, const LoadingBytes& bytes)
{
    // Only a model with one stack streams (engine::TransformerModel), and only one whose layout
    // marks its layers.
    if (streaming == LayerStreaming::Never || (c.hasEncoder() && c.hasDecoder()) ||
        bytes.layers == 0)
        return false;
    return streaming == LayerStreaming::Always || bytes.layers > kStreamLayersAbove;
}

// A header can declare far more than a machine has (a sparse file costs no disk), so that is
// refused before anything is read rather than ending in std::bad_alloc or the out-of-memory
// killer.
void checkFitsInMemory(const LoadingBytes& bytes, bool streamed, const std::string& file)
{
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return;
    const auto memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
    if (bytes.peak(streamed) > memory)
        throw ModelError(file + " holds " + gibibytes(bytes.floats) +
                         " of weights as 32-bit floats, and loading them takes " +
                         gibibytes(bytes.peak(streamed)) + "; this machine has " +
                         gibibytes(memory) +
                         " of memory in all, so the model cannot be opened "
                         "here.");
}

} // namespace

LoadedModel loadModel(const std::string& folder, const LoadingCheck& check,
                      LayerStreaming streaming)
{
    const fs::path dir(folder);
    std::error_code error;
    if (!fs::is_directory(dir, error))
        throw ModelError("'" + printable(folder) +
                         "' is not a folder; a model is a folder with config.json, the tokenizer's "
                         "files and model.safetensors.");
    // A config.json that cannot be looked at (a symbolic link loop) is not missing: readConfig
    // says why it cannot be read.
    if (!fs::exists(dir / "config.json", error) && !error)
        throw ModelError("'" + printable(folder) +
                         "' has no config.json; a model folder holds config.json, the tokenizer's "
                         "files and model.safetensors.");
    const JsonValue json = readConfig(dir);
    const CheckpointLayout& layout = layoutFor(json);
    engine::ModelConfig config = layout.parseConfig(json);
    if (config.name.empty())
        config.name = folderName(dir);
    // The tokenizer gives the special tokens their ids, which the checks need.
    std::shared_ptr<const Tokenizer> tokenizer = layout.loadTokenizer(dir, json, config);
    try {
        engine::checkConfig(config);
    } catch (const engine::InputError& e) {
        throw ModelError(e.what());
    }
    if (tokenizer->size() > config.vocabSize)
        throw ModelError("The tokenizer has " + std::to_string(tokenizer->size()) +
                         " tokens but config.json says vocab_size " +
                         std::to_string(config.vocabSize) + ".");
    const auto shared = std::make_shared<const CheckpointFiles>(dir);
    const CheckpointFiles& files = *shared;
    const std::string& file = files.label();

    // pass 1: every slot's tensor exists with its shape; nothing is converted yet
    engine::ModelWeights weights;
    std::vector<WeightSlot> slots;
    layout.forEachWeight(config, weights,
                         [&](WeightSlot slot) { slots.push_back(std::move(slot)); });
    const std::string prefix = prefixOf(layout, slots, files);
    std::vector<const TensorEntry*> found(slots.size(), nullptr);
    std::unordered_set<std::string> used;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const WeightSlot& slot = slots[i];
        for (const std::string& name : slot.names)
            if (!found[i])
                found[i] = files.find(slot.unprefixed ? name : prefix + name);
        if (!found[i]) {
            if (!slot.required)
                continue;
            throw ModelError(file + " has no tensor '" +
                             printable((slot.unprefixed ? "" : prefix) + slot.names.front()) +
                             "'; the configuration expects F32 " + engine::shapeText(slot.shape) +
                             ".");
        }
        if (found[i]->shape != slot.shape)
            throw ModelError(file + ": tensor '" + printable(found[i]->name) + "' has shape " +
                             engine::shapeText(found[i]->shape) + "; the configuration expects " +
                             engine::shapeText(slot.shape) + ".");
        used.insert(found[i]->name);
    }
    for (const TensorEntry* t : files.tensors()) {
        const std::string_view bare =
            std::string_view(t->name).substr(t->name.starts_with(prefix) ? prefix.size() : 0);
        if (!used.count(t->name) && !layout.ignores(bare))
            throw ModelError(file + " holds tensor '" + printable(t->name) +
                             "', which a model with this config.json does not have.");
    }
    const LoadingBytes bytes = loadingBytes(slots, found);
    const bool streamed = streams(streaming, config, bytes);
    checkFitsInMemory(bytes, streamed, file);
    if (check)
        check(bytes.peak(streamed), config.name);

    // pass 2: check and fill, one tensor at a time; a streamed layer's tensors are checked to
    // be finite now rather than in the middle of a pass, and filled when a pass needs them
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (found[i]) {
            const StoredTensor stored(*found[i], file);
            if (!streamed || slots[i].layer < 0)
                slots[i].fill(stored);
            files.release(*found[i]);
        }
    slots.clear();
    if (streamed) {
        (config.hasEncoder() ? weights.encoder : weights.decoder).layers.clear();
        weights.layerSource =
            std::make_shared<StreamedLayers>(shared, layout, config, std::move(found));
    }
    try {
        return {
            std::make_shared<const engine::TransformerModel>(std::move(config), std::move(weights)),
            std::move(tokenizer), &layout, folder};
    } catch (const engine::InputError& e) {
        throw ModelError(e.what());
    }
}

} // namespace attnviz::io
