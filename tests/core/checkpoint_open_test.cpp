// Checkpoint::open on the official fixtures (cross-checked with a Python reader) and on folders
// built here: sharded with an index, a missing shard, pickles only, broken config.json.
#include <gtest/gtest.h>

#include <cmath>

#include "checkpoint_test_helpers.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/safetensors_writer.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using test::asBytes;
using test::bytesOf;
using test::TempDir;
using test::writeFile;

const fs::path kFixtures = GATESCOPE_FIXTURES_DIR;

// Writes one shard holding float tensors name -> values (1-D).
void writeShard(const fs::path& path,
                const std::vector<std::pair<std::string, std::string>>& named) {
    std::vector<TensorToWrite> tensors;
    for (const auto& [name, bytes] : named) {
        tensors.push_back(
            {name, DType::F32, {static_cast<int64_t>(bytes.size() / 4)}, asBytes(bytes)});
    }
    ASSERT_TRUE(writeSafetensors(path, tensors).ok());
}

TEST(CheckpointOpen, FixturesMatchAnIndependentPythonReader) {
    const fs::path dir = kFixtures / "fox" / "fox-pro";
    if (!fs::exists(dir / "model.safetensors")) {
        GTEST_SKIP() << "fixture " << dir << " absent (set GATESCOPE_FIXTURES_DIR)";
    }
    if (!test::havePython()) GTEST_SKIP() << "python3 not found";
    auto checkpoint = Checkpoint::open(dir);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error().describe();
    EXPECT_EQ((*checkpoint)->modelType(), "forgetting_transformer-project_fox");
    EXPECT_EQ((*checkpoint)->config()["hidden_size"], 128);
    ASSERT_EQ((*checkpoint)->weightFiles().size(), 1u);

    // Python (standard library only) parses the file itself: name, dtype, shape, value sum.
    TempDir tmp;
    const auto lines = test::runPython(
        tmp,
        "import json, struct, sys, array, math\n"
        "raw = open(sys.stdin.readline().strip(), 'rb').read()\n"
        "n = struct.unpack('<Q', raw[:8])[0]\n"
        "header = json.loads(raw[8:8 + n])\n"
        "data = raw[8 + n:]\n"
        "for name in sorted(k for k in header if k != '__metadata__'):\n"
        "    e = header[name]\n"
        "    a = array.array('f', data[e['data_offsets'][0]:e['data_offsets'][1]])\n"
        "    print(name, e['dtype'], ','.join(map(str, e['shape'])), repr(math.fsum(a)))\n",
        (dir / "model.safetensors").string() + "\n");
    const std::vector<std::string> names = (*checkpoint)->tensorNames();
    ASSERT_EQ(lines.size(), names.size()) << (lines.empty() ? "" : lines[0]);
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::istringstream row(lines[i]);
        std::string name, dtype, shape;
        double sum = 0;
        row >> name >> dtype >> shape >> sum;
        EXPECT_EQ(name, names[i]);
        const TensorInfo* info = (*checkpoint)->find(name);
        ASSERT_NE(info, nullptr) << name;
        EXPECT_EQ(dtypeName(info->dtype), dtype);
        std::string ours;
        for (std::size_t d = 0; d < info->shape.size(); ++d) {
            ours += (d ? "," : "") + std::to_string(info->shape[d]);
        }
        EXPECT_EQ(ours, shape) << name;
        auto values = toFloat32(*info);
        ASSERT_TRUE(values.ok());
        double ourSum = 0;
        for (float v : *values)
            ourSum += v;
        EXPECT_NEAR(ourSum, sum, 1e-9 * (1 + std::abs(sum)) + 1e-6) << name;
    }

    // weightSha256 agrees with hashlib.
    const auto digest = test::runPython(
        tmp,
        "import hashlib, sys\nprint(hashlib.sha256(open(sys.stdin.readline().strip(), "
        "'rb').read()).hexdigest())\n",
        (dir / "model.safetensors").string() + "\n");
    auto ours = (*checkpoint)->weightSha256();
    ASSERT_TRUE(ours.ok());
    ASSERT_EQ(digest.size(), 1u);
    EXPECT_EQ(ours->front(), digest.front());
}

