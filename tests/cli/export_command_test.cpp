// attnviz-cli export end to end (#5): image size and cell order, CSV and .npy values equal to the
// trace, a whole trace numpy reads through its manifest, a handout with a page per step, and
// refusals that leave nothing behind.
#include "engine/multi_head_attention.h"
#include "io/atomic_file.h"
#include "io/attention_case.h"
#include "io/attention_import.h"
#include "io/input_file.h"
#include "io/safetensors.h"
#include "lesson/lesson_steps.h"
#include "support/process.h"
#include "support/safetensors_tensor.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kCases = std::string(ATTNVIZ_TEST_DATA_DIR) + "/mha/";

class ExportCommand : public TempFolderTest {
protected:
    ProcessResult exportOk(std::vector<std::string> args) const
    {
        args.insert(args.begin(), "export");
        args.insert(args.end(), {"--out", dir()});
        ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return r;
    }
    std::string refusal(std::vector<std::string> args, int code = 2) const
    {
        args.insert(args.begin(), "export");
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, code) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        return r.err;
    }
    std::vector<std::string> files() const
    {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(m_dir))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

/// The engine's trace of a reference case, computed here for comparison.
engine::AttentionTrace traceOf(const std::string& name)
{
    const auto c =
        io::loadAttentionCase(io::SafetensorsFile::read(kCases + name + ".case.safetensors"));
    return engine::MultiHeadAttention(c.weights, c.description)
        .forward(c.query, c.key, c.value, c.mask);
}

TEST_F(ExportCommand, ModelExportNamesEveryLayerBlockAndHead)
{
    const ProcessResult r = exportOk({"--model", "reverse", "--text", "abc", "--format", "png",
                                      "--width", "300", "--height", "260"});
    const auto names = files();
    EXPECT_EQ(names.size(), 24u); // 2 layers × (self + masked_self + cross) × 4 heads
    EXPECT_TRUE(std::count(names.begin(), names.end(), "layer0_self_head3_weights.png"));
    EXPECT_TRUE(std::count(names.begin(), names.end(), "layer1_cross_head0_weights.png"));
    EXPECT_EQ(r.err, ""); // stderr is not a terminal here: no progress bar frames in a log
}

TEST_F(ExportCommand, SelectionOfLayersHeadsAndSteps)
{
    exportOk({"--model", "reverse", "--text", "abc", "--format", "csv", "--layers", "1", "--blocks",
              "cross", "--heads", "0-1", "--steps", "scores,concat", "--quiet"});
    EXPECT_EQ(files(),
              (std::vector<std::string>{"layer1_cross_concat.csv", "layer1_cross_head0_scores.csv",
                                        "layer1_cross_head1_scores.csv"}));
}

// #22: a list names a set. `--steps weights,weights` once planned one file twice and failed
// writing it ("No such file or directory"); every list option drops what it repeats.
TEST_F(ExportCommand, ASelectionNamedTwiceIsExportedOnce)
{
    exportOk({"--model", "reverse", "--text", "abc", "--format", "csv", "--layers", "1,1,1-1",
              "--blocks", "cross,cross", "--heads", "0,0,0-0", "--steps", "weights,weights",
              "--quiet"});
    EXPECT_EQ(files(), std::vector<std::string>{"layer1_cross_head0_weights.csv"});
}

TEST_F(ExportCommand, PngHasTheRequestedSizeAndResolution)
{
    exportOk({"--case", kCases + "causal.case.safetensors", "--heads", "1", "--format", "png",
              "--width", "640", "--height", "480", "--dpi", "192", "--quiet"});
    // A causal case has two batch items; names say which.
    EXPECT_EQ(files(),
              (std::vector<std::string>{"batch0_head1_weights.png", "batch1_head1_weights.png"}));
    const std::string png = io::readFile(path("batch0_head1_weights.png"));
    ASSERT_EQ(png.substr(1, 3), "PNG");
    auto be32 = [&](std::size_t at) {
        return (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
            (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
            (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
            static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 3]));
    };
    EXPECT_EQ(be32(16), 640u); // IHDR width
    EXPECT_EQ(be32(20), 480u); // IHDR height
    const auto phys = png.find("pHYs");
    ASSERT_NE(phys, std::string::npos);
    EXPECT_NEAR(be32(phys + 4), 192 / 0.0254, 1.0); // pixels per metre
}

