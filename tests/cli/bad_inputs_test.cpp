// The catalogue of bad inputs (#11, docs/bad-inputs.md): every kind of input attnviz-cli refuses,
// one row each. Each row builds its input in a fresh folder, runs the real binary under a time
// and address-space limit, and checks the contract: exit status 2 (bad input) or 1 (output that
// could not be written), exactly one line on stderr naming the problem and what was expected,
// no raw control or bidirectional formatting character on it, nothing on stdout, and nothing
// written or left behind.
#include "io/input_file.h"
#include "io/safetensors.h"
#include "support/hf_tokenizer_files.h"
#include "support/picture_files.h"
#include "support/process.h"
#include "support/sanitizers.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

const std::string kCli = ATTNVIZ_CLI_PATH;
const fs::path kData = ATTNVIZ_TEST_DATA_DIR;
const fs::path kModels = ATTNVIZ_SOURCE_MODELS_DIR;

// Generous bounds: every refusal takes well under a second; a run that needs more is a runaway.
// Under AddressSanitizer (the asan preset) the program reserves terabytes of shadow address space
// at start, which RLIMIT_DATA forbids, and its memory costs about twice as much: no data limit
// there, and the peak bound is what is left to catch a runaway.
#if defined(ATTNVIZ_UNDER_ASAN)
constexpr std::uint64_t kDataBytes = 0;
constexpr long kResidentKb = 3l << 20; // 3 GiB: what 1 GiB costs under ASan
#else
constexpr std::uint64_t kDataBytes = 4ull << 30;
constexpr long kResidentKb = 1l << 20; // 1 GiB
#endif
constexpr int kSeconds = 60;

// ---------------------------------------------------------------------------------------------
// Building inputs

/// One tensor of a safetensors file as the test writes it: any dtype name, any shape, any bytes.
struct RawTensor {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::string bytes;
};

std::string jsonText(std::string_view s)
{
    std::string out = "\"";
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", u);
            out += hex;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string lengthField(std::uint64_t n)
{
    std::string field(8, '\0');
    std::memcpy(field.data(), &n, 8);
    return field;
}

/// A safetensors file: tensors laid out one after another, `metadata` the members of
/// __metadata__ as JSON text (e.g. `"num_heads":"2"`), or none when empty.
std::string safetensors(const std::vector<RawTensor>& tensors, const std::string& metadata = "")
{
    std::string header = "{";
    if (!metadata.empty())
        header += "\"__metadata__\":{" + metadata + "}";
    std::string data;
    for (const RawTensor& t : tensors) {
        std::string shape;
        for (const std::int64_t d : t.shape)
            shape += (shape.empty() ? "" : ",") + std::to_string(d);
        header += (header.size() > 1 ? "," : "") + jsonText(t.name) +
            ":{\"dtype\":" + jsonText(t.dtype) + ",\"shape\":[" + shape + "],\"data_offsets\":[" +
            std::to_string(data.size()) + "," + std::to_string(data.size() + t.bytes.size()) + "]}";
        data += t.bytes;
    }
    header += "}";
    return lengthField(header.size()) + header + data;
}

std::string floats(std::size_t n, float value = 0.25f)
{
    std::string bytes(n * 4, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        const float v = value * static_cast<float>(1 + i % 7) / 7.0f;
        std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
    return bytes;
}

void setFloat(std::string& bytes, std::size_t index, float value)
{
    std::memcpy(bytes.data() + 4 * index, &value, 4);
}

/// A valid self-attention case: batch 1, `tokens` tokens, width 4, two heads of size 2.
std::vector<RawTensor> caseTensors(std::int64_t tokens = 3, std::int64_t width = 4)
{
    const auto n = static_cast<std::size_t>(tokens * width);
    const auto w = static_cast<std::size_t>(width * width);
    return {{"query", "F32", {1, tokens, width}, floats(n)},
            {"key", "F32", {1, tokens, width}, floats(n, 0.5f)},
            {"value", "F32", {1, tokens, width}, floats(n, 0.75f)},
            {"w_q", "F32", {width, width}, floats(w)},
            {"w_k", "F32", {width, width}, floats(w, -0.5f)},
            {"w_v", "F32", {width, width}, floats(w, 0.5f)},
            {"w_o", "F32", {width, width}, floats(w, 1.0f)}};
}

RawTensor& tensorNamed(std::vector<RawTensor>& tensors, const std::string& name)
{
    for (RawTensor& t : tensors)
        if (t.name == name)
            return t;
    throw std::runtime_error("the test input has no tensor " + name);
}

std::string replacedOnce(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    if (at == std::string::npos)
        throw std::runtime_error("the test input has no '" + from + "'");
    return text.replace(at, from.size(), to);
}

/// The valid case (metadata num_heads 2) with one edit of its header text; the length field
/// follows. Data offsets in it: query [0,48], key [48,96], value [96,144], w_q [144,208],
/// w_k [208,272], w_v [272,336], w_o [336,400].
std::string editedHeader(const std::string& from, const std::string& to)
{
    const std::string bytes = safetensors(caseTensors(), "\"num_heads\":\"2\"");
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    const std::string header = replacedOnce(bytes.substr(8, n), from, to);
    return lengthField(header.size()) + header + bytes.substr(8 + n);
}

void writeBytes(const fs::path& path, std::string_view bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write the test input " + path.string());
}

/// A sparse file of `size` bytes beginning with `head`: huge on paper, nothing on the disk.
void writeSparse(const fs::path& path, std::string_view head, std::uint64_t size)
{
    writeBytes(path, head);
    fs::resize_file(path, size);
}

/// A safetensors file whose tensors are declared in the header and whose data is a hole: a
/// model of any size, for the price of its header.
void writeSparseSafetensors(
    const fs::path& path, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& f32)
{
    std::string header = "{";
    std::uint64_t offset = 0;
    for (const auto& [name, shape] : f32) {
        std::uint64_t bytes = 4;
        std::string dims;
        for (const std::int64_t d : shape) {
            bytes *= static_cast<std::uint64_t>(d);
            dims += (dims.empty() ? "" : ",") + std::to_string(d);
        }
        header += (header.size() > 1 ? "," : "") + jsonText(name) +
            ":{\"dtype\":\"F32\",\"shape\":[" + dims + "],\"data_offsets\":[" +
            std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
        offset += bytes;
    }
    header += "}";
    writeSparse(path, lengthField(header.size()) + header, 8 + header.size() + offset);
}

/// Every tensor of a safetensors file, to be edited and written back with safetensors().
std::vector<RawTensor> tensorsOf(const fs::path& path)
{
    const io::SafetensorsFile file = io::SafetensorsFile::read(path.string());
    std::vector<RawTensor> out;
    for (const io::TensorEntry& t : file.tensors())
        out.push_back({t.name, std::string(io::dtypeName(t.dtype)), t.shape,
                       std::string(t.bytes.data(), t.bytes.size())});
    return out;
}

void editWeights(const fs::path& path, const std::function<void(std::vector<RawTensor>&)>& edit)
{
    std::vector<RawTensor> tensors = tensorsOf(path);
    edit(tensors);
    writeBytes(path, safetensors(tensors, "\"format\":\"pt\""));
}

void eraseTensor(std::vector<RawTensor>& tensors, const std::string& name)
{
    const auto at = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const RawTensor& t) { return t.name == name; });
    if (at == tensors.end())
        throw std::runtime_error("the test input has no tensor " + name);
    tensors.erase(at);
}

/// The temporary world of one row: `in/` for inputs, `out/` (empty) for outputs.
class Scene {
public:
    explicit Scene(fs::path root)
        : m_root(std::move(root))
    {
        fs::remove_all(m_root);
        fs::create_directories(m_root / "in");
        fs::create_directories(m_root / "out");
    }
    ~Scene()
    {
        std::error_code error;
        // Undo chmod 000 so the folder can go.
        for (auto it = fs::recursive_directory_iterator(m_root, error);
             it != fs::recursive_directory_iterator(); it.increment(error))
            if (!it->is_symlink(error))
                fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
        fs::remove_all(m_root, error);
    }

    const fs::path& root() const { return m_root; }
    std::string in(const std::string& name) const { return (m_root / "in" / name).string(); }
    std::string out(const std::string& name = "") const
    {
        return name.empty() ? (m_root / "out").string() : (m_root / "out" / name).string();
    }
    std::string dump() const { return out("trace.safetensors"); }

    std::string write(const std::string& name, std::string_view bytes) const
    {
        writeBytes(in(name), bytes);
        return in(name);
    }
    std::string writeCase(const std::vector<RawTensor>& tensors,
                          const std::string& metadata = "\"num_heads\":\"2\"") const
    {
        return write("case.safetensors", safetensors(tensors, metadata));
    }

    /// A copy of the bundled `reverse` model (AttnViz's own layout, encoder-decoder).
    fs::path reverse() const
    {
        const fs::path dir = in("reverse");
        fs::copy(kModels / "reverse", dir, fs::copy_options::recursive);
        return dir;
    }
    /// A Hugging Face folder as hf_checkpoint_test.cpp assembles it: the variant's files plus the
    /// real vocabulary the fixtures keep once.
    fs::path hf(const std::string& variant) const
    {
        const bool gpt2 = variant.starts_with("gpt2");
        const fs::path dir = in(variant);
        fs::create_directories(dir);
        for (const auto& entry : fs::directory_iterator(kData / "hf" / variant))
            if (entry.path().filename() != "reference.safetensors")
                fs::copy_file(entry.path(), dir / entry.path().filename());
        // The GPT-2 and BERT fixtures share one real vocabulary; the Llama family's folders
        // hold their own tokenizer.json.
        const std::vector<const char*> vocabulary = gpt2
            ? std::vector<const char*>{"vocab.json", "merges.txt"}
            : variant.starts_with("bert") ? std::vector<const char*>{"vocab.txt"}
                                          : std::vector<const char*>{};
        for (const char* file : vocabulary)
            if (!fs::exists(dir / file))
                fs::copy_file(kData / "hf" / (gpt2 ? "gpt2" : "bert") / file, dir / file);
        return dir;
    }

private:
    fs::path m_root;
};

void editText(const fs::path& path, const std::string& from, const std::string& to)
{
    writeBytes(path, replacedOnce(io::readFile(path.string()), from, to));
}

std::string attentions(const std::string& name)
{
    return (kData / "attentions" / (name + ".safetensors")).string();
}

// ---------------------------------------------------------------------------------------------
// The catalogue

using Args = std::vector<std::string>;

struct Row {
    const char* id; ///< the test's name; docs/bad-inputs.md names the row by it
    std::function<Args(const Scene&)> build; ///< makes the input, returns the command line
    int exit; ///< 2: bad input; 1: the output could not be written
    std::vector<std::string> words; ///< all of them must be in the one line on stderr
    bool permissionsMatter = false; ///< meaningless as root, who reads any file: skipped then
};

Args mha(const Scene& s, const std::string& casePath)
{
    return {"mha", casePath, "--dump", s.dump()};
}

