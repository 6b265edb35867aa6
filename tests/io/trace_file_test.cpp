// One writer and one manifest schema for every trace file (#9): the safetensors metadata and the
// sidecar JSON say the same, and a large trace streams to disk behind a reserved header.
#include "io/input_file.h"
#include "io/json.h"
#include "io/trace_file.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

namespace attnviz::test {
namespace {

class TraceFile : public TempFolderTest { };

engine::Tensor ramp(std::int64_t rows, std::int64_t cols)
{
    engine::Tensor t({{"query", rows}, {"key", cols}});
    for (std::int64_t i = 0; i < t.size(); ++i)
        t.data()[i] = static_cast<float>(i) * 0.5f;
    return t;
}

TEST_F(TraceFile, MetadataAndSidecarCarryTheSameManifest)
{
    io::TraceFileWriter writer(path("trace.safetensors"), true);
    writer.add("layer0.self.weights", ramp(2, 3));
    writer.commit({{"kind", "model"}, {"model", "tiny"}, {"num_heads", 2}, {"source_ids", {4, 5}}});

    const auto file = io::SafetensorsFile::read(path("trace.safetensors"));
    const io::JsonValue& meta = file.metadata();
    EXPECT_EQ(meta.find("format")->asString(), "attnviz-model-trace");
    EXPECT_EQ(meta.find("model")->asString(), "tiny");
    EXPECT_EQ(meta.find("num_heads")->asString(), "2");
    EXPECT_EQ(meta.find("source_ids")->asString(), "[4,5]");
    EXPECT_EQ(meta.find("axes.layer0.self.weights")->asString(), "query,key");

    const io::JsonValue manifest = io::parseJson(io::readFile(path("trace.json")));
    EXPECT_EQ(manifest.find("format")->asString(), "attnviz-trace-manifest");
    EXPECT_EQ(manifest.find("data")->asString(), "trace.safetensors");
    EXPECT_EQ(manifest.find("source_ids")->asArray().size(), 2u);
    const io::JsonValue& tensor = manifest.find("tensors")->asArray().at(0);
    EXPECT_EQ(tensor.find("name")->asString(), "layer0.self.weights");
    EXPECT_EQ(tensor.find("axes")->asArray().at(1).asString(), "key");
    EXPECT_EQ(tensor.find("shape")->asArray().at(1).asInteger(), 3);
}

TEST_F(TraceFile, AttentionTracesAreMarkedAsSuch)
{
    io::TraceFileWriter writer(path("t.safetensors"), false);
    writer.add("weights", ramp(1, 1));
    writer.commit({{"kind", "attention"}, {"causal", true}});
    const auto file = io::SafetensorsFile::read(path("t.safetensors"));
    EXPECT_EQ(file.metadata().find("format")->asString(), "attnviz-trace");
    EXPECT_EQ(file.metadata().find("causal")->asString(), "true");
    EXPECT_FALSE(std::filesystem::exists(path("t.json")));
}

TEST_F(TraceFile, LargeTraceStreamsAndReadsBackExactly)
{
    // 80 MB: above what the writer keeps in memory, so it streams behind a reserved header. The
    // second file has far more tensors than the writer was told, so its header outgrows the room
    // and the data is copied behind a larger one.
    const engine::Tensor big = ramp(5000, 4000);
    for (const auto& [told, count] : {std::pair{64, 40}, std::pair{1, 300}}) {
        const std::string name = "big" + std::to_string(count) + ".safetensors";
        io::TraceFileWriter writer(path(name), false, static_cast<std::size_t>(told));
        for (int i = 0; i < count; ++i)
            writer.add("t" + std::to_string(i), i == 0 ? big : ramp(2, 2));
        writer.commit({{"kind", "attention"}});
        const auto file = io::SafetensorsFile::read(path(name));
        ASSERT_EQ(file.tensors().size(), static_cast<std::size_t>(count));
        const io::TensorEntry* t = file.find("t0");
        ASSERT_NE(t, nullptr);
        ASSERT_EQ(t->bytes.size(), static_cast<std::size_t>(big.size()) * 4);
        EXPECT_EQ(std::memcmp(t->bytes.data(), big.data(), t->bytes.size()), 0);
        EXPECT_EQ(file.find("t" + std::to_string(count - 1))->shapeString(), "[2, 2]");
    }
}

TEST_F(TraceFile, NothingAppearsWhenTheWriterIsDropped)
{
    {
        io::TraceFileWriter writer(path("dropped.safetensors"), true);
        writer.add("weights", ramp(2, 2));
    }
    EXPECT_TRUE(std::filesystem::is_empty(m_dir));
}

} // namespace
} // namespace attnviz::test