TEST_F(ExportCommand, CsvEqualsTheTraceWithTokenLabels)
{
    exportOk({"--case", kCases + "cross_attention.case.safetensors", "--steps", "weights,masked",
              "--heads", "1", "--format", "csv", "--quiet"});
    const engine::AttentionTrace trace = traceOf("cross_attention");
    std::istringstream csv(io::readFile(path("head1_weights.csv")));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "query\\key,0,1,2,3,4,5,6");
    int rows = 0;
    while (std::getline(csv, line)) {
        std::istringstream cells(line);
        std::string cell;
        std::getline(cells, cell, ',');
        EXPECT_EQ(cell, std::to_string(rows));
        for (int k = 0; k < 7; ++k) {
            std::getline(cells, cell, ',');
            EXPECT_EQ(std::stof(cell), trace.weights.at({0, 1, rows, k})) << rows << "," << k;
        }
        ++rows;
    }
    EXPECT_EQ(rows, 4);
}

TEST_F(ExportCommand, CsvWritesMinusInfinityForBlockedScores)
{
    exportOk({"--case", kCases + "causal.case.safetensors", "--steps", "masked", "--heads", "0",
              "--format", "csv", "--quiet"});
    std::istringstream csv(io::readFile(path("batch0_head0_masked.csv")));
    std::string header, first;
    std::getline(csv, header);
    std::getline(csv, first);
    EXPECT_THAT(first, HasSubstr(",-inf,-inf,-inf,-inf,-inf"));
}

TEST_F(ExportCommand, NpyAndTraceLoadInNumpyWithTheEnginesValues)
{
    exportOk({"--case", kCases + "self_attention.case.safetensors", "--steps", "weights", "--heads",
              "2", "--format", "npy", "--quiet"});
    exportOk({"--case", kCases + "self_attention.case.safetensors", "--format", "safetensors",
              "--quiet"});
    const engine::AttentionTrace trace = traceOf("self_attention");
    // numpy, without AttnViz: .npy directly; the trace through its manifest and the safetensors
    // layout (8-byte header length, JSON header, raw little-endian data).
    const std::string script = R"(
import json, struct, sys, numpy as np
d = sys.argv[1]
w = np.load(d + '/head2_weights.npy')
print(w.dtype, w.shape, repr(float(w[1, 3])))
manifest = json.load(open(d + '/trace.json'))
raw = open(d + '/' + manifest['data'], 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]
header = json.loads(raw[8:8 + n])
entry = next(t for t in manifest['tensors'] if t['name'] == 'context')
info = header['context']
a, b = info['data_offsets']
context = np.frombuffer(raw[8 + n + a:8 + n + b], dtype='<f4').reshape(entry['shape'])
print(entry['axes'], repr(float(context[0, 3, 4, 1])))
)";
    const ProcessResult py = runProcess("/usr/bin/python3", {"-c", script, dir()});
    ASSERT_EQ(py.exitCode, 0) << py.err;
    std::istringstream lines(py.out);
    std::string first, second;
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_THAT(first, HasSubstr("float32 (5, 5)"));
    EXPECT_FLOAT_EQ(std::stof(first.substr(first.rfind(' ') + 1)), trace.weights.at({0, 2, 1, 3}));
    EXPECT_THAT(second, HasSubstr("['batch', 'head', 'query', 'd_v']"));
    EXPECT_FLOAT_EQ(std::stof(second.substr(second.rfind(' ') + 1)),
                    trace.context.at({0, 3, 4, 1}));
}

TEST_F(ExportCommand, HandoutHasOnePagePerStep)
{
    exportOk({"--model", "reverse", "--text", "abc", "--layers", "1", "--blocks", "cross",
              "--format", "handout", "--quiet"});
    const ProcessResult info = runProcess("/usr/bin/pdfinfo", {path("layer1_cross_handout.pdf")});
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_THAT(info.out,
                HasSubstr("Pages:           " +
                          std::to_string(
                              attnviz::lesson::shownLessonSteps(engine::AttentionTrace{}).size())));
}

TEST_F(ExportCommand, SvgAndPdfAreVectorDocuments)
{
    exportOk({"--case", kCases + "single_head.case.safetensors", "--format", "svg", "--quiet"});
    exportOk({"--case", kCases + "single_head.case.safetensors", "--format", "pdf", "--quiet"});
    EXPECT_THAT(io::readFile(path("head0_weights.svg")), HasSubstr("<svg"));
    const ProcessResult info = runProcess("/usr/bin/pdfinfo", {path("head0_weights.pdf")});
    EXPECT_THAT(info.out, HasSubstr("Pages:           1"));
}