TEST(CheckpointOpen, BothConfigLayoutsExposeModelType) {
    const fs::path power = kFixtures / "power" / "power";
    const fs::path gsa = kFixtures / "gsa" / "gsa";
    if (!fs::exists(power / "model.safetensors") || !fs::exists(gsa / "model.safetensors")) {
        GTEST_SKIP() << "fixtures absent under " << kFixtures;
    }
    auto p = Checkpoint::open(power / "config.json");  // a file inside the folder works too
    ASSERT_TRUE(p.ok()) << p.error().describe();
    EXPECT_EQ((*p)->modelType(), "power");
    EXPECT_EQ((*p)->config()["model_config"]["n_layer"], 2);
    EXPECT_EQ((*p)->dir(), power);
    EXPECT_NE((*p)->find("lm_head.weight"), nullptr);

    auto g = Checkpoint::open(gsa);
    ASSERT_TRUE(g.ok()) << g.error().describe();
    EXPECT_EQ((*g)->modelType(), "gsa");
}

class CheckpointFolder : public ::testing::Test {
protected:
    TempDir dir;
    void config(const std::string& text = R"({"model_type": "toy", "hidden_size": 4})") {
        writeFile(dir / "config.json", text);
    }
    Error openError() {
        auto c = Checkpoint::open(dir.path());
        EXPECT_FALSE(c.ok());
        return c.ok() ? Error{} : c.error();
    }
};

TEST_F(CheckpointFolder, ShardedWithIndex) {
    config();
    writeShard(dir / "model-00001-of-00002.safetensors",
               {{"a.weight", bytesOf(std::vector<float>{1, 2, 3})},
                {"b.weight", bytesOf(std::vector<float>{4})}});
    writeShard(dir / "model-00002-of-00002.safetensors",
               {{"c.weight", bytesOf(std::vector<float>{5, 6})}});
    writeFile(dir / "model.safetensors.index.json",
              R"({"metadata": {"total_size": 24}, "weight_map": {
                   "c.weight": "model-00002-of-00002.safetensors",
                   "a.weight": "model-00001-of-00002.safetensors",
                   "b.weight": "model-00001-of-00002.safetensors"}})");
    auto c = Checkpoint::open(dir.path());
    ASSERT_TRUE(c.ok()) << c.error().describe();
    const auto files = (*c)->weightFiles();
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].filename(), "model-00001-of-00002.safetensors");
    EXPECT_EQ(files[1].filename(), "model-00002-of-00002.safetensors");
    EXPECT_EQ((*c)->tensorNames(), (std::vector<std::string>{"a.weight", "b.weight", "c.weight"}));
    const TensorInfo* t = (*c)->find("c.weight");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->file.filename(), "model-00002-of-00002.safetensors");
    EXPECT_EQ(*toFloat32(*t), (std::vector<float>{5, 6}));
    EXPECT_EQ((*c)->modelType(), "toy");
    auto digests = (*c)->weightSha256();
    ASSERT_TRUE(digests.ok());
    EXPECT_EQ(digests->size(), 2u);
}

TEST_F(CheckpointFolder, MissingShardIsNamed) {
    config();
    writeShard(dir / "s1.safetensors", {{"a", bytesOf(std::vector<float>{1})}});
    writeFile(dir / "model.safetensors.index.json",
              R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Missing);
    EXPECT_NE(e.file.find("s2.safetensors"), std::string::npos) << e.describe();
    EXPECT_EQ(e.object, "b");
}

TEST_F(CheckpointFolder, IndexedTensorAbsentFromItsShard) {
    config();
    writeShard(dir / "s1.safetensors", {{"a", bytesOf(std::vector<float>{1})}});
    writeFile(dir / "model.safetensors.index.json",
              R"({"weight_map": {"a": "s1.safetensors", "ghost": "s1.safetensors"}})");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Missing);
    EXPECT_EQ(e.object, "ghost");
    EXPECT_NE(e.file.find("s1.safetensors"), std::string::npos);
}

