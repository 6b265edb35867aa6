// attnviz-cli export's figure options (#23): a fixed colour range gives the same figure whatever
// else is exported, files state their colour scale, gathered figures (heads, layers × heads),
// token ranges on both axes, maps combined over heads, every label or a refusal, and one
// sentence for each bad value.
#include "support/process.h"
#include "support/sanitizers.h"
#include "support/temp_folder.h"

#include "io/atomic_file.h"
#include "io/input_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <regex>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ATTNVIZ_CLI_PATH;
const std::string kText = "in the beginning god created the heaven";

class FigureOptions : public TempFolderTest {
protected:
    // Exports genesis on kText into `sub` with `args`; the files written, sorted.
    std::vector<std::string> exportTo(const std::string& sub, std::vector<std::string> args) const
    {
        args.insert(
            args.begin(),
            {"export", "--model", "genesis", "--text", kText, "--quiet", "--out", path(sub)});
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        std::vector<std::string> names;
        if (fs::exists(path(sub)))
            for (const auto& e : fs::directory_iterator(path(sub)))
                names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    std::string refusal(std::vector<std::string> args) const
    {
        args.insert(
            args.begin(),
            {"export", "--model", "genesis", "--text", kText, "--quiet", "--out", path("refused")});
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(path("refused")));
        return r.err;
    }
    std::string file(const std::string& name) const { return io::readFile(path(name)); }
};

// The values of a float32 .npy file.
std::vector<float> npyValues(const std::string& bytes)
{
    const std::size_t header =
        static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    std::vector<float> values((bytes.size() - 10 - header) / 4);
    std::memcpy(values.data(), bytes.data() + 10 + header, values.size() * 4);
    return values;
}

TEST_F(FigureOptions, AFixedRangeGivesTheSameFigureWhateverElseIsExported)
{
    // The scores: every head's largest differs (the weights of a causal model all reach 1).
    const std::string name = "layer1_masked_self_head2_scores.svg";
    exportTo("alone", {"--layers", "1", "--heads", "2", "--format", "svg", "--steps", "scores"});
    exportTo("all", {"--format", "svg", "--steps", "scores"});
    // Shared per step, the range follows the set: the same head looks different.
    EXPECT_TRUE(file("alone/" + name) != file("all/" + name));
    exportTo("fixedAlone",
             {"--layers", "1", "--heads", "2", "--format", "svg", "--steps", "scores", "--vmin",
              "-8", "--vmax", "8"});
    exportTo("fixedAll", {"--format", "svg", "--steps", "scores", "--vmin", "-8", "--vmax", "8"});
    EXPECT_TRUE(file("fixedAlone/" + name) == file("fixedAll/" + name));
    EXPECT_THAT(file("fixedAll/" + name), HasSubstr("range -8 to 8, fixed by the user"));
}

// (A PNG keeps it in a compressed text chunk; tests/render reads that with Qt.)
TEST_F(FigureOptions, SvgAndPdfStateTheirColourScale)
{
    for (const std::string format : {"svg", "pdf"}) {
        exportTo(format,
                 {"--layers", "0", "--heads", "0", "--format", format, "--cmap", "magma", "--scale",
                  "log", "--range", "map"});
        const std::string bytes = file(format + "/layer0_masked_self_head0_weights." + format);
        EXPECT_THAT(bytes, HasSubstr("colour map magma, log scale")) << format;
        EXPECT_THAT(bytes, HasSubstr("set by this map alone")) << format;
    }
}

TEST_F(FigureOptions, GatheredFiguresAreOnePerBlockAndStepOrPerLayer)
{
    EXPECT_EQ(
        exportTo("grid", {"--figure", "grid", "--format", "png", "--steps", "weights,scores"}),
        (std::vector<std::string>{"masked_self_scores_grid.png", "masked_self_weights_grid.png"}));
    EXPECT_EQ(exportTo("heads", {"--figure", "heads", "--format", "svg"}),
              (std::vector<std::string>{"layer0_masked_self_heads_weights.svg",
                                        "layer1_masked_self_heads_weights.svg",
                                        "layer2_masked_self_heads_weights.svg"}));
    // Each panel keeps its head number.
    const std::string svg = file("heads/layer1_masked_self_heads_weights.svg");
    for (const char* head : {">head 0<", ">head 1<", ">head 2<", ">head 3<"})
        EXPECT_THAT(svg, HasSubstr(head));
}