Args trace(const Scene& s, const std::string& model, const std::string& text = "abc")
{
    return {"trace", "--model", model, "--text", text, "--dump", s.dump()};
}

/// `export` of one line of 20 MiB through `model` as CSV: far more than any model here takes.
Args oneLongLine(const Scene& s, const std::string& model)
{
    return Args{"export",
                "--model",
                model,
                "--text-file",
                s.write("long.txt", std::string(20u << 20, 'a') + "\n"),
                "--format",
                "csv",
                "--out",
                s.out()};
}

/// `picture` of the ViT fixture over `image`, written to map.png, with `extra` arguments.
Args pictureOf(const Scene& s, const std::string& image, const Args& extra = {})
{
    const fs::path dir = s.hf("vit");
    Args args{"picture", "--model", dir.string(), "--image", image, "--out", s.out("map.png")};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

Args exportModel(const Scene& s, Args extra)
{
    Args args{"export", "--model", "reverse", "--text", "abc", "--format", "png", "--out", s.out()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

/// A name that takes over the line it is echoed on: a right-to-left override (the rest of the
/// line reads backwards), an ESC starting a colour and a line break; and as io::printable echoes
/// it. kHijackingWord is the same without the line break, for a word of a text, a merges.txt line
/// or a held-out line.
const std::string kHijacking = "ab\u202ecd\x1b[31m\nef";
const std::string kHijackingEchoed = "ab\\u202ecd\\x1b[31m\\nef";
const std::string kHijackingWord = "ab\u202ecd\x1b[31mef";
const std::string kHijackingWordEchoed = "ab\\u202ecd\\x1b[31mef";

/// A copy of the bundled reverse model whose tokenizer reads words, so that a whole word that is
/// not in its vocabulary is echoed.
fs::path wordReverse(const Scene& s)
{
    const fs::path dir = s.reverse();
    editText(dir / "config.json", "\"tokenizer\": \"char\"", "\"tokenizer\": \"word\"");
    return dir;
}

/// A copy of the bundled reverse model called `name` in its config.json.
fs::path reverseNamed(const Scene& s, const std::string& name)
{
    const fs::path dir = s.reverse();
    editText(dir / "config.json", "\"name\": \"reverse\"", "\"name\": " + jsonText(name));
    return dir;
}

std::vector<Row> catalogue()
{
    return {
        // ---- files: what is not a readable regular file of a sane size -------------------------
        {"file_case_missing",
         [](const Scene& s) { return mha(s, s.in("absent.safetensors")); },
         2,
         {"cannot read", "absent.safetensors", "No such file or directory"}},
        {"file_case_directory",
         [](const Scene& s) {
             fs::create_directory(s.in("folder.safetensors"));
             return mha(s, s.in("folder.safetensors"));
         },
         2,
         {"cannot read", "folder.safetensors", "it is a directory"}},
        {"file_case_fifo",
         [](const Scene& s) {
             ::mkfifo(s.in("pipe.safetensors").c_str(), 0600);
             return mha(s, s.in("pipe.safetensors"));
         },
         2,
         {"cannot read", "pipe.safetensors", "not a regular file"}},
        {"file_case_dev_zero",
         [](const Scene& s) { return mha(s, "/dev/zero"); },
         2,
         {"cannot read /dev/zero", "not a regular file"}},
        {"file_case_empty",
         [](const Scene& s) { return mha(s, s.write("empty.safetensors", "")); },
         2,
         {"empty.safetensors", "truncated", "0 bytes", "8-byte header length"}},
        {"file_case_five_bytes",
         [](const Scene& s) { return mha(s, s.write("short.safetensors", "\x10\0\0\0\0"s)); },
         2,
         {"truncated", "5 bytes"}},
        {"file_case_cut_short",
         [](const Scene& s) {
             const std::string bytes = safetensors(caseTensors(), "\"num_heads\":\"2\"");
             return mha(s, s.write("cut.safetensors", bytes.substr(0, bytes.size() - 20)));
         },
         2,
         {"tensor 'w_o'", "outside the data", "truncated"}},
        {"file_case_header_length_beyond_file",
         [](const Scene& s) {
             const std::string bytes = safetensors(caseTensors(), "\"num_heads\":\"2\"");
             return mha(s, s.write("long.safetensors", lengthField(1ull << 62) + bytes.substr(8)));
         },
         2,
         {"header length 4611686018427387904", "goes beyond the end of the file"}},
        {"file_case_huge_header",
         [](const Scene& s) {
             writeSparse(s.in("huge.safetensors"), lengthField(150'000'000) + "{", 150'000'100);
             return mha(s, s.in("huge.safetensors"));
         },
         2,
         {"header length 150000000", "larger than the 100 MB"}},
        {"file_config_huge",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             writeSparse(dir / "config.json", "{", 20u << 20);
             return trace(s, dir.string());
         },
         2,
         {"config.json", "20971520 bytes", "more than the 16777216"}},
        {"file_config_directory",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "config.json");
             fs::create_directory(dir / "config.json");
             return trace(s, dir.string());
         },
         2,
         {"config.json", "it is a directory"}},
        {"file_config_fifo",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "config.json");
             ::mkfifo((dir / "config.json").c_str(), 0600);
             return trace(s, dir.string());
         },
         2,
         {"config.json", "not a regular file"}},
        {"file_vocab_directory",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "vocab.json");
             fs::create_directory(dir / "vocab.json");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json", "it is a directory"}},
        {"file_vocab_unreadable",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::permissions(dir / "vocab.json", fs::perms::none);
             return trace(s, dir.string());
         },
         2,
         {"cannot read", "vocab.json", "Permission denied"},
         true},
        {"file_vocab_symlink_loop",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "vocab.json");
             fs::create_symlink("vocab.json", dir / "vocab.json");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json", "Too many levels of symbolic links"}},
        {"file_config_symlink_loop",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "config.json");
             fs::create_symlink("config.json", dir / "config.json");
             return trace(s, dir.string());
         },
         2,
         {"cannot read", "config.json", "Too many levels of symbolic links"}},
        {"file_weights_symlink_loop",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "model.safetensors");
             fs::create_symlink("model.safetensors", dir / "model.safetensors");
             return trace(s, dir.string());
         },
         2,
         {"cannot read", "model.safetensors", "Too many levels of symbolic links"}},
        {"file_weights_directory",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "model.safetensors");
             fs::create_directory(dir / "model.safetensors");
             return trace(s, dir.string());
         },
         2,
         {"model.safetensors", "it is a directory"}},
        {"file_weights_dev_zero",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "model.safetensors");
             fs::create_symlink("/dev/zero", dir / "model.safetensors");
             return trace(s, dir.string());
         },
         2,
         {"model.safetensors", "not a regular file"}},
        {"file_weights_empty",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             writeBytes(dir / "model.safetensors", "");
             return trace(s, dir.string());
         },
         2,
         {"model.safetensors is damaged", "truncated", "0 bytes"}},
        {"file_gpt2_vocab_directory",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             fs::remove(dir / "vocab.json");
             fs::create_directory(dir / "vocab.json");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json", "it is a directory"}},
        {"file_bert_vocab_dev_zero",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             fs::remove(dir / "vocab.txt");
             fs::create_symlink("/dev/zero", dir / "vocab.txt");
             return trace(s, dir.string());
         },
         2,
         {"vocab.txt", "not a regular file"}},
        {"file_attentions_directory",
         [](const Scene& s) {
             fs::create_directory(s.in("attn.safetensors"));
             return Args{"export", "--attentions", s.in("attn.safetensors"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"attn.safetensors", "it is a directory"}},

        // ---- formats: safetensors files that lie about themselves ------------------------------
        {"format_header_not_json",
         [](const Scene& s) {
             return mha(s, s.write("c.safetensors", lengthField(9) + "{\"query\":"));
         },
         2,
         {"header is not valid JSON", "expected a JSON object describing the tensors"}},
        {"format_header_array",
         [](const Scene& s) {
             return mha(s, s.write("c.safetensors", lengthField(9) + "[\"query\"]"));
         },
         2,
         {"the header is an array, not a JSON object"}},
        {"format_duplicate_key",
         [](const Scene& s) {
             return mha(s, s.write("c.safetensors", editedHeader("\"w_o\"", "\"w_v\"")));
         },
         2,
         {"duplicate member \"w_v\""}},
        {"format_overlapping_offsets",
         [](const Scene& s) {
             // w_o's 64 bytes claimed at the start, where query's 48 are
             return mha(s, s.write("c.safetensors", editedHeader("[336,400]", "[0,64]")));
         },
         2,
         {"'w_o'", "overlap in the data", "expected each tensor to have its own bytes"}},
        {"format_offsets_out_of_range",
         [](const Scene& s) {
             return mha(s,
                        s.write("c.safetensors",
                                editedHeader("[336,400]", "[999999999936,1000000000000]")));
         },
         2,
         {"'w_o' has data_offsets [999999999936, 1000000000000] outside the data"}},
        {"format_offsets_reversed",
         [](const Scene& s) {
             return mha(s, s.write("c.safetensors", editedHeader("[336,400]", "[400,336]")));
         },
         2,
         {"'w_o' has data_offsets [400, 336]", "begin <= end"}},
        {"format_byte_count_mismatch",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_o").shape = {4, 3};
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_o' has 64 bytes of data; expected 48 for F32 [4, 3]"}},
        {"format_shape_overflows",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_o").shape = {1ll << 40, 1ll << 40, 1ll << 40};
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_o' has shape [1099511627776, 1099511627776, 1099511627776]", "too large"}},
        {"format_negative_shape",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_o").shape = {-4, -4};
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_o' has shape entry -4", "expected a non-negative integer"}},
        {"format_unknown_dtype",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_o").dtype = "F8_E4M3";
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_o' has unknown dtype \"F8_E4M3\"", "expected a safetensors dtype"}},
        {"format_metadata_not_object",
         [](const Scene& s) {
             return mha(s,
                        s.write("c.safetensors",
                                editedHeader("{\"num_heads\":\"2\"}", "[\"num_heads\",\"2\"]")));
         },
         2,
         {"__metadata__ is an array", "expected a JSON object"}},
        {"format_320000_metadata_keys",
         [](const Scene& s) {
             std::string metadata;
             for (int i = 0; i < 320'000; ++i)
                 metadata += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":\"v\"";
             return mha(s, s.writeCase(caseTensors(), metadata));
         },
         2,
         {"metadata field 'num_heads' is missing", "expected the number of heads"}},
        {"format_320000_tensors",
         [](const Scene& s) {
             std::vector<RawTensor> t;
             for (int i = 0; i < 320'000; ++i)
                 t.push_back({"t" + std::to_string(i), "F32", {0}, ""});
             return mha(s, s.writeCase(t));
         },
         2,
         {"tensor 'query' is missing", "expected F32 [B, Nq, Dq]"}},
        {"format_name_with_escape_codes",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             t.push_back({"evil\n\x1b[2J\x1b]0;owned\a", "F32", {1}, "\0\0\0"s});
             return mha(s, s.writeCase(t));
         },
         2,
         {"'evil\\n\\x1b[2J\\x1b]0;owned\\x07'", "4 for F32 [1]"}},

        // ---- cases: well-formed files with impossible contents ---------------------------------
        {"case_nan",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             setFloat(tensorNamed(t, "query").bytes, 5, NAN);
             return mha(s, s.writeCase(t));
         },
         2,
         {"case.safetensors", "'query' holds NaN at index [0, 1, 1]", "finite"}},
        {"case_infinity",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             setFloat(tensorNamed(t, "w_k").bytes, 15, -INFINITY);
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_k' holds -Inf at index [3, 3]", "finite"}},
        {"case_num_heads_not_integer",
         [](const Scene& s) { return mha(s, s.writeCase(caseTensors(), "\"num_heads\":\"2.0\"")); },
         2,
         {"'num_heads' is \"2.0\"", "expected an integer"}},
        {"case_num_heads_zero",
         [](const Scene& s) { return mha(s, s.writeCase(caseTensors(), "\"num_heads\":\"0\"")); },
         2,
         {"'num_heads' is 0", "expected a positive number of heads"}},
        {"case_num_heads_huge",
         [](const Scene& s) {
             return mha(s, s.writeCase(caseTensors(), "\"num_heads\":\"2147483648\""));
         },
         2,
         {"'num_heads' is 2147483648", "at most 1048576"}},
        {"case_heads_do_not_divide",
         [](const Scene& s) { return mha(s, s.writeCase(caseTensors(), "\"num_heads\":\"3\"")); },
         2,
         {"w_q has 4 rows, which 3 heads cannot share equally", "multiple of num_heads"}},
        {"case_missing_tensor",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             eraseTensor(t, "w_o");
             return mha(s, s.writeCase(t));
         },
         2,
         {"tensor 'w_o' is missing", "expected F32 [Po, H·Pv]"}},
        {"case_wrong_rank",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "key").shape = {3, 4};
             return mha(s, s.writeCase(t));
         },
         2,
         {"'key' has 2 dimensions", "expected 3 [B, Nk, Dk]"}},
        {"case_wrong_dtype",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_v").dtype = "I32";
             return mha(s, s.writeCase(t));
         },
         2,
         {"'w_v' has dtype I32; expected F32"}},
        {"case_zero_sized",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             t.push_back({"b_o", "F32", {0}, ""});
             return mha(s, s.writeCase(t));
         },
         2,
         {"'b_o' has a zero-sized dimension", "at least 1"}},
        {"case_width_mismatch",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             tensorNamed(t, "w_k") = {"w_k", "F32", {4, 2}, floats(8)};
             return mha(s, s.writeCase(t));
         },
         2,
         {"key has width 4; expected 2", "w_k"}},
        {"case_mask_not_boolean",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             t.push_back({"mask", "U8", {3, 3}, "\1\0\0\1\1\0\1\1\2"s});
             return mha(s, s.writeCase(t));
         },
         2,
         {"'mask' holds 2 at index [2, 2]", "expected 1 (may attend) or 0 (blocked)"}},
        {"case_valid_length_negative",
         [](const Scene& s) {
             std::vector<RawTensor> t = caseTensors();
             t.push_back({"valid_lens", "I32", {1}, "\xff\xff\xff\xff"s});
             return mha(s, s.writeCase(t));
         },
         2,
         {"'valid_lens' holds -1", "0 or more"}},
        {"case_causal_yes",
         [](const Scene& s) {
             return mha(s, s.writeCase(caseTensors(), "\"num_heads\":\"2\",\"causal\":\"yes\""));
         },
         2,
         {"'causal' is \"yes\"", "expected \"true\" or \"false\""}},
        {"case_attention_30000",
         [](const Scene& s) {
             // 360 kB of file asking for 30000 × 30000 scores in each of four steps: 14 GB.
             Args a = mha(s, s.writeCase(caseTensors(30'000, 1), "\"num_heads\":\"1\""));
             a.insert(a.end(), {"--max-memory", "2G"});
             return a;
         },
         2,
         {"This case (30000 queries × 30000 keys × 1 heads × 1 items) needs about 13.4 GiB",
          "the memory limit you set allows 2.0 GiB"}},
        {"case_attention_30000_export",
         [](const Scene& s) {
             s.writeCase(caseTensors(30'000, 1), "\"num_heads\":\"1\"");
             return Args{"export", "--case", s.in("case.safetensors"), "--format", "csv",
                         "--out",  s.out(),  "--max-memory",           "2G"};
         },
         2,
         {"30000 queries × 30000 keys", "needs about", "allows 2.0 GiB"}},
        {"case_attention_300000",
         [](const Scene& s) {
             // 3.6 MB of file asking for 1.4 TB: refused by the default limit on any machine.
             return mha(s, s.writeCase(caseTensors(300'000, 1), "\"num_heads\":\"1\""));
         },
         2,
         {"300000 queries × 300000 keys", "needs about", "the memory this machine has available"}},

        // ---- models: folders, configurations and weights ---------------------------------------
        {"model_not_a_folder",
         [](const Scene& s) { return trace(s, s.in("nowhere")); },
         2,
         {"'", "nowhere' is not a folder", "config.json"}},
        {"model_no_config",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             fs::remove(dir / "config.json");
             return trace(s, dir.string());
         },
         2,
         {"has no config.json", "a model folder holds config.json"}},
        {"model_config_not_json",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             writeBytes(dir / "config.json", "{\"format\": \"attnviz-model\",");
             return trace(s, dir.string());
         },
         2,
         {"config.json is not valid JSON"}},
        {"model_config_array",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             writeBytes(dir / "config.json", "[\"attnviz-model\"]");
             return trace(s, dir.string());
         },
         2,
         {"config.json", "AttnViz opens"}},
        {"model_unknown_type",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             editText(dir / "config.json", "\"model_type\": \"gpt2\"",
                      "\"model_type\": \"mixtral\"");
             return trace(s, dir.string());
         },
         2,
         {"config.json describes a \"mixtral\" model", "AttnViz opens", "GPT-2", "BERT", "Llama",
          "Qwen2"}},
        {"model_type_cut_between_characters",
         [](const Scene& s) {
             // Cut at 40 bytes, inside a character: stderr had the raw bytes \xe4\xb8.
             const fs::path dir = s.hf("gpt2");
             std::string type = "a";
             for (int i = 0; i < 30; ++i)
                 type += "中";
             editText(dir / "config.json", "\"model_type\": \"gpt2\"",
                      "\"model_type\": \"" + type + "\"");
             return trace(s, dir.string());
         },
         2,
         {"config.json describes a \"a中中中中中中中中中中中中中…\" model"}},
        {"model_layer_norm_eps_1e39",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"layer_norm_eps\": 1e-05", "\"layer_norm_eps\": 1e39");
             return trace(s, dir.string());
         },
         2,
         {"\"layer_norm_eps\" is 1e39", "expected a number from 1e-30 to 1."}},
        {"model_config_number_overflows",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"layer_norm_eps\": 1e-05",
                      "\"layer_norm_eps\": -1e400");
             return trace(s, dir.string());
         },
         2,
         {"config.json is not valid JSON: number out of range"}},
        {"model_width_not_integer",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"d_model\": 64", "\"d_model\": 64.0");
             return trace(s, dir.string());
         },
         2,
         {"\"d_model\" is 64.0", "expected an integer from 1 to 65536"}},
        {"model_negative_size",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"d_ff\": 256", "\"d_ff\": -256");
             return trace(s, dir.string());
         },
         2,
         {"\"d_ff\" is -256", "expected an integer from 1 to"}},
        {"model_billion_layers",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"encoder_layers\": 2",
                      "\"encoder_layers\": 1000000000");
             return trace(s, dir.string());
         },
         2,
         {"\"encoder_layers\" is 1000000000", "expected an integer from 0 to 1024"}},
        {"model_heads_do_not_divide",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"num_heads\": 4", "\"num_heads\": 5");
             return trace(s, dir.string());
         },
         2,
         {"d_model 64 cannot be split into 5 heads", "multiple of num_heads"}},
        {"model_vocab_size_mismatch",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"vocab_size\": 29", "\"vocab_size\": 30");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json has 29 tokens but config.json says vocab_size 30"}},
        {"model_vocab_duplicate",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "vocab.json", "\"b\"", "\"a\"");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json lists the token \"a\" twice"}},
        {"model_vocab_not_array",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             writeBytes(dir / "vocab.json", "{\"a\": 0}");
             return trace(s, dir.string());
         },
         2,
         {"vocab.json must be a JSON array of token strings, found an object"}},
        {"model_bos_not_in_vocab",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"bos_token\": \"<s>\"",
                      "\"bos_token\": \"<start>\\u001b[5m\"");
             return trace(s, dir.string());
         },
         2,
         {"special token \"<start>\\x1b[5m\"", "vocab.json does not list"}},
        {"model_nan_weight",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 setFloat(tensorNamed(t, "decoder.layers.1.cross.v_proj.weight").bytes, 70, NAN);
             });
             return trace(s, dir.string());
         },
         2,
         {"'decoder.layers.1.cross.v_proj.weight' holds NaN at index [1, 6]", "finite"}},
        {"model_wrong_shape",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 tensorNamed(t, "encoder.layers.0.enc_ffn.linear1.weight").shape = {64, 256};
             });
             return trace(s, dir.string());
         },
         2,
         {"'encoder.layers.0.enc_ffn.linear1.weight' has shape [64, 256]",
          "the configuration expects [256, 64]"}},
        {"model_missing_tensor",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 eraseTensor(t, "decoder.final_norm.bias");
             });
             return trace(s, dir.string());
         },
         2,
         {"has no tensor 'decoder.final_norm.bias'", "expects F32 [64]"}},
        {"model_extra_tensor",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 t.push_back({"encoder.layers.2.self.q_proj.weight", "F32", {1}, floats(1)});
             });
             return trace(s, dir.string());
         },
         2,
         {"'encoder.layers.2.self.q_proj.weight'", "does not have"}},
        {"model_f64_weights",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 RawTensor& bias = tensorNamed(t, "decoder.output.bias");
                 bias.dtype = "F64";
                 bias.bytes += bias.bytes;
             });
             return trace(s, dir.string());
         },
         2,
         {"'decoder.output.bias' is F64", "AttnViz reads F32, F16 and BF16"}},
        {"model_weights_larger_than_memory",
         [](const Scene& s) {
             // Legal sizes (d_model 65536, d_ff 262144), 384 GiB of F32 weights in a sparse file.
             const fs::path dir = s.in("giant");
             fs::create_directories(dir);
             fs::copy_file(kData / "models" / "decoder_postnorm" / "vocab.json",
                           dir / "vocab.json");
             writeBytes(dir / "config.json",
                        R"({"format": "attnviz-model", "architecture": "decoder-only",
                            "vocab_size": 11, "d_model": 65536, "num_heads": 1, "d_ff": 262144,
                            "decoder_layers": 2, "activation": "relu", "norm": "pre",
                            "positional": "none", "max_length": 12, "bias": false})");
             const std::int64_t D = 65536, F = 262144;
             std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensors{
                 {"decoder.embedding.weight", {11, D}}};
             for (int L = 0; L < 2; ++L) {
                 const std::string l = "decoder.layers." + std::to_string(L) + ".";
                 for (const char* p : {"q", "k", "v", "o"})
                     tensors.push_back({l + "masked_self." + p + "_proj.weight", {D, D}});
                 tensors.push_back({l + "masked_self_norm.weight", {D}});
                 tensors.push_back({l + "masked_self_norm.bias", {D}});
                 tensors.push_back({l + "dec_ffn.linear1.weight", {F, D}});
                 tensors.push_back({l + "dec_ffn.linear2.weight", {D, F}});
                 tensors.push_back({l + "dec_ffn_norm.weight", {D}});
                 tensors.push_back({l + "dec_ffn_norm.bias", {D}});
             }
             tensors.push_back({"decoder.output.weight", {11, D}});
             writeSparseSafetensors(dir / "model.safetensors", tensors);
             return trace(s, dir.string());
         },
         2,
         {"model.safetensors holds 384.0 GiB of weights", "this machine has", "cannot be opened"}},
        {"model_pickle_only",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             fs::remove(dir / "model.safetensors");
             writeBytes(dir / "pytorch_model.bin", "\x80\x02}q\0.");
             return trace(s, dir.string());
         },
         2,
         {"pytorch_model.bin", "pickle", "safe_serialization=True"}},
        {"model_shard_outside_folder",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2-bf16-sharded");
             editText(dir / "model.safetensors.index.json", "\"model-00002-of-00002.safetensors\"",
                      "\"../../etc/passwd\"");
             return trace(s, dir.string());
         },
         2,
         {"maps 'lm_head.weight' to \"../../etc/passwd\"", "the file name of a shard"}},
        {"model_gpt2_missing_tensor",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 eraseTensor(t, "transformer.h.1.mlp.c_fc.bias");
             });
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"has no tensor 'transformer.h.1.mlp.c_fc.bias'", "expects F32 [64]"}},
        {"model_gpt2_wrong_shape",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 tensorNamed(t, "transformer.h.0.attn.c_attn.weight").shape = {48, 16};
             });
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"'transformer.h.0.attn.c_attn.weight' has shape [48, 16]",
          "the configuration expects [16, 48]"}},
        {"model_tokenizer_json_type_escaped",
         [](const Scene& s) {
             // A C1 CSI and a 100,000-character type reached stderr raw and whole.
             const fs::path dir = s.hf("gpt2");
             fs::remove(dir / "vocab.json");
             fs::remove(dir / "merges.txt");
             writeBytes(dir / "tokenizer.json",
                        replacedOnce(gpt2TokenizerJson(false), R"("normalizer":null)",
                                     R"("normalizer":{"type":"\u009b31m)" +
                                         std::string(100'000, 'N') + "\"}"));
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"tokenizer.json has a \\u009b31m" + std::string(51, 'N') +
          "… normalizer; expected none, as in GPT-2"}},
        {"model_added_tokens_sharing_a_prefix",
         [](const Scene& s) {
             // 100,000 added tokens sharing a 100-byte prefix over a text of that prefix: every
             // candidate was checked at every position (32 s to minutes) before the text was
             // refused for its length.
             const fs::path dir = s.hf("gpt2");
             const std::string prefix = "<|reserved_special_token_shared_prefix_" +
                 std::string(100 - 45, 'x') + "_number_";
             std::string added;
             for (int i = 0; i < 100'000; ++i)
                 added += ",{\"id\":" + std::to_string(50257 + i) + ",\"content\":\"" + prefix +
                     std::to_string(i) + "|>\",\"special\":true}";
             fs::remove(dir / "vocab.json");
             fs::remove(dir / "merges.txt");
             writeBytes(dir / "tokenizer.json",
                        replacedOnce(gpt2TokenizerJson(false), R"("special":true}])",
                                     R"("special":true})" + added + "]"));
             editText(dir / "config.json", "\"vocab_size\": 50257", "\"vocab_size\": 150257");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 RawTensor& wte = tensorNamed(t, "transformer.wte.weight");
                 wte.bytes.resize(wte.bytes.size() +
                                  static_cast<std::size_t>(100'000 * wte.shape[1]) * 4);
                 wte.shape[0] = 150257;
             });
             // 6,000 bytes: short enough that the added tokens' length cannot refuse the text
             // before it is tokenized (Tokenizer::fewestTokens).
             std::string text;
             while (text.size() < 6'000)
                 text += prefix;
             text.resize(6'000);
             return trace(s, dir.string(), text);
         },
         2,
         {"The text has ", " tokens; this model takes at most 64"}},
        {"model_opening_beyond_max_memory",
         [](const Scene& s) {
             // Opening counted nothing: a 0.5 GiB F16 GPT-2 peaked at 2.0 GB under 256M.
             Args args = trace(s, s.hf("gpt2").string(), "Hello");
             // 8M: its vocab.json, read first and counted since #45, takes 4 MiB.
             args.insert(args.end(), {"--max-memory", "8M"});
             return args;
         },
         2,
         {"Opening gpt2 needs about 9.2 MiB of memory", "the memory limit you set allows 8.0 MiB"}},
        // A line that cannot fit is refused from its length, before it is tokenized (#45): a
        // 20 MB line for genesis took 1.6 GB and 11 s.
        {"export_line_longer_than_any_tokenization_fits",
         [](const Scene& s) { return oneLongLine(s, "genesis"); },
         2,
         {"The text of 20971520 bytes has at least 5242880 tokens; this model takes at most 64 "
          "(max_length)."}},
        {"gpt2_line_longer_than_any_tokenization_fits",
         [](const Scene& s) { return oneLongLine(s, s.hf("gpt2").string()); },
         2,
         {"The text of 20971520 bytes has at least ", " tokens; this model takes at most 64"}},
        {"export_png_beyond_max_memory",
         [](const Scene& s) {
             // Four 20000 × 20000 images in flight peaked at 3.46 GB under --max-memory 1G.
             return Args{"export",   "--model", "genesis",        "--text",       "and god said",
                         "--format", "png",     "--width",        "20000",        "--height",
                         "20000",    "--out",   s.out("figures"), "--max-memory", "1G"};
         },
         2,
         {"Drawing a 20000 × 20000 PNG needs about 2.2 GiB of memory",
          "the memory limit you set allows 1.0 GiB"}},
        {"model_overflowing_weights",
         [](const Scene& s) {
             // Finite but huge Q and K columns: the scores overflow to +Inf and every later step
             // was NaN, with exit 0 and all-NaN logits.
             const fs::path dir = s.hf("gpt2");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 RawTensor& qkv = tensorNamed(t, "transformer.h.0.attn.c_attn.weight");
                 const std::int64_t columns = qkv.shape[1], qk = 2 * columns / 3;
                 auto* values = reinterpret_cast<float*>(qkv.bytes.data());
                 for (std::int64_t r = 0; r < qkv.shape[0]; ++r)
                     for (std::int64_t c = 0; c < qk; ++c)
                         values[r * columns + c] *= 3e19f;
             });
             return trace(s, dir.string(), "Hello world, hello again");
         },
         2,
         {"Decoder layer 0, masked_self block: the scores step overflowed 32-bit floats",
          "would be NaN"}},
        {"import_beyond_max_memory",
         [](const Scene& s) {
             // An import was read whatever --max-memory said.
             return Args{
                 "export",   "--attentions", (kData / "attentions/gpt_layers.safetensors").string(),
                 "--format", "csv",          "--out",
                 s.out(),    "--max-memory", "3K"};
         },
         2,
         {"Opening gpt_layers.safetensors needs about", "the memory limit you set allows 3.0 KiB"}},
        {"import_header_beyond_max_memory",
         [](const Scene& s) {
             // #45: its header is JSON, counted before it is parsed.
             return Args{
                 "export",   "--attentions", (kData / "attentions/gpt_layers.safetensors").string(),
                 "--format", "csv",          "--out",
                 s.out(),    "--max-memory", "1K"};
         },
         2,
         {"Reading the header of 'gpt_layers.safetensors' needs about 2.4 KiB of memory",
          "the memory limit you set allows 1.0 KiB"}},
        {"model_gpt2_no_merges",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             fs::remove(dir / "merges.txt");
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"vocab.json but no merges.txt", "needs both (or a tokenizer.json)"}},
        {"model_gpt2_special_token_outside_vocabulary",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             editText(dir / "config.json", "\"eos_token_id\": 50256", "\"eos_token_id\": 60000");
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"\"eos_token_id\" is 60000", "expected an integer from 0 to 50256"}},
        {"model_bert_missing_tensor",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 eraseTensor(t, "bert.encoder.layer.1.attention.self.key.weight");
             });
             return trace(s, dir.string(), "hello");
         },
         2,
         {"has no tensor 'bert.encoder.layer.1.attention.self.key.weight'",
          "expects F32 [16, 16]"}},
        {"model_bert_wrong_shape",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
                 tensorNamed(t, "bert.encoder.layer.0.intermediate.dense.weight").shape = {16, 64};
             });
             return trace(s, dir.string(), "hello");
         },
         2,
         {"'bert.encoder.layer.0.intermediate.dense.weight' has shape [16, 64]",
          "the configuration expects [64, 16]"}},
        {"model_bert_relative_positions",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             editText(dir / "config.json", "\"absolute\"", "\"relative_key\"");
             return trace(s, dir.string(), "hello");
         },
         2,
         {"\"position_embedding_type\" is \"relative_key\"", "absolute"}},
        {"model_bert_cased",
         [](const Scene& s) {
             const fs::path dir = s.hf("bert");
             writeBytes(dir / "tokenizer_config.json", "{\"do_lower_case\": false}");
             return trace(s, dir.string(), "hello");
         },
         2,
         {"\"do_lower_case\": false", "uncased"}},
        {"model_text_outside_vocabulary",
         [](const Scene& s) { return trace(s, "reverse", "ab\x1b[31mc"); },
         2,
         {"\"\\x1b\" is not in the model's vocabulary"}},
        {"model_text_not_utf8",
         [](const Scene& s) {
             return trace(s, "reverse",
                          "ab\x9b"
                          "31mc");
         },
         2,
         {"\"\\x9b\" is not in the model's vocabulary"}},
        {"model_generate_text_past_context",
         [](const Scene& s) {
             // It traced the first 64 tokens, generated nothing and exited 0.
             Args a = trace(s, ATTNVIZ_SOURCE_MODELS_DIR "/genesis", std::string(90, 'a'));
             a.insert(a.end(), {"--generate", "3"});
             return a;
         },
         2,
         {"The text has 90 tokens and genesis reads at most 64 (its context), so there is no "
          "room to continue it."}},
        {"model_generate_past_context",
         [](const Scene& s) {
             Args a = trace(s, ATTNVIZ_SOURCE_MODELS_DIR "/genesis", std::string(60, 'a'));
             a.insert(a.end(), {"--generate", "10"});
             return a;
         },
         2,
         {"The text has 60 tokens and genesis reads at most 64 (its context), so it can be "
          "continued by at most 4 tokens, not 10."}},
        {"model_empty_name", [](const Scene& s) { return trace(s, ""); }, 2, {"--model", "empty"}},
        {"model_text_too_long",
         [](const Scene& s) { return trace(s, "reverse", std::string(100'000, 'a')); },
         2,
         {"100000", "at most 14 (max_length)"}},

        // ---- attentions computed elsewhere (tests/data/attentions/bad_*) -----------------------
        {"import_nan",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_nan"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"bad_nan.safetensors", "'layer1' holds NaN at head 2, query 3, key 0"}},
        {"import_scores",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_scores"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"'layer0' holds -1.02536 at head 0, query 0, key 0", "never negative"}},
        {"import_dropout",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_dropout"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"summing to", "expected softmax weights", "dropout"}},
        {"import_layer_gap",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_gap"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"'layer1' is missing although 'layer2' exists"}},
        {"import_tokens_not_json",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_tokens_repr"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"'tokens'", "JSON"}},
        {"import_token_with_escape_code",
         [](const Scene& s) {
             return Args{"export", "--attentions", attentions("bad_huge_token"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"1024 bytes"}},
        {"import_causal_violated",
         [](const Scene& s) {
             return Args{"export",   "--attentions", attentions("bad_causal_violated"),
                         "--format", "csv",          "--out",
                         s.out()};
         },
         2,
         {"causal"}},
        {"import_unknown_tensor",
         [](const Scene& s) {
             return Args{"export",   "--attentions", attentions("bad_unknown_tensor"),
                         "--format", "csv",          "--out",
                         s.out()};
         },
         2,
         {"'input_ids'"}},
        {"import_too_large",
         [](const Scene& s) {
             // 33000 × 33000 F16 weights: 4.36 GB as floats, from a sparse 2.2 GB file.
             const std::uint64_t bytes = 33'000ull * 33'000 * 2;
             std::string header = "{\"__metadata__\":{\"tokens\":\"[]\"},\"attentions\":{"
                                  "\"dtype\":\"F16\",\"shape\":[1,1,33000,33000],"
                                  "\"data_offsets\":[0," +
                 std::to_string(bytes) + "]}}";
             writeSparse(s.in("big.safetensors"), lengthField(header.size()) + header,
                         8 + header.size() + bytes);
             return Args{"export", "--attentions", s.in("big.safetensors"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"4 GiB"}},
        {"import_million_layers",
         [](const Scene& s) {
             // A valid 4 MB file: 10⁶ layers of one zero weight each.
             const std::uint64_t bytes = 1'000'000ull * 4;
             std::string header = "{\"__metadata__\":{\"tokens\":\"[\\\"a\\\"]\"},"
                                  "\"attentions\":{\"dtype\":\"F32\",\"shape\":[1000000,1,1,1],"
                                  "\"data_offsets\":[0," +
                 std::to_string(bytes) + "]}}";
             writeSparse(s.in("deep.safetensors"), lengthField(header.size()) + header,
                         8 + header.size() + bytes);
             return Args{"export", "--attentions", s.in("deep.safetensors"), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"1000000 layers; a model has at most 1024"}},
        {"import_every_step",
         [](const Scene& s) {
             return Args{"export",  "--attentions", attentions("cross"),
                         "--steps", "all",          "--format",
                         "png",     "--out",        s.out()};
         },
         2,
         {"tiny-t5 holds attention weights only (computed elsewhere), so it has the weights step "
          "and no q_proj step."}},

        // ---- arguments -------------------------------------------------------------------------
        {"arg_threads_100000",
         [](const Scene& s) {
             Args a = mha(s, s.writeCase(caseTensors()));
             a.insert(a.end(), {"--threads", "100000"});
             return a;
         },
         2,
         {"--threads is '100000'", "expected an integer from 1 to 256"}},
        {"arg_threads_0",
         [](const Scene& s) {
             Args a = trace(s, "reverse");
             a.insert(a.end(), {"--threads", "0"});
             return a;
         },
         2,
         {"--threads is '0'", "expected an integer from 1 to 256"}},
        {"arg_heads_near_int_max",
         [](const Scene& s) {
             return exportModel(s, {"--heads", "2147483645-2147483647"});
         },
         2,
         {"Head 2147483645 does not exist", "0–3"}},
        {"arg_heads_two_billion",
         [](const Scene& s) {
             return exportModel(s, {"--heads", "0-2000000000"});
         },
         2,
         {"Head 4 does not exist", "0–3"}},
        {"arg_heads_negative",
         [](const Scene& s) {
             return exportModel(s, {"--heads", "-1"});
         },
         2,
         {"--heads has '-1'", "expected numbers from 0"}},
        {"arg_heads_beyond_int",
         [](const Scene& s) {
             return exportModel(s, {"--heads", "0-9999999999"});
         },
         2,
         {"--heads has '0-9999999999'", "expected numbers from 0"}},
        {"arg_heads_empty_range",
         [](const Scene& s) {
             return exportModel(s, {"--heads", "3-1"});
         },
         2,
         {"--heads has the empty range '3-1'"}},
        {"arg_ablate_two_billion",
         [](const Scene& s) {
             Args a = mha(s, s.writeCase(caseTensors()));
             a.insert(a.end(), {"--ablate", "0-2000000000"});
             return a;
         },
         2,
         {"--ablate names head 2", "heads 0–1"}},
        {"arg_ablate_layer_missing",
         [](const Scene& s) {
             Args a = trace(s, "genesis");
             a.insert(a.end(), {"--ablate", "1:0,5:1"});
             return a;
         },
         2,
         {"--ablate has '5:1'", "layers 0–2"}},
        {"arg_ablate_block_unnamed",
         [](const Scene& s) {
             Args a = trace(s, "reverse");
             a.insert(a.end(), {"--ablate", "1:0"});
             return a;
         },
         2,
         {"--ablate has '1:0'", "several attention blocks", "1.cross:0"}},
        {"arg_ablate_no_head",
         [](const Scene& s) {
             Args a = trace(s, "genesis");
             a.insert(a.end(), {"--ablate", "2"});
             return a;
         },
         2,
         {"--ablate has '2'", "expected layer:head"}},
        {"arg_importance_no_heldout",
         [](const Scene& s) {
             return Args{"importance", "--model", s.hf("gpt2").string()};
         },
         2,
         {"has no heldout.txt", "--text"}},
        {"file_heldout_tabs_mixed",
         [](const Scene& s) {
             const fs::path model = s.reverse();
             writeBytes(model / "heldout.txt", "abc\tcba\nxyz\n");
             return Args{"importance", "--model", model.string()};
         },
         2,
         {"heldout.txt line 2", "input<TAB>answer"}},
        {"file_heldout_fifo",
         [](const Scene& s) {
             const fs::path model = s.reverse();
             fs::remove(model / "heldout.txt");
             ::mkfifo((model / "heldout.txt").c_str(), 0600);
             return Args{"importance", "--model", model.string()};
         },
         2,
         {"heldout.txt", "not a regular file"}},
        {"file_heldout_answer_too_long",
         [](const Scene& s) {
             const fs::path model = s.reverse();
             writeBytes(model / "heldout.txt", "abc\t" + std::string(30, 'a') + "\n");
             return Args{"importance", "--model", model.string()};
         },
         2,
         {"Example 1's answer has 30 tokens", "at most 13"}},
        {"arg_layers_99",
         [](const Scene& s) {
             return exportModel(s, {"--layers", "99"});
         },
         2,
         {"Layer 99 does not exist", "layers 0–1"}},
        {"arg_width_10",
         [](const Scene& s) {
             return exportModel(s, {"--width", "10"});
         },
         2,
         {"--width is '10'", "expected an integer from 50 to 20000"}},
        {"arg_width_overflows",
         [](const Scene& s) {
             return exportModel(s, {"--width", "18446744073709551617"});
         },
         2,
         {"--width is '18446744073709551617'", "expected an integer from 50 to 20000"}},
        {"arg_dpi_huge",
         [](const Scene& s) {
             return exportModel(s, {"--dpi", "1000000"});
         },
         2,
         {"--dpi is '1000000'", "expected an integer from 24 to 2400"}},
        {"arg_format_bmp",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format", "bmp",
                         "--out",  s.out()};
         },
         2,
         {"--format is 'bmp'", "expected png, svg"}},
        {"arg_steps_unknown",
         [](const Scene& s) {
             return exportModel(s, {"--steps", "softmax"});
         },
         2,
         {"--steps has 'softmax'", "expected q_proj"}},
        {"arg_blocks_unknown",
         [](const Scene& s) {
             return exportModel(s, {"--blocks", "encoder"});
         },
         2,
         {"--blocks has 'encoder'", "expected self, masked_self or cross"}},
        {"arg_unknown_option",
         [](const Scene& s) {
             Args a = trace(s, "reverse");
             a.push_back("--bogus");
             return a;
         },
         2,
         {"unknown option '--bogus'", "see attnviz-cli trace --help"}},
        {"arg_option_with_escape_code",
         [](const Scene& s) {
             Args a = trace(s, "reverse");
             a.push_back("--\x1b[31mred\nline");
             return a;
         },
         2,
         {"unknown option '--\\x1b[31mred\\nline'"}},
        {"arg_missing_value",
         [](const Scene& s) {
             return Args{"mha", s.writeCase(caseTensors()), "--dump"};
         },
         2,
         {"--dump needs a value"}},
        {"arg_given_twice",
         [](const Scene& s) {
             Args a = trace(s, "reverse");
             a.insert(a.end(), {"--text", "cab"});
             return a;
         },
         2,
         {"--text is given twice"}},
        {"arg_unknown_command",
         [](const Scene&) { return Args{"frobnicate\x1b[1m"}; },
         2,
         {"unknown command 'frobnicate\\x1b[1m'", "expected mha, trace, export"}},
        {"arg_no_command", [](const Scene&) { return Args{}; }, 2, {"command"}},
        {"arg_two_cases",
         [](const Scene& s) {
             return Args{"mha", s.writeCase(caseTensors()), s.in("case.safetensors")};
         },
         2,
         {"unexpected argument", "mha takes one CASE file"}},
        {"arg_no_source",
         [](const Scene& s) {
             return Args{"export", "--format", "png", "--out", s.out()};
         },
         2,
         {"export needs one of --model with --text, --case or --attentions"}},
        {"arg_text_with_case",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()),
                         "--text", "abc",    "--format",
                         "png",    "--out",  s.out()};
         },
         2,
         {"--text applies to --model, not to --case"}},
        {"arg_generate_zero",
         [](const Scene& s) {
             Args a = trace(s, ATTNVIZ_SOURCE_MODELS_DIR "/genesis", "and");
             a.insert(a.end(), {"--generate", "0"});
             return a;
         },
         2,
         {"--generate is '0'", "expected an integer from 1 to"}},

        // ---- outputs ---------------------------------------------------------------------------
        {"out_is_a_file",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format",
                         "png",    "--out",  s.write("plain.txt", "x")};
         },
         2,
         {"--out", "plain.txt is a file; expected a folder"}},
        {"out_dev_null",
         [](const Scene& s) {
             return Args{"export", "--case",   s.writeCase(caseTensors()), "--format", "png",
                         "--out",  "/dev/null"};
         },
         2,
         {"--out /dev/null is a file; expected a folder"}},
        {"out_symlink_to_nothing",
         [](const Scene& s) {
             // A rename would replace the link itself; without --overwrite it is an existing name.
             fs::create_symlink("nowhere.csv", s.out("head1_weights.csv"));
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"head1_weights.csv already exists; nothing was written", "--overwrite"}},
        {"out_folder_symlink_to_nothing",
         [](const Scene& s) {
             fs::create_symlink("nowhere", s.out("figures"));
             return Args{"export", "--case",        s.writeCase(caseTensors()), "--format", "csv",
                         "--out",  s.out("figures")};
         },
         2,
         {"--out", "figures is a symbolic link to nothing; expected a folder to write into"}},
        {"out_existing_file",
         [](const Scene& s) {
             writeBytes(s.out("head1_weights.csv"), "keep me");
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format", "csv",
                         "--out",  s.out()};
         },
         2,
         {"head1_weights.csv already exists; nothing was written", "--overwrite"}},
        {"out_name_too_long",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()),  "--format",
                         "csv",    "--out",  s.out(std::string(256, 'n'))};
         },
         1,
         {"nnnn", "File name too long"}},
        {"out_parent_is_a_file",
         [](const Scene& s) {
             return Args{"export",
                         "--case",
                         s.writeCase(caseTensors()),
                         "--format",
                         "csv",
                         "--out",
                         s.write("plain.txt", "x") + "/figures"};
         },
         1,
         {"plain.txt/figures", "Not a directory"}},
        {"out_read_only",
         [](const Scene& s) {
             // /proc takes no new folders, even from root.
             return Args{"export", "--case", s.writeCase(caseTensors()),       "--format",
                         "csv",    "--out",  "/proc/attnviz-bad-input/figures"};
         },
         1,
         {"/proc/attnviz-bad-input"}},
        {"out_directory_in_the_way",
         [](const Scene& s) {
             fs::create_directory(s.out("layer1_cross_head2_weights.png"));
             return exportModel(s, {"--overwrite", "--width", "60", "--height", "60"});
         },
         1,
         {"layer1_cross_head2_weights.png", "it is a directory"}},
        {"dump_missing_folder",
         [](const Scene& s) {
             return Args{"mha", s.writeCase(caseTensors()), "--dump",
                         s.out("no/such/t.safetensors")};
         },
         1,
         {"cannot write", "no/such/t.safetensors", "No such file or directory"}},
        {"dump_is_a_directory",
         [](const Scene& s) {
             fs::create_directory(s.out("t.safetensors"));
             return Args{"mha", s.writeCase(caseTensors()), "--dump", s.out("t.safetensors")};
         },
         1,
         {"cannot write", "t.safetensors: it is a directory"}},
        {"dump_read_only",
         [](const Scene&) {
             return Args{"trace",
                         "--model",
                         "reverse",
                         "--text",
                         "abc",
                         "--dump",
                         "/proc/attnviz-bad-input.safetensors"};
         },
         1,
         {"cannot write /proc/attnviz-bad-input.safetensors"}},
        {"dump_onto_a_fifo",
         [](const Scene& s) {
             // What --dump /dev/null is, without touching /dev: the rename would replace it.
             ::mkfifo(s.out("t.safetensors").c_str(), 0600);
             return Args{"mha", s.writeCase(caseTensors()), "--dump", s.out("t.safetensors")};
         },
         1,
         {"cannot write", "t.safetensors: it is not a regular file", "expected a file"}},
        {"dump_empty_name",
         [](const Scene& s) {
             return Args{"mha", s.writeCase(caseTensors()), "--dump", ""};
         },
         2,
         {"--dump", "empty"}},
        {"dump_empty_name_trace",
         [](const Scene&) {
             return Args{"trace", "--model", "reverse", "--text", "abc", "--dump", ""};
         },
         2,
         {"--dump", "empty"}},
        {"out_empty_name",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format", "csv",
                         "--out",  ""};
         },
         2,
         {"--out", "empty"}},
        {"dump_name_too_long",
         [](const Scene& s) {
             return Args{"mha", s.writeCase(caseTensors()), "--dump",
                         s.out(std::string(250, 'n') + ".safetensors")};
         },
         1,
         {"cannot write", "File name too long"}},
        // ---- echoed names: a bidirectional override, an ESC and a line break in what a message
        // quotes are escaped (io::printable), and a long name is cut ----------------------------
        {"echoed_text",
         [](const Scene& s) {
             return trace(s, wordReverse(s).string(), kHijackingWord + std::string(300, 'x'));
         },
         2,
         {"The word \"" + kHijackingWordEchoed + std::string(180, 'x') + "…\" is not in"}},
        {"echoed_path",
         [](const Scene& s) { return mha(s, s.in(kHijacking + ".safetensors")); },
         2,
         {"cannot read", "/in/" + kHijackingEchoed + ".safetensors: No such file or directory"}},
        {"echoed_config_name",
         [](const Scene& s) {
             // The name, from config.json, reached stderr raw and whole.
             const fs::path dir = reverseNamed(s, kHijacking + std::string(100, 'x'));
             return Args{"export", "--model",  dir.string(), "--text", "abc",  "--layers",
                         "7",      "--format", "csv",        "--out",  s.out()};
         },
         2,
         {"Layer 7 does not exist; " + kHijackingEchoed + std::string(38, 'x') +
          "… has layers 0–"}},
        {"echoed_config_name_memory",
         [](const Scene& s) {
             // The memory refusals named the model raw too.
             // 64K: enough for its config.json and the header of its weights (#45 counts them).
             Args a = trace(s, reverseNamed(s, kHijacking).string());
             a.insert(a.end(), {"--max-memory", "64K"});
             return a;
         },
         2,
         {"Opening " + kHijackingEchoed + " needs about", "the memory limit you set allows"}},
        {"echoed_config_model_type",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             editText(dir / "config.json", "\"model_type\": \"gpt2\"",
                      "\"model_type\": " + jsonText(kHijacking));
             return trace(s, dir.string());
         },
         2,
         {"config.json describes a \"" + kHijackingEchoed + "\" model"}},
        {"echoed_config_position_embedding_type",
         [](const Scene& s) {
             // It was copied into the message as it was.
             const fs::path dir = s.hf("bert");
             editText(dir / "config.json", "\"position_embedding_type\": \"absolute\"",
                      "\"position_embedding_type\": " + jsonText(kHijacking));
             return trace(s, dir.string());
         },
         2,
         {"\"position_embedding_type\" is \"" + kHijackingEchoed + "\"; AttnViz computes BERT"}},
        {"echoed_config_unknown_escape",
         [](const Scene& s) {
             // The byte after the backslash was copied raw: here the first of the override's three.
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"name\": \"reverse\"", "\"name\": \"re\\\u202e\"");
             return trace(s, dir.string());
         },
         2,
         {"config.json is not valid JSON: unknown escape \\\\u202e at byte"}},
        {"echoed_special_token",
         [](const Scene& s) {
             const fs::path dir = s.reverse();
             editText(dir / "config.json", "\"bos_token\": \"<s>\"",
                      "\"bos_token\": " + jsonText(kHijacking));
             return trace(s, dir.string());
         },
         2,
         {"config.json names the special token \"" + kHijackingEchoed + "\""}},
        {"echoed_merges_entry",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             writeBytes(dir / "merges.txt",
                        io::readFile((dir / "merges.txt").string()) + kHijackingWord + " b\n");
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"merges \"" + kHijackingWordEchoed + "\" and \"b\"; expected it and its parts"}},
        {"echoed_added_token",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2");
             fs::remove(dir / "vocab.json");
             fs::remove(dir / "merges.txt");
             writeBytes(dir / "tokenizer.json",
                        replacedOnce(gpt2TokenizerJson(false), R"("special":true}])",
                                     R"("special":true},{"id":7,"content":)" +
                                         jsonText(kHijacking) + "}]"));
             return trace(s, dir.string(), "Hello");
         },
         2,
         {"tokenizer.json's added token \"" + kHijackingEchoed + "\" has id 7"}},
        {"echoed_shard_name",
         [](const Scene& s) {
             const fs::path dir = s.hf("gpt2-bf16-sharded");
             editText(dir / "model.safetensors.index.json",
                      "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"",
                      "\"lm_head.weight\": " + jsonText(kHijacking + ".safetensors"));
             writeBytes(dir / (kHijacking + ".safetensors"), "damaged");
             return trace(s, dir.string(), "Hello");
         },
         2,
         {kHijackingEchoed + ".safetensors is damaged: the file is truncated"}},
        {"echoed_held_out_line",
         [](const Scene& s) {
             const fs::path dir = wordReverse(s);
             writeBytes(dir / "heldout.txt", kHijackingWord + "\n");
             return Args{"importance", "--model", dir.string()};
         },
         2,
         {"Example 1: The word \"" + kHijackingWordEchoed + "\" is not in"}},
        {"echoed_tensor_name",
         [](const Scene& s) {
             return Args{"export",
                         "--attentions",
                         s.write("import.safetensors",
                                 safetensors({{"layer0", "F32", {1, 1, 1}, floats(1)},
                                              {kHijacking, "F32", {1}, floats(1)}},
                                             R"("tokens":"[\"a\"]")")),
                         "--format",
                         "csv",
                         "--out",
                         s.out()};
         },
         2,
         {"tensor '" + kHijackingEchoed + "' is not an attention tensor"}},
        {"echoed_import_model_name",
         [](const Scene& s) {
             // The import's one weight is 1 (floats gives value / 7 first); its name was raw.
             return Args{
                 "export",
                 "--attentions",
                 s.write("import.safetensors",
                         safetensors({{"layer0", "F32", {1, 1, 1}, floats(1, 7.0f)}},
                                     R"("tokens":"[\"a\"]","model":)" + jsonText(kHijacking))),
                 "--blocks",
                 "cross",
                 "--format",
                 "csv",
                 "--out",
                 s.out()};
         },
         2,
         {"Block cross does not exist in " + kHijackingEchoed + ", an encoder-only model."}},
        {"echoed_dtype",
         [](const Scene& s) {
             std::vector<RawTensor> tensors = caseTensors();
             tensorNamed(tensors, "query").dtype = kHijacking;
             return mha(s, s.writeCase(tensors));
         },
         2,
         {"tensor 'query' has unknown dtype \"" + kHijackingEchoed + "\""}},
        {"echoed_argument",
         [](const Scene& s) {
             return Args{"export", "--case", s.writeCase(caseTensors()), "--format", kHijacking,
                         "--out",  s.out()};
         },
         2,
         {"--format is '" + kHijackingEchoed + "'; expected"}},
        // Today's decoder-only folders (issue #24).
        {"llama_rope_scaling_not_computed",
         [](const Scene& s) {
             const fs::path dir = s.hf("llama3");
             editText(dir / "config.json", "\"rope_type\": \"llama3\"", "\"rope_type\": \"yarn\"");
             return trace(s, dir.string());
         },
         2,
         {"\"rope_type\" is \"yarn\"", "AttnViz does not compute", "\"linear\" and \"llama3\""}},
        {"llama_key_value_heads_not_dividing",
         [](const Scene& s) {
             const fs::path dir = s.hf("qwen2");
             editText(dir / "config.json", "\"num_key_value_heads\": 2",
                      "\"num_key_value_heads\": 3");
             return trace(s, dir.string());
         },
         2,
         {"num_key_value_heads 3", "4"}},
        {"llama_without_tokenizer_json",
         [](const Scene& s) {
             const fs::path dir = s.hf("mistral");
             fs::remove(dir / "tokenizer.json");
             return trace(s, dir.string());
         },
         2,
         {"tokenizer.json"}},
        {"llama_tokenizer_json_cut",
         [](const Scene& s) {
             const fs::path dir = s.hf("tinyllama");
             fs::resize_file(dir / "tokenizer.json", 100000);
             return trace(s, dir.string());
         },
         2,
         {"tokenizer.json"}},
        {"llama_tokenizer_json_not_utf8",
         [](const Scene& s) {
             const fs::path dir = s.hf("tinyllama");
             editText(dir / "tokenizer.json", "\"<unk>\"", "\"<unk\xff>\"");
             return trace(s, dir.string());
         },
         2,
         {"tokenizer.json is not valid JSON: invalid UTF-8 inside a string at byte"}},
        {"llama_sliding_window_zero",
         [](const Scene& s) {
             const fs::path dir = s.hf("mistral");
             editText(dir / "config.json", "\"sliding_window\": 4", "\"sliding_window\": 0");
             return trace(s, dir.string());
         },
         2,
         {"\"sliding_window\" is 0"}},

        // ---- figures that cannot show their cells or labels at the size asked (issue #45) ----
        {"figure_grid_cells_without_a_pixel",
         [](const Scene& s) {
             return Args{"export",   "--model",  "genesis",  "--text", "in the beginning god",
                         "--format", "png",      "--figure", "grid",   "--width",
                         "120",      "--height", "100",      "--out",  s.out()};
         },
         2,
         {"Every cell of masked_self_weights_grid (12 panels of 20 × 20) does not get a pixel in "
          "a 120 × 100 image",
          "image would hold them (--width, --height)"}},
        {"figure_heads_labels_all_crowded",
         [](const Scene& s) {
             return exportModel(
                 s, {"--figure", "heads", "--labels", "all", "--width", "120", "--height", "80"});
         },
         2,
         {"Every label of layer0_self_heads_weights (4 panels of 3 × 3) does not fit a 120 × 80 "
          "image",
          "or choose labels auto"}},

        // ---- pictures: every JSON file's error names the file (issue #45) -------------------
        {"vit_preprocessor_config_not_json",
         [](const Scene& s) {
             const fs::path dir = s.hf("vit");
             s.write("vit/preprocessor_config.json", R"({"do_resize": NaN})");
             return Args{"picture",
                         "--model",
                         dir.string(),
                         "--image",
                         (kData / "images" / "grey1.png").string(),
                         "--out",
                         s.out("map.png")};
         },
         2,
         {"preprocessor_config.json is not valid JSON: unexpected character at byte 14"}},

        // ---- pictures that pass the pixel count: work and memory bounded (issue #45) --------
        {"picture_jpeg_of_2000_scans",
         [](const Scene& s) {
             return pictureOf(s, s.write("scans.jpg", progressiveJpeg(256, 256, 2000)));
         },
         2,
         {"scans.jpg is not a readable JPEG: it has more than 100 scans, where encoders write "
          "about ten."}},
        {"picture_jpeg_claiming_more_than_its_bytes",
         [](const Scene& s) {
             std::string jpeg = progressiveJpeg(64, 64, 3);
             const std::size_t sof = jpeg.find("\xFF\xC2");
             jpeg.replace(sof + 5, 4, std::string("\x04\x00\xFF\xDC", 4)); // 1024 high, 65500 wide
             return pictureOf(s, s.write("claims.jpg", jpeg));
         },
         2,
         {"claims.jpg claims 65500 × 1024 pixels in ", "takes at least 131008",
          "so its data is missing."}},
        {"picture_jpeg_data_stopping_at_a_marker",
         [](const Scene& s) {
             const std::string jpeg = io::readFile((kData / "images" / "smooth.jpg").string());
             return pictureOf(
                 s, s.write("stopped.jpg", jpeg.substr(0, jpeg.size() - 40) + "\xFF\xD9"));
         },
         2,
         {"stopped.jpg is not a readable JPEG: Corrupt JPEG data: premature end of data segment."}},
        {"picture_png_16_bit_8192_beyond_max_memory",
         [](const Scene& s) {
             std::string header("\0\0\x20\0\0\0\x20\0\x10\x06\0\0\0", 13); // 8192², RGBA16
             const std::string png = "\x89PNG\r\n\x1a\n" + pngChunk("IHDR", header) +
                 pngChunk("IDAT", zlibWithZeros("", 1 << 20)) + pngChunk("IEND", "");
             return pictureOf(s, s.write("deep.png", png), {"--max-memory", "64M"});
         },
         2,
         {"Decoding the 8192 × 8192 picture ", "deep.png needs about 576.",
          "of memory; the memory limit you set allows 64.0 MiB."}},
        {"picture_resized_beyond_max_memory",
         [](const Scene& s) {
             const Args args =
                 pictureOf(s, (kData / "images" / "smooth.jpg").string(), {"--max-memory", "256M"});
             s.write("vit/preprocessor_config.json",
                     R"({"size": 16384, "do_center_crop": true, "crop_size": 32})");
             return args;
         },
         2,
         {"Resizing the 32 × 24 picture to 16384 × 16384 needs about 769.",
          "of memory; the memory limit you set allows 256.0 MiB."}},
        {"picture_png_figure_beyond_max_memory",
         [](const Scene& s) {
             return pictureOf(s, (kData / "images" / "smooth.jpg").string(),
                              {"--width", "20000", "--height", "20000", "--max-memory", "256M"});
         },
         2,
         {"Drawing a 20000 × 20000 PNG needs about 2.2 GiB of memory; the memory limit you set "
          "allows "
          "256.0 MiB."}},

        // ---- figure options: colour ranges no colour bar can show (issue #45) -----------------
        {"figure_colour_range_one_double_apart",
         [](const Scene& s) {
             return exportModel(s, {"--vmin", "1", "--vmax", "1.0000000000000002"});
         },
         2,
         {"The colour range 1 to 1.0000000000000002 is narrower than a float can tell apart",
          "widen --vmin and --vmax"}},
        {"figure_colour_range_bottom_against_the_data",
         [](const Scene& s) {
             return exportModel(s, {"--steps", "weights", "--vmin", "0.9999999999999999"});
         },
         2,
         {"The colour range 0.9999999999999999 to 1 is narrower than a float can tell apart"}},
        {"figure_colour_range_wider_than_doubles",
         [](const Scene& s) {
             return exportModel(s, {"--vmin", "-1e308", "--vmax", "1e308"});
         },
         2,
         {"The colour range -1e+308 to 1e+308 is wider than a number can hold"}},
    };
}

// ---------------------------------------------------------------------------------------------
// The checks

/// Every entry under `root` with its type, size and modification time: two snapshots are equal
/// exactly when nothing was created, removed or written.
std::map<std::string, std::string> snapshot(const fs::path& root)
{
    std::map<std::string, std::string> entries;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root, error);
         it != fs::recursive_directory_iterator(); it.increment(error)) {
        struct stat info { };
        std::string state = "?";
        if (::lstat(it->path().c_str(), &info) == 0)
            state = std::to_string(info.st_mode) + " " +
                (S_ISREG(info.st_mode)
                     ? std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) +
                         "." + std::to_string(info.st_mtim.tv_nsec)
                     : std::string());
        entries[it->path().lexically_relative(root).string()] = state;
    }
    return entries;
}