TEST_F(CheckpointFolder, TensorInTwoShards) {
    config();
    writeShard(dir / "s1.safetensors", {{"a", bytesOf(std::vector<float>{1})}});
    writeShard(dir / "s2.safetensors",
               {{"a", bytesOf(std::vector<float>{2})}, {"b", bytesOf(std::vector<float>{3})}});
    writeFile(dir / "model.safetensors.index.json",
              R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_EQ(e.object, "a");
    EXPECT_NE(e.message.find("two shards"), std::string::npos) << e.message;
}

TEST_F(CheckpointFolder, IndexMayNotPointOutsideTheFolder) {
    config();
    writeFile(dir / "model.safetensors.index.json",
              R"({"weight_map": {"a": "../elsewhere.safetensors"}})");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_EQ(e.object, "a");
    writeFile(dir / "model.safetensors.index.json", R"({"metadata": {}})");
    EXPECT_NE(openError().message.find("weight_map"), std::string::npos);
}

TEST_F(CheckpointFolder, OnlyPytorchModelBinIsRefusedWithConversionHint) {
    writeFile(dir / "pytorch_model.bin", "PK\x03\x04 pickle bytes");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Unsupported);
    EXPECT_NE(e.file.find("pytorch_model.bin"), std::string::npos);
    EXPECT_NE(e.message.find("pickle"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("save_file"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("weights_only=True"), std::string::npos) << e.message;
}

TEST_F(CheckpointFolder, NoWeightsAtAll) {
    config();
    writeFile(dir / "adapter.safetensors", "x");
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Missing);
    EXPECT_NE(e.message.find("model.safetensors"), std::string::npos);
    EXPECT_NE(e.message.find("adapter.safetensors"), std::string::npos) << e.message;
}

TEST_F(CheckpointFolder, ConfigProblems) {
    writeShard(dir / "model.safetensors", {{"a", bytesOf(std::vector<float>{1})}});
    Error missing = openError();
    EXPECT_EQ(missing.kind, ErrorKind::Missing);
    EXPECT_NE(missing.file.find("config.json"), std::string::npos);

    config("{\"model_type\": ");
    Error notJson = openError();
    EXPECT_EQ(notJson.kind, ErrorKind::Format);
    EXPECT_NE(notJson.message.find("JSON"), std::string::npos);

    config(R"({"hidden_size": 4})");
    Error noType = openError();
    EXPECT_EQ(noType.kind, ErrorKind::Missing);
    EXPECT_EQ(noType.object, "model_type");

    config(R"({"model_type": 3})");
    EXPECT_EQ(openError().object, "model_type");

    config(R"({"model_type": "gated_fwa", "model_config": {"n_layer": 2}})");
    auto c = Checkpoint::open(dir / "model.safetensors");
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_EQ((*c)->modelType(), "gated_fwa");
    EXPECT_EQ((*c)->config()["model_config"]["n_layer"], 2);
}

TEST_F(CheckpointFolder, TruncatedWeightsNameTheFileAndTensor) {
    config();
    writeShard(dir / "model.safetensors", {{"a", bytesOf(std::vector<float>{1, 2, 3, 4})},
                                           {"b", bytesOf(std::vector<float>{5, 6})}});
    const std::string full = test::readFile(dir / "model.safetensors");
    writeFile(dir / "model.safetensors", full.substr(0, full.size() - 3));
    Error e = openError();
    EXPECT_EQ(e.kind, ErrorKind::Format);
    EXPECT_NE(e.file.find("model.safetensors"), std::string::npos);
    EXPECT_FALSE(e.object.empty());
}

TEST(CheckpointOpenPath, NonexistentPath) {
    auto c = Checkpoint::open("/nonexistent/gatescope/checkpoint");
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().kind, ErrorKind::Io);
}

}  // namespace
}  // namespace gatescope::core
