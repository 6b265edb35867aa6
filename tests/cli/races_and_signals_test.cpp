// Output that survives a race and a signal (#22), through the real binary: two identical exports
// into one new folder at the same moment leave the winner's files whole, and SIGINT, SIGTERM or
// SIGHUP part-way through an export or a trace --dump leave nothing behind.
#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/safetensors.h"
#include "support/process.h"
#include "support/temp_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>

namespace attnviz::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Args = std::vector<std::string>;

const std::string kCli = ATTNVIZ_CLI_PATH;
constexpr int kSeconds = 60;

// Every layer and step of genesis: 111 files, a few tenths of a second of work.
Args genesisExport(const fs::path& out, const std::string& width)
{
    return {"export",   "--model",    "genesis", "--text",   "and god said let there be light",
            "--layers", "all",        "--steps", "all",      "--format",
            "png",      "--width",    width,     "--height", width,
            "--out",    out.string(), "--quiet"};
}

using ConcurrentExports = TempFolderTest;

// The loser once removed the folder it believed it had created, with the winner's 111 files, in
// 5 rounds of 12. In every round now exactly one wins, its files are all there, and the loser
// says why in one sentence.
TEST_F(ConcurrentExports, TheLoserNeverRemovesTheWinnersFiles)
{
    const fs::path alone = m_dir / "alone";
    ASSERT_EQ(runProcess(kCli, genesisExport(alone, "60"), {kSeconds}).exitCode, 0);
    const std::vector<std::string> complete = entries(alone);
    ASSERT_EQ(complete.size(), 111u);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int round = 0; round < 16 && std::chrono::steady_clock::now() < deadline; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const fs::path out = m_dir / ("new" + std::to_string(round));
        const StartedProcess first = startProcess(kCli, genesisExport(out, "60"));
        const StartedProcess second = startProcess(kCli, genesisExport(out, "60"));
        const ProcessResult a = finishProcess(first, {kSeconds});
        const ProcessResult b = finishProcess(second, {kSeconds});
        ASSERT_EQ((a.exitCode == 0) + (b.exitCode == 0), 1) << a.err << b.err;
        const ProcessResult& loser = a.exitCode == 0 ? b : a;
        EXPECT_EQ(loser.exitCode, 2);
        EXPECT_THAT(loser.err, HasSubstr("already exists; nothing was written"));
        ASSERT_TRUE(fs::is_directory(out)) << "the winner's folder is gone";
        EXPECT_EQ(entries(out), complete);
    }
}

/// Whether a writer has begun: an entry of `folder` that `started` accepts.
bool appeared(const fs::path& folder, const std::function<bool(const fs::path&)>& started)
{
    std::error_code error;
    for (auto it = fs::directory_iterator(folder, error); !error && it != fs::directory_iterator();
         it.increment(error))
        if (started(it->path()))
            return true;
    return false;
}

/// Starts `args`, sends `signal` as soon as `started` holds for an entry of `watched`, and
/// returns how the child ended; nullopt when it finished before it could be interrupted.
std::optional<ProcessResult> interrupted(const Args& args, const fs::path& watched,
                                         const std::function<bool(const fs::path&)>& started,
                                         int signal)
{
    const StartedProcess child = startProcess(kCli, args);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kSeconds);
    // Whether it still runs, without reaping it: finishProcess collects it.
    const auto running = [&] {
        siginfo_t info{};
        return ::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) ==
            0 &&
            info.si_pid == 0;
    };
    while (running() && std::chrono::steady_clock::now() < deadline) {
        if (appeared(watched, started)) {
            ::kill(child.pid, signal);
            return finishProcess(child, {kSeconds});
        }
        ::usleep(500);
    }
    finishProcess(child, {1}); // ended before it could be interrupted (or killed at the deadline)
    return std::nullopt;
}

bool isTemporary(const fs::path& path, std::string_view kind)
{
    return path.filename().string().starts_with(".attnviz-") &&
        path.filename().string().find(kind) != std::string::npos;
}