// Whether a bidirectional formatting character starts at text[i] (U+061C, U+200E–U+200F,
// U+202A–U+202E, U+2066–U+2069 in UTF-8): raw, it reorders the rest of the line on screen.
bool bidiControlAt(const std::string& text, std::size_t i)
{
    const auto byte = [&](std::size_t k) {
        return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    };
    if (byte(0) == 0xd8)
        return byte(1) == 0x9c;
    if (byte(0) != 0xe2)
        return false;
    return (byte(1) == 0x80 && (byte(2) == 0x8e || byte(2) == 0x8f)) ||
        (byte(1) == 0x80 && byte(2) >= 0xaa && byte(2) <= 0xae) ||
        (byte(1) == 0x81 && byte(2) >= 0xa6 && byte(2) <= 0xa9);
}

/// The raw control characters in `text` (C0 except the final newline, DEL, C1 as UTF-8 or as a
/// lone byte, bidirectional formatting characters) and other bytes that are not UTF-8, if any.
std::string controlCharacters(const std::string& text)
{
    std::string found;
    std::size_t continuation = 0; // bytes still expected of a multi-byte character
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const bool c1 = c == 0xc2 && i + 1 < text.size() &&
            static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) <= 0x9f;
        const bool bidi = continuation == 0 && bidiControlAt(text, i);
        bool notUtf8 = false;
        if (continuation > 0) {
            notUtf8 = (c & 0xc0) != 0x80;
            --continuation;
        } else if (c >= 0x80) {
            continuation = c >= 0xc2 && c <= 0xdf ? 1
                : c >= 0xe0 && c <= 0xef          ? 2
                : c >= 0xf0 && c <= 0xf4          ? 3
                                                  : 0;
            notUtf8 = continuation == 0;
        }
        if (((c < 0x20 || c == 0x7f) && !(c == '\n' && i + 1 == text.size())) || c1 || bidi ||
            notUtf8) {
            char hex[48];
            std::snprintf(hex, sizeof hex, "%s0x%02x at %zu", found.empty() ? "" : ", ", c, i);
            found += hex;
        }
    }
    return found;
}