TEST_F(FigureOptions, ATokenRangeCutsBothAxesOfTheMatrix)
{
    exportTo("full", {"--layers", "0", "--heads", "0", "--format", "csv"});
    exportTo("cut", {"--layers", "0", "--heads", "0", "--format", "csv", "--tokens", "3:7"});
    const std::string cut = file("cut/layer0_masked_self_head0_weights.csv");
    EXPECT_EQ(std::count(cut.begin(), cut.end(), '\n'), 5) << cut; // a header and 4 rows
    const std::string header = cut.substr(0, cut.find('\n'));
    EXPECT_EQ(std::count(header.begin(), header.end(), ','), 4) << header;
    // Row 3 of the full matrix, columns 3–6, is the cut's first row.
    const std::string full = file("full/layer0_masked_self_head0_weights.csv");
    std::vector<std::string> lines;
    std::stringstream in(full);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    std::vector<std::string> cells;
    std::stringstream row(lines[4]);
    for (std::string cell; std::getline(row, cell, ',');)
        cells.push_back(cell);
    const std::string cutFirst = cut.substr(cut.find('\n') + 1);
    EXPECT_EQ(cutFirst.substr(0, cutFirst.find('\n')),
              cells[0] + "," + cells[4] + "," + cells[5] + "," + cells[6] + "," + cells[7]);
}

TEST_F(FigureOptions, TheMeanOverHeadsIsTheMeanOfTheHeads)
{
    exportTo("heads", {"--layers", "2", "--format", "npy"});
    EXPECT_EQ(exportTo("mean", {"--layers", "2", "--format", "npy", "--over-heads", "mean"}),
              (std::vector<std::string>{"layer2_masked_self_mean_heads_weights.labels.json",
                                        "layer2_masked_self_mean_heads_weights.npy"}));
    const std::vector<float> mean =
        npyValues(file("mean/layer2_masked_self_mean_heads_weights.npy"));
    std::vector<double> sum(mean.size(), 0.0);
    for (int h = 0; h < 4; ++h) {
        const std::vector<float> head =
            npyValues(file("heads/layer2_masked_self_head" + std::to_string(h) + "_weights.npy"));
        ASSERT_EQ(head.size(), mean.size());
        for (std::size_t i = 0; i < head.size(); ++i)
            sum[i] += head[i];
    }
    for (std::size_t i = 0; i < mean.size(); ++i)
        ASSERT_NEAR(mean[i], sum[i] / 4, 1e-6) << i;
}

// A figure whose panels cannot give every cell a pixel is refused before anything is written,
// naming a size that would do, and the export at that size draws it (issue #45: a grid of
// 2 layers × 32 heads at 900 × 800 wrote panels without a single cell).
TEST_F(FigureOptions, AGridThatCannotShowItsCellsNamesASizeThatCan)
{
    const std::vector<std::string> grid{"--format", "png",     "--figure",
                                        "grid",     "--steps", "weights"};
    auto small = grid;
    small.insert(small.end(), {"--width", "300", "--height", "200"});
    const std::string why = refusal(small);
    EXPECT_THAT(why,
                HasSubstr("Every cell of masked_self_weights_grid (12 panels of 39 × 39) "
                          "does not get a pixel in a 300 × 200 image"));
    std::smatch size;
    ASSERT_TRUE(std::regex_search(why, size, std::regex("a (\\d+) × (\\d+) image would hold them")))
        << why;
    auto enough = grid;
    enough.insert(enough.end(), {"--width", size[1].str(), "--height", size[2].str()});
    EXPECT_EQ(exportTo("enough", enough), std::vector<std::string>{"masked_self_weights_grid.png"});
    // Under --labels all the sentence says the labels need room too.
    small.insert(small.end(), {"--labels", "all"});
    EXPECT_THAT(refusal(small),
                HasSubstr("Every cell and every label of masked_self_weights_grid"));
}

TEST_F(FigureOptions, AllLabelsAreDrawnOrTheExportSaysWhyNot)
{
    EXPECT_THAT(refusal({"--layers", "0", "--heads", "0", "--format", "png", "--labels", "all",
                         "--width", "300", "--height", "300"}),
                HasSubstr("does not fit a 300 × 300 image"));
    exportTo("all", {"--layers", "0", "--heads", "0", "--format", "svg", "--labels", "all"});
    // Every key label is drawn: ␣ for each of the six spaces, as many as the text has.
    const std::string svg = file("all/layer0_masked_self_head0_weights.svg");
    std::size_t marks = 0;
    for (std::size_t at = svg.find("␣"); at != std::string::npos; at = svg.find("␣", at + 1))
        ++marks;
    EXPECT_EQ(marks, 12u) << "six spaces, as row and as column labels";
}