// A staging folder that already holds a written image.
bool exportHasWritten(const fs::path& path)
{
    return isTemporary(path, "-export-") && fs::is_directory(path) && !fs::is_empty(path);
}

using InterruptedWrites = TempFolderTest;

// #22: an interrupted export left its new output folder and a staging folder of PNGs.
TEST_F(InterruptedWrites, AnExportLeavesNothingForEachSignal)
{
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        SCOPED_TRACE(strsignal(signal));
        const fs::path out = m_dir / "figures";
        std::optional<ProcessResult> r;
        for (int attempt = 0; attempt < 5 && !r; ++attempt) {
            fs::remove_all(out);
            r = interrupted(genesisExport(out, "900"), out, exportHasWritten, signal);
        }
        ASSERT_TRUE(r) << "the export always finished before it could be interrupted";
        EXPECT_EQ(r->exitCode, 128 + signal) << r->err;
        EXPECT_FALSE(fs::exists(out)) << "left: " << testing::PrintToString(entries(out));
    }
}

// The GPT-2 fixture with room for 1024 positions (its learned positions padded with zeros): a
// trace of 1000 tokens then holds 128 MB of scores and weights, which stream to a temporary
// file long before the trace is done.
fs::path gpt2WithLongContext(const fs::path& folder)
{
    const fs::path fixture = fs::path(ATTNVIZ_TEST_DATA_DIR) / "hf" / "gpt2";
    fs::create_directories(folder);
    for (const char* name : {"merges.txt", "vocab.json"})
        fs::copy_file(fixture / name, folder / name);
    std::string config = io::readFile((fixture / "config.json").string());
    for (const char* field : {"\"n_ctx\": ", "\"n_positions\": "}) {
        const std::size_t at = config.find(std::string(field) + "64");
        config.replace(at, std::strlen(field) + 2, std::string(field) + "1024");
    }
    io::writeFileAtomically((folder / "config.json").string(), config);
    const io::SafetensorsFile weights =
        io::SafetensorsFile::read((fixture / "model.safetensors").string());
    io::SafetensorsWriter longer = io::SafetensorsWriter::inMemory();
    for (const io::TensorEntry& t : weights.tensors()) {
        std::vector<std::int64_t> shape = t.shape;
        std::string bytes(t.bytes.data(), t.bytes.size());
        if (t.name == "transformer.wpe.weight") {
            shape[0] = 1024;
            bytes.resize(1024 * 16 * 4, '\0');
        }
        longer.addRaw(t.name, t.dtype, shape, bytes);
    }
    io::writeFileAtomically((folder / "model.safetensors").string(), longer.finish());
    return folder;
}

// #22: an interrupted trace --dump left a .attnviz-PID-*.tmp of hundreds of MB.
TEST_F(InterruptedWrites, ATraceDumpLeavesNothingForEachSignal)
{
    const fs::path model = gpt2WithLongContext(m_dir / "gpt2");
    const fs::path out = m_dir / "out";
    std::string text;
    for (int i = 0; i < 1000; ++i)
        text += " a";
    const Args args{"trace",
                    "--model",
                    model.string(),
                    "--text",
                    text,
                    "--steps",
                    "scores,scaled,masked,weights",
                    "--dump",
                    (out / "trace.safetensors").string()};
    const auto dumping = [](const fs::path& p) { return isTemporary(p, ".tmp"); };
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        SCOPED_TRACE(strsignal(signal));
        std::optional<ProcessResult> r;
        for (int attempt = 0; attempt < 5 && !r; ++attempt) {
            fs::remove_all(out);
            fs::create_directories(out);
            r = interrupted(args, out, dumping, signal);
        }
        ASSERT_TRUE(r) << "the trace always finished before it could be interrupted";
        EXPECT_EQ(r->exitCode, 128 + signal) << r->err;
        EXPECT_EQ(entries(out), std::vector<std::string>{});
    }
}

} // namespace
} // namespace attnviz::test