std::string shown(const Args& args)
{
    std::string s = "attnviz-cli";
    for (const std::string& a : args)
        s += " " + (a.size() > 120 ? a.substr(0, 120) + "…" : a);
    return s;
}

// A failing row is named by its id, not by its bytes.
void PrintTo(const Row& row, std::ostream* out)
{
    *out << row.id;
}

class BadInput : public ::testing::TestWithParam<Row> { };

TEST_P(BadInput, IsRefusedWithOneSentenceAndNothingWritten)
{
    const Row& row = GetParam();
    if (row.permissionsMatter && ::geteuid() == 0)
        GTEST_SKIP() << "running as root, who may read any file; file modes prove nothing";
    const Scene scene(
        fs::temp_directory_path() /
        ("attnviz-BadInput-" + std::string(row.id) + "-" + std::to_string(::getpid())));
    const Args args = row.build(scene);
    const auto before = snapshot(scene.root());

    const ProcessResult r = runProcess(kCli, args, {kSeconds, kDataBytes});
    SCOPED_TRACE(shown(args) + "\nstderr: " + r.err);

    // docs/bad-inputs.md quotes these lines: ATTNVIZ_BAD_INPUTS_LOG=FILE collects them.
    if (const char* log = std::getenv("ATTNVIZ_BAD_INPUTS_LOG"))
        std::ofstream(log, std::ios::app)
            << row.id << '\t' << r.exitCode << '\t' << (r.err.empty() ? "\n" : r.err);
    ASSERT_FALSE(r.timedOut) << "still running after " << kSeconds << " s";
    EXPECT_EQ(r.exitCode, row.exit);
    EXPECT_LT(r.maxResidentKb, kResidentKb) << "peak memory " << r.maxResidentKb << " kB";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not exactly one line";
    EXPECT_TRUE(r.err.ends_with("\n")) << "no line end";
    EXPECT_TRUE(r.err.starts_with("attnviz-cli")) << "the line does not name the program";
    EXPECT_EQ(controlCharacters(r.err), "") << "raw control characters on stderr";
    for (const std::string& word : row.words)
        EXPECT_NE(r.err.find(word), std::string::npos) << "missing \"" << word << "\"";
    EXPECT_EQ(r.out, "") << "stdout is not empty";
    EXPECT_EQ(snapshot(scene.root()), before) << "something was written, created or removed";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(catalogue()),
                         [](const ::testing::TestParamInfo<Row>& row) {
                             return std::string(row.param.id);
                         });