// #23.6: ten sentences, one load: a file of texts, one per line, is a batch whose files are
// named by text; --whole-file keeps every byte, the last newline too ("$(cat FILE)" drops it).
// A batch holds one text's run and maps at a time (it kept every text's until the end: 300 short
// lines took 104 MB under --max-memory 32M), and stays one transaction: a text refused at the end
// leaves none of the files of the texts before it.
TEST_F(FigureOptions, ABatchHoldsOneTextAtATimeAndWritesAllOrNothing)
{
    const auto peakKb = [&](int lines, const std::string& sub) {
        std::string texts;
        for (int i = 0; i < lines; ++i)
            texts += "abcd\n";
        io::writeFileAtomically(path(sub + ".txt"), texts);
        const ProcessResult r =
            runProcess(kCli,
                       {"export", "--model", "reverse", "--text-file", path(sub + ".txt"),
                        "--format", "csv", "--quiet", "--out", path(sub)});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return r.maxResidentKb;
    };
    const long few = peakKb(20, "few"), many = peakKb(400, "many");
    EXPECT_EQ(std::distance(fs::directory_iterator(path("many")), fs::directory_iterator()),
              400 * 24); // each text: 2 layers × 3 blocks × 4 heads
#if !defined(ATTNVIZ_UNDER_ASAN)
    // (AddressSanitizer keeps freed memory in quarantine, so its peak grows with any churn.)
    EXPECT_LT(many, few + 16 * 1024) << "20 texts: " << few << " kB, 400 texts: " << many << " kB";
#else
    (void)few;
    (void)many;
#endif
    io::writeFileAtomically(path("late.txt"), std::string_view("abcd\nabcd\nabcd\nab~d\n"));
    const ProcessResult late =
        runProcess(kCli,
                   {"export", "--model", "reverse", "--text-file", path("late.txt"), "--format",
                    "csv", "--quiet", "--out", path("late")});
    EXPECT_EQ(late.exitCode, 2) << late.err;
    EXPECT_THAT(late.err, HasSubstr("\"~\""));
    EXPECT_FALSE(fs::exists(path("late")));
}