TEST_F(ExportCommand, ExistingFileStopsTheExportBeforeAnythingIsWritten)
{
    io::writeFileAtomically(path("layer1_cross_head2_weights.png"), std::string("keep me"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--format", "png", "--out", dir()}),
                HasSubstr("layer1_cross_head2_weights.png already exists; nothing was written"));
    EXPECT_EQ(files(), (std::vector<std::string>{"layer1_cross_head2_weights.png"}));
    EXPECT_EQ(io::readFile(path("layer1_cross_head2_weights.png")), "keep me");
    exportOk({"--model", "reverse", "--text", "abc", "--format", "png", "--overwrite", "--quiet"});
    EXPECT_EQ(files().size(), 24u);
    EXPECT_NE(io::readFile(path("layer1_cross_head2_weights.png")), "keep me");
}

TEST_F(ExportCommand, FailedWriteExitsOneAndLeavesNoPartialFile)
{
    // A folder where the image should go makes the write fail even for root.
    fs::create_directory(m_dir / "head0_weights.png");
    const std::string err = refusal({"--case", kCases + "single_head.case.safetensors", "--format",
                                     "png", "--overwrite", "--out", dir()},
                                    1);
    EXPECT_THAT(err, HasSubstr("head0_weights.png"));
    EXPECT_EQ(files(), (std::vector<std::string>{"head0_weights.png"}));
    EXPECT_TRUE(fs::is_directory(m_dir / "head0_weights.png"));
}

TEST_F(ExportCommand, MissingOutputFolderIsCreatedWithItsParents) // #13: README's own example
{
    const ProcessResult r = runProcess(kCli,
                                       {"export", "--case", kCases + "single_head.case.safetensors",
                                        "--format", "csv", "--out", path("figs/new"), "--quiet"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::exists(m_dir / "figs" / "new" / "head0_weights.csv"));
}

TEST_F(ExportCommand, HandoutOfACrossAttentionCaseWorks) // #9: this aborted with std::out_of_range
{
    exportOk(
        {"--case", kCases + "cross_attention.case.safetensors", "--format", "handout", "--quiet"});
    const ProcessResult info = runProcess("/usr/bin/pdfinfo", {path("handout.pdf")});
    EXPECT_THAT(info.out,
                HasSubstr("Pages:           " +
                          std::to_string(
                              attnviz::lesson::shownLessonSteps(engine::AttentionTrace{}).size())));
}

TEST_F(ExportCommand, BadArgumentsAreOneSentence)
{
    const std::string c = kCases + "single_head.case.safetensors";
    EXPECT_THAT(refusal({"--case", c, "--format", "bmp", "--out", dir()}),
                HasSubstr("--format is 'bmp'; expected png, svg"));
    EXPECT_THAT(refusal({"--case", c, "--format", "png"}), HasSubstr("export needs --out"));
    io::writeFileAtomically(path("plain.txt"), std::string_view("x"));
    EXPECT_THAT(refusal({"--case", c, "--format", "png", "--out", path("plain.txt")}),
                HasSubstr("is a file; expected a folder"));
    fs::remove(path("plain.txt"));
    EXPECT_THAT(refusal({"--format", "png", "--out", dir()}),
                HasSubstr("export needs one of --model with --text, --case or --attentions"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--layers", "7", "--format", "png",
                         "--out", dir()}),
                HasSubstr("Layer 7 does not exist; reverse has layers 0–1."));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--heads", "4", "--format", "png",
                         "--out", dir()}),
                HasSubstr("Head 4 does not exist"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--steps", "softmax", "--format",
                         "png", "--out", dir()}),
                HasSubstr("--steps has 'softmax'"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--layers", "x", "--format", "png",
                         "--out", dir()}),
                HasSubstr("--layers has 'x'"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--generate", "x", "--format",
                         "png", "--out", dir()}),
                HasSubstr("--generate is 'x'; expected an integer from 1 to"));
    EXPECT_THAT(refusal({"--case", c, "--width", "0", "--format", "png", "--out", dir()}),
                HasSubstr("--width is '0'; expected an integer from 50 to 20000"));
    EXPECT_THAT(
        refusal({"--case", dir() + "/missing.safetensors", "--format", "png", "--out", dir()}),
        HasSubstr("missing.safetensors"));
    EXPECT_TRUE(files().empty());
}