// ---------------------------------------------------------------------------------------------
// Names at the limit must still work: a 253-byte folder or file name leaves room for nothing
// else, so temporary names must not be built by extending it.

TEST(BadInputLimits, OutputNamesOf253BytesAreWrittenWithNothingElseLeft)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-" + std::to_string(::getpid())));
    const std::string casePath = scene.writeCase(caseTensors());
    const std::string folder = scene.out(std::string(253, 'f'));
    ProcessResult r = runProcess(
        kCli, {"export", "--case", casePath, "--format", "csv", "--out", folder, "--quiet"},
        {kSeconds, kDataBytes});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"head0_weights.csv", "head1_weights.csv"}));

    const std::string dump = scene.out(std::string(241, 'd') + ".safetensors"); // 253 bytes
    r = runProcess(kCli, {"mha", casePath, "--dump", dump, "--quiet"}, {kSeconds, kDataBytes});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::is_regular_file(dump));
    EXPECT_EQ(std::distance(fs::directory_iterator(scene.out()), fs::directory_iterator()), 2);
}

// A dump onto a symbolic link replaces the file the link names and keeps the link: a link such
// as /dev/stdout is never turned into a regular file.
TEST(BadInputLimits, DumpThroughASymbolicLinkKeepsTheLink)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-link-" + std::to_string(::getpid())));
    writeBytes(scene.out("real.safetensors"), "old");
    fs::create_symlink("real.safetensors", scene.out("link.safetensors"));
    const ProcessResult r = runProcess(
        kCli,
        {"mha", scene.writeCase(caseTensors()), "--dump", scene.out("link.safetensors"), "--quiet"},
        {kSeconds, kDataBytes});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(scene.out("link.safetensors")));
    EXPECT_NO_THROW(io::SafetensorsFile::read(scene.out("real.safetensors")));
    EXPECT_EQ(std::distance(fs::directory_iterator(scene.out()), fs::directory_iterator()), 2);
}