TEST_F(FigureOptions, ATextFileIsABatchOrOneTextWithEveryByte)
{
    io::writeFileAtomically(path("texts.txt"),
                            std::string_view("in the beginning\r\n\nand god said\nlet there be\n"));
    EXPECT_EQ(exportTo("batch",
                       {"--text-file", path("texts.txt"), "--layers", "0", "--heads", "0",
                        "--format", "csv", "--text", "light"}),
              (std::vector<std::string>{"text0_layer0_masked_self_head0_weights.csv",
                                        "text1_layer0_masked_self_head0_weights.csv",
                                        "text2_layer0_masked_self_head0_weights.csv",
                                        "text3_layer0_masked_self_head0_weights.csv",
                                        "text4_layer0_masked_self_head0_weights.csv"}));
    // The --text options come first (kText, "light"), then the file's lines in order, without
    // their line endings: "in the beginning" is 16 characters, a token each.
    const std::string third = file("batch/text2_layer0_masked_self_head0_weights.csv");
    EXPECT_EQ(std::count(third.begin(), third.end(), '\n'), 17) << third;

    const std::string gpt2 = std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/gpt2";
    io::writeFileAtomically(path("whole.txt"), std::string_view("a cat\n"));
    const auto rows = [&](const std::string& sub, std::vector<std::string> args) {
        args.insert(args.begin(),
                    {"export", "--model", gpt2, "--quiet", "--layers", "0", "--heads", "0",
                     "--format", "csv", "--out", path(sub)});
        const ProcessResult r = runProcess(kCli, args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const std::string csv = file(sub + "/layer0_masked_self_head0_weights.csv");
        return std::count(csv.begin(), csv.end(), '\n') - 1;
    };
    const auto wholeFile = rows("whole", {"--text-file", path("whole.txt"), "--whole-file"});
    EXPECT_EQ(wholeFile, rows("exact", {"--text", "a cat\n"}));
    EXPECT_EQ(wholeFile, rows("cut", {"--text", "a cat"}) + 1) << "the newline is a token";
    EXPECT_THAT(refusal({"--format", "csv", "--text-file", path("nothing.txt")}),
                HasSubstr("--text-file"));
    EXPECT_THAT(refusal({"--format", "safetensors", "--text", "a", "--text", "b"}),
                HasSubstr("one text at a time"));
}

// A paper's font: --font-family latex is Computer Modern (fonts-cmu), embedded in the PDF.
TEST_F(FigureOptions, TheLatexFamilyIsComputerModern)
{
    exportTo("latex",
             {"--layers", "0", "--heads", "0", "--format", "pdf", "--font-family", "latex"});
    EXPECT_THAT(file("latex/layer0_masked_self_head0_weights.pdf"), HasSubstr("CMUSerif"));
}

// #23.7: one spelling of a token in the trace manifest, the CSV, the .npy's labels and the
// figures: the text it stands for with ␣ for a space, and the vocabulary's own ("Ġcat") apart.
TEST_F(FigureOptions, ATokenIsSpelledTheSameInEveryFile)
{
    const std::string gpt2 = std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/gpt2";
    for (const std::string format : {"csv", "npy", "svg", "safetensors"}) {
        const ProcessResult r =
            runProcess(kCli,
                       {"export", "--model", gpt2, "--text", "the cat", "--layers", "0", "--heads",
                        "0", "--format", format, "--quiet", "--out", path("s")});
        ASSERT_EQ(r.exitCode, 0) << r.err;
    }
    const std::string base = "s/layer0_masked_self_head0_weights.";
    EXPECT_THAT(file(base + "csv"), HasSubstr("the,␣cat\n"));
    EXPECT_THAT(file(base + "labels.json"), HasSubstr("\"␣cat\""));
    EXPECT_THAT(file(base + "svg"), HasSubstr(">␣cat<"));
    const std::string manifest = file("s/trace.json");
    EXPECT_THAT(manifest, HasSubstr("\"␣cat\""));
    EXPECT_THAT(manifest, HasSubstr("\"Ġcat\"")) << "the vocabulary's spelling, as pieces";
    for (const std::string& f :
         {file(base + "csv"), file(base + "labels.json"), file(base + "svg")})
        EXPECT_EQ(f.find("Ġ"), std::string::npos);
}

// A CSV numpy.genfromtxt reads as a spreadsheet does, whatever the tokens: a comma, quotes and
// # (a comment to numpy) in labels would shift or cut its rows.
TEST_F(FigureOptions, NumpyGenfromtxtReadsTheCsvWhateverTheTokens)
{
    const std::string gpt2 = std::string(ATTNVIZ_TEST_DATA_DIR) + "/hf/gpt2";
    const ProcessResult r =
        runProcess(kCli,
                   {"export", "--model", gpt2, "--text", "a, \"b\" #c =1", "--layers", "0",
                    "--heads", "0", "--format", "csv", "--quiet", "--out", path("csv")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string script =
        "import numpy, sys\n"
        "a = numpy.genfromtxt(sys.argv[1], delimiter=',', skip_header=1)[:, 1:]\n"
        "assert a.shape == (9, 9), a.shape\n"
        "assert abs(a.sum(axis=1) - 1).max() < 1e-5, a.sum(axis=1)\n"
        "print('ok')\n";
    const ProcessResult py = runProcess(
        "/usr/bin/python3", {"-c", script, path("csv/layer0_masked_self_head0_weights.csv")});
    EXPECT_EQ(py.exitCode, 0) << py.err;
    EXPECT_EQ(py.out, "ok\n");
}

TEST_F(FigureOptions, BadValuesAreOneSentenceEach)
{
    EXPECT_THAT(refusal({"--format", "png", "--cmap", "jet"}),
                HasSubstr("--colour-map is 'jet'; expected viridis, magma"));
    EXPECT_THAT(refusal({"--format", "png", "--steps", "scores", "--scale", "log"}),
                HasSubstr("scores is signed"));
    EXPECT_THAT(refusal({"--format", "png", "--tokens", "5:2"}), HasSubstr("is empty"));
    EXPECT_THAT(refusal({"--format", "png", "--tokens", "500:"}), HasSubstr("beyond the"));
    EXPECT_THAT(refusal({"--format", "png", "--range", "fixed", "--vmin", "0"}),
                HasSubstr("needs both --vmin and --vmax"));
    EXPECT_THAT(refusal({"--format", "png", "--vmin", "1", "--vmax", "0.5"}),
                HasSubstr("--vmin must be below --vmax"));
    // Ends a float cannot tell apart, or a width no number holds: refused before the model runs
    // (a range one double apart once made the colour bar's ticks grow without end).
    EXPECT_THAT(refusal({"--format", "png", "--vmin", "1", "--vmax", "1.0000000000000002"}),
                HasSubstr("The colour range 1 to 1.0000000000000002 is narrower than a float can "
                          "tell apart"));
    EXPECT_THAT(refusal({"--format", "png", "--vmin", "-1e308", "--vmax", "1e308"}),
                HasSubstr("is wider than a number can hold"));
    // The top from the data (the causal first row's weight 1), the bottom a hair below it.
    EXPECT_THAT(refusal({"--format", "png", "--steps", "weights", "--vmin", "0.9999999999999999"}),
                HasSubstr("narrower than a float can tell apart"));
    EXPECT_THAT(refusal({"--format", "csv", "--figure", "grid"}), HasSubstr("one matrix each"));
    EXPECT_THAT(refusal({"--format", "png", "--font-family", "No Such Font"}),
                HasSubstr("not installed"));
    EXPECT_THAT(refusal({"--format", "png", "--title", "x", "--no-title"}),
                HasSubstr("contradict"));
}

} // namespace
} // namespace attnviz::test