TEST_F(ExportCommand, ImportedAttentionsExportLikeAModelsWeights)
{
    const std::string file = std::string(ATTNVIZ_TEST_DATA_DIR) + "/attentions/cross.safetensors";
    exportOk({"--attentions", file, "--layers", "1", "--heads", "0", "--format", "csv", "--quiet"});
    EXPECT_EQ(files(), std::vector<std::string>{"layer1_cross_head0_weights.csv"});
    // Query rows are the file's query tokens, columns its key tokens.
    const std::string csv = io::readFile(path("layer1_cross_head0_weights.csv"));
    const auto imported = io::readAttentionImport(file);
    std::string header = "query\\key";
    for (const std::string& key : imported.keyTokens)
        header += "," + key;
    EXPECT_EQ(csv.substr(0, csv.find('\n')), header);

    const std::string out = path("handout");
    EXPECT_THAT(refusal({"--attentions", file, "--format", "handout", "--out", out}),
                HasSubstr("attention weights only"));
    EXPECT_THAT(
        refusal({"--attentions", file, "--steps", "scores", "--format", "png", "--out", out}),
        HasSubstr("holds attention weights only (computed elsewhere), so it has the weights "
                  "step and no scores step"));
    // With every step asked for, too (#22: this printed an internal message about a rank-0
    // tensor).
    EXPECT_THAT(
        refusal({"--attentions", file, "--steps", "all", "--format", "png", "--out", out}),
        HasSubstr("tiny-t5 holds attention weights only (computed elsewhere), so it has the "
                  "weights step and no q_proj step."));
    EXPECT_THAT(refusal({"--attentions", file, "--text", "x", "--format", "png", "--out", out}),
                HasSubstr("--text applies to --model"));
    EXPECT_FALSE(fs::exists(out));
}

// #22: the names an import carries, its model's and its tokens, reach exported files as text:
// escaped in SVG (the model's name made a live <script> there), neutralised in CSV.
TEST_F(ExportCommand, AnImportsNamesReachExportsAsText)
{
    io::SafetensorsWriter import = io::SafetensorsWriter::inMemory();
    const std::vector<float> weights(2 * 2 * 2, 0.5f);
    import.addF32("layer0", {2, 2, 2}, weights);
    import.setMetadata("tokens", R"(["=1+1", "<b>"])");
    import.setMetadata("model", "gpt2</title><script>alert(1)</script><title>\x1b");
    const std::string file = path("in.safetensors");
    io::writeFileAtomically(file, import.finish());

    exportOk({"--attentions", file, "--heads", "0", "--format", "svg", "--quiet"});
    const std::string svg = io::readFile(path("layer0_self_head0_weights.svg"));
    EXPECT_THAT(svg,
                HasSubstr("<title>gpt2&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
                          "&lt;title&gt;\\x1b · layer 0 · self · head 0 · weights</title>"));
    EXPECT_THAT(svg, ::testing::Not(HasSubstr("<script")));
    EXPECT_EQ(svg.find('\x1b'), std::string::npos);

    exportOk({"--attentions", file, "--heads", "0", "--format", "csv", "--quiet"});
    const std::string csv = io::readFile(path("layer0_self_head0_weights.csv"));
    EXPECT_EQ(csv, "query\\key,'=1+1,<b>\n'=1+1,0.5,0.5\n<b>,0.5,0.5\n");
}

// #27: --format html writes one page, whatever the selection; --steps narrows its walkthrough,
// the walkthrough's block is the first selected; --bits is checked before anything is written.
TEST_F(ExportCommand, HtmlWritesOnePageOfTheSelection)
{
    exportOk({"--model", "reverse", "--text", "abc", "--layers", "1", "--blocks", "cross",
              "--steps", "scores,weights", "--format", "html", "--bits", "8"});
    EXPECT_EQ(files(), std::vector<std::string>{"lesson.html"});
    const std::string page = io::readFile(dir() + "/lesson.html");
    EXPECT_NE(page.find("data-step=\"scores\""), std::string::npos);
    EXPECT_NE(page.find("data-step=\"softmax\""), std::string::npos);
    EXPECT_EQ(page.find("data-step=\"projections\""), std::string::npos);
    EXPECT_NE(page.find("\"bits\":8"), std::string::npos);
    EXPECT_NE(page.find("\"block\":\"cross\""), std::string::npos);
    EXPECT_EQ(page.find("\"block\":\"self\""), std::string::npos);

    fs::remove(dir() + "/lesson.html");
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--format", "html", "--bits", "4",
                         "--out", dir()}),
                HasSubstr("expected 8 or 16"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--format", "csv", "--bits", "8",
                         "--out", dir()}),
                HasSubstr("--bits applies to --format html"));
    EXPECT_THAT(refusal({"--model", "reverse", "--text", "abc", "--text", "def", "--format", "html",
                         "--out", dir()}),
                HasSubstr("one text at a time"));
    EXPECT_TRUE(files().empty());
}

} // namespace
} // namespace attnviz::test