// A vocabulary padded past the tokenizer (nanoGPT's 50304 rows for GPT-2's 50257 tokens): greedy
// decoding chooses among the tokens the tokenizer has, as Hugging Face's generate does. The
// padded rows here would win every choice (±1000 along each feature); it failed with "token id
// 50257 is outside the vocabulary of 50257 tokens".
TEST(BadInputLimits, APaddedVocabularyContinuesWithTokensTheTokenizerHas)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-padded-" + std::to_string(::getpid())));
    const fs::path dir = scene.hf("gpt2");
    editText(dir / "config.json", "\"vocab_size\": 50257", "\"vocab_size\": 50304");
    editWeights(dir / "model.safetensors", [](std::vector<RawTensor>& t) {
        RawTensor& wte = tensorNamed(t, "transformer.wte.weight");
        const std::int64_t width = wte.shape[1];
        std::vector<float> padding(static_cast<std::size_t>(47 * width), 0.0f);
        for (std::int64_t k = 0; k < width; ++k) {
            padding[static_cast<std::size_t>(k * width + k)] = 1000.0f;
            padding[static_cast<std::size_t>((width + k) * width + k)] = -1000.0f;
        }
        wte.bytes.append(reinterpret_cast<const char*>(padding.data()), padding.size() * 4);
        wte.shape[0] = 50304;
    });
    const ProcessResult r = runProcess(kCli,
                                       {"trace", "--model", dir.string(), "--text", "Hello",
                                        "--generate", "3", "--dump", scene.dump()},
                                       {kSeconds, kDataBytes});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("generated: "), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
}

// Large PNGs are drawn as few at a time as the memory limit holds: 6000 × 6000 images (216 MiB
// each while encoded) under 300M go one at a time. Four at once peaked at 449 MB.
TEST(BadInputLimits, PngsInFlightStayWithinTheMemoryLimit)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-pngs-" + std::to_string(::getpid())));
    const ProcessResult r =
        runProcess(kCli,
                   {"export", "--model", "genesis", "--text", "and god said", "--layers", "0",
                    "--format", "png", "--width", "6000", "--height", "6000", "--max-memory",
                    "300M", "--out", scene.out("figures"), "--quiet"},
                   {kSeconds, kDataBytes});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(std::distance(fs::directory_iterator(scene.out("figures")), fs::directory_iterator()),
              4);
    EXPECT_LT(r.maxResidentKb, kResidentKb * 300 / 1024)
        << "peak memory " << r.maxResidentKb << " kB";
}

// Pictures that are valid but would be costly to read in full are read as Pillow reads them: to
// the last row, their text chunks skipped. A 48 × 48 PNG whose image data goes on with 16 GiB of
// zeros took 274 s; 40 zTXt chunks of 60 MB each before the picture took 2.5 GB under 256M.
TEST(BadInputLimits, PictureBombsThatPassThePixelCountAreReadInBoundedWork)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-pictures-" + std::to_string(::getpid())));
    PngPicture surplus;
    surplus.width = surplus.height = 48;
    surplus.samples.assign(48 * 48 * 3, 200);
    surplus.surplusZeros = std::uint64_t{16} << 30;
    PngPicture texts = surplus;
    texts.surplusZeros = 0;
    for (int i = 0; i < 40; ++i)
        texts.chunksBeforeData.push_back(zTxtChunk(60u << 20));
    for (const auto& [name, picture] :
         {std::pair{"surplus.png", &surplus}, {"texts.png", &texts}}) {
        const Args args = pictureOf(scene, scene.write(name, pngFile(*picture)),
                                    {"--max-memory", "256M", "--quiet"});
        const ProcessResult r = runProcess(kCli, args, {kSeconds, kDataBytes});
        SCOPED_TRACE(name);
        ASSERT_FALSE(r.timedOut) << "still running after " << kSeconds << " s";
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_LT(r.maxResidentKb, kResidentKb * 256 / 1024)
            << "peak memory " << r.maxResidentKb << " kB";
        fs::remove(scene.out("map.png"));
        fs::remove_all(args[2]); // the model's copy, made again for the next picture
    }
}

// #45 item 5: parsing took 45-55 bytes of memory per byte of JSON: a tokenizer.json carrying an
// 80 MB array of zeros took 3.7 GB under --max-memory 256M (and was accepted), a case file whose
// safetensors header held a 90 MB array took 3.7 GB before it was refused. A document is now
// counted against the limit before it is built, and within 1 GiB when no limit is given.
TEST(BadInputLimits, BigJsonDocumentsAreCountedAgainstTheMemoryLimit)
{
    const Scene scene(fs::temp_directory_path() /
                      ("attnviz-BadInputLimits-json-" + std::to_string(::getpid())));
    // Written and let go before any probe runs: a child's peak memory counts what its parent
    // held when it was forked.
    const fs::path model = scene.hf("tinyllama");
    std::string casePath;
    {
        std::string zeros = "[0";
        zeros.reserve(80u << 20);
        while (zeros.size() + 2 < (80u << 20))
            zeros += ",0";
        zeros += "]";
        std::string tokenizer = io::readFile((model / "tokenizer.json").string());
        ASSERT_EQ(tokenizer.front(), '{');
        scene.write("tinyllama/tokenizer.json",
                    "{\"padding_of_zeros\": " + zeros + ", " + tokenizer.substr(1));
        tokenizer = {};
        const std::string header = "{\"zeros\": " + zeros + "}";
        zeros = {};
        std::string length(8, '\0');
        for (int k = 0; k < 8; ++k)
            length[k] = static_cast<char>((header.size() >> (8 * k)) & 0xff);
        casePath = scene.write("case.safetensors", length + header);
    }

    struct Probe {
        const char* name;
        Args args;
        int exitCode;
        std::vector<std::string> words;
        long residentKb;
    };
    const std::vector<Probe> probes = {
        {"tokenizer under 256M",
         [&] {
             Args a = trace(scene, model.string());
             a.insert(a.end(), {"--max-memory", "256M"});
             return a;
         }(),
         2,
         {"Reading tokenizer.json needs about",
          "of memory; the memory limit you set allows "
          "256.0 MiB"},
         kResidentKb * 256 / 1024},
        {"tokenizer without a limit", trace(scene, model.string()), 0, {}, kResidentKb},
        {"case under 256M",
         [&] {
             Args a = mha(scene, casePath);
             a.insert(a.end(), {"--max-memory", "256M"});
             return a;
         }(),
         2,
         {"Reading the header of 'case.safetensors' needs about", "256.0 MiB"},
         kResidentKb * 256 / 1024},
        {"case without a limit", mha(scene, casePath), 2, {"zeros"}, kResidentKb},
    };
    for (const Probe& probe : probes) {
        SCOPED_TRACE(probe.name);
        const ProcessResult r = runProcess(kCli, probe.args, {kSeconds, kDataBytes});
        ASSERT_FALSE(r.timedOut) << "still running after " << kSeconds << " s";
        EXPECT_EQ(r.exitCode, probe.exitCode) << r.err;
        for (const std::string& word : probe.words)
            EXPECT_NE(r.err.find(word), std::string::npos) << "no '" << word << "' in " << r.err;
        EXPECT_LT(r.maxResidentKb, probe.residentKb) << "peak memory " << r.maxResidentKb << " kB";
    }
}

TEST(BadInputLimits, CatalogueHasAtLeastFortyDistinctRows)
{
    const std::vector<Row> rows = catalogue();
    EXPECT_GE(rows.size(), 40u);
    std::set<std::string> ids;
    for (const Row& row : rows)
        EXPECT_TRUE(ids.insert(row.id).second) << "two rows are called " << row.id;
}

} // namespace
} // namespace attnviz::test
