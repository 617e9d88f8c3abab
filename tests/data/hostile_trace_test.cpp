// Hostile traces on TraceReader: forged counts, attributes that disagree with the datasets, deep
// JSON, and data HDF5 would fetch from elsewhere (external storage, external and soft links,
// virtual datasets). Each is refused at open with an error naming the file and the object.
#include <gtest/gtest.h>

#include <fstream>

#include "data/trace/trace_limits.h"
#include "data/trace/trace_reader.h"
#include "tests/data/hostile_edits.h"
#include "trace_test_util.h"

namespace gatescope::data {
namespace {

class HostileTrace : public ::testing::Test {
protected:
    void SetUp() override {
        sample = testing::makeSample(300, 33);
        good = dir / "good.h5";
        auto rc = testing::writeSample(sample, good);
        ASSERT_TRUE(rc) << rc.error().describe();
    }

    template <class Edit>
    std::filesystem::path edited(const std::string& name, Edit edit) {
        auto path = dir / name;
        std::filesystem::copy_file(good, path);
        test::editTrace(path, edit);
        return path;
    }

    // Opens `path` and expects it refused with `kind`, naming the file, `object` and `words`.
    static void expectRefused(const std::filesystem::path& path, ErrorKind kind,
                              const std::string& object, const std::string& words) {
        auto reader = TraceReader::open(path);
        ASSERT_FALSE(reader) << path;
        const Error& e = reader.error();
        EXPECT_EQ(e.kind, kind) << e.describe();
        EXPECT_EQ(e.file, path.string());
        EXPECT_EQ(e.object, object) << e.describe();
        EXPECT_NE(e.message.find(words), std::string::npos) << e.describe();
        std::cout << "    error: " << e.describe() << "\n";
    }

    testing::TempDir dir;
    testing::Sample sample;
    std::filesystem::path good;
};

TEST_F(HostileTrace, NTokensThatDisagreesWithTheDatasetsIsRefused) {
    auto more = edited("more.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_tokens", 301); });
    expectRefused(more, ErrorKind::Shape, "/tokens/ids", "found int32 [300]");
    auto fewer = edited("fewer.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_tokens", 7); });
    expectRefused(fewer, ErrorKind::Shape, "/tokens/ids", "[7]");
}

TEST_F(HostileTrace, HugeCountsAreRefusedBeforeAllocating) {
    auto huge = edited(
        "huge.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_tokens", int64_t{1} << 40); });
    expectRefused(huge, ErrorKind::Format, "/@n_tokens", "must be in 1..");
    auto negative =
        edited("negative.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_tokens", -5); });
    expectRefused(negative, ErrorKind::Format, "/@n_tokens", "n_tokens is -5");
    // 2^32 + 3 used to pass through a cast to int as 3.
    auto wrapped = edited("wrapped.h5", [](hid_t f) {
        test::setIntAttribute(f, "/layers/000", "n_heads", (int64_t{1} << 32) + 3);
    });
    expectRefused(wrapped, ErrorKind::Format, "/layers/000@n_heads", "must be in 1..1024");
    auto dim = edited("dim.h5", [](hid_t f) {
        test::setIntAttribute(f, "/layers/001", "n_channels", int64_t{1} << 20);
    });
    expectRefused(dim, ErrorKind::Format, "/layers/001@n_channels", "n_channels is 1048576");
}

TEST_F(HostileTrace, LayerAttributesThatDisagreeWithTheDatasetsAreRefused) {
    auto heads =
        edited("heads.h5", [](hid_t f) { test::setIntAttribute(f, "/layers/000", "n_heads", 5); });
    expectRefused(heads, ErrorKind::Shape, "/layers/000/gates/log_retention",
                  "expected float32 [5, 300, 1]");
    auto kv = edited("kv.h5", [](hid_t f) {
        test::setIntAttribute(f, "/layers/000", "n_kv_heads", 2);  // k is [1, N, D]
    });
    expectRefused(kv, ErrorKind::Shape, "/layers/000/factors/k", "n_kv_heads (2)");
    auto channels = edited(
        "channels.h5", [](hid_t f) { test::setIntAttribute(f, "/layers/001", "n_channels", 3); });
    expectRefused(channels, ErrorKind::Shape, "/layers/001/gates/log_retention", "[3, 300, 3]");
    auto layers =
        edited("layers.h5", [](hid_t f) { test::setIntAttribute(f, "/", "n_layers", 9); });
    expectRefused(layers, ErrorKind::Format, "/@n_layers", "holds 2 layer groups");
    auto pyramid = edited("pyramid.h5", [](hid_t f) {
        test::replaceWithChunked(f, "/layers/000/pyramid/attention/mean/0", {4, 300, 300},
                                 {1, 256, 256});
    });
    expectRefused(pyramid, ErrorKind::Shape, "/layers/000/pyramid/attention/mean/0",
                  "4 heads in a pyramid of a layer with n_heads = 3");
    auto renamed = edited("renamed.h5", [](hid_t f) {
        EXPECT_GE(H5Lmove(f, "/layers/001", f, "/layers/1", H5P_DEFAULT, H5P_DEFAULT), 0);
    });
    expectRefused(renamed, ErrorKind::Format, "/layers/1", "3 digits");
}

TEST_F(HostileTrace, OversizedChunksAreRefused) {
    // An empty file-cheap dataset whose one chunk would be 300 x 65536 floats (75 MiB) decoded.
    auto path = edited("chunks.h5", [](hid_t f) {
        test::replaceWithChunked(f, "/layers/000/factors/v", {1, 300, 65536}, {1, 300, 65536});
    });
    expectRefused(path, ErrorKind::Format, "/layers/000/factors/v", "larger than the 64 MiB");
}

TEST_F(HostileTrace, DeeplyNestedJsonIsAnErrorNotAStackOverflow) {
    auto extras = edited("extras.h5", [](hid_t f) {
        test::setStringAttribute(f, "/layers/001", "extras", test::deepJson(100000));
    });
    expectRefused(extras, ErrorKind::Format, "/layers/001@extras", "nested deeper than");

    auto manifestPath = edited("manifest.h5", [](hid_t f) {
        test::setScalarString(f, "/manifest", "{\"a\":" + test::deepJson(100000) + "}");
    });
    auto reader = TraceReader::open(manifestPath);
    ASSERT_TRUE(reader) << reader.error().describe();
    auto manifest = (*reader)->manifest();
    ASSERT_FALSE(manifest);
    EXPECT_EQ(manifest.error().kind, ErrorKind::Format);
    EXPECT_EQ(manifest.error().file, manifestPath.string());
    EXPECT_EQ(manifest.error().object, "/manifest");
    EXPECT_NE(manifest.error().message.find("nested deeper than"), std::string::npos);
}

TEST_F(HostileTrace, ExternalStorageIsNeverRead) {
    // A dataset whose bytes HDF5 would read from another file (here a stand-in for /etc/passwd).
    const auto secret = dir / "secret.txt";
    std::ofstream(secret) << std::string(2000, 'S');
    auto path = edited("external.h5", [&](hid_t f) {
        test::replaceWithExternalStorage(f, "/per_token/loss", secret, 300);
    });
    expectRefused(path, ErrorKind::Unsupported, "/per_token/loss",
                  "stored in external file '" + secret.string() + "'");
    auto passwd = edited("passwd.h5", [&](hid_t f) {
        test::replaceWithExternalStorage(f, "/layers/000/factors/lse", "/etc/passwd", 900);
    });
    expectRefused(passwd, ErrorKind::Unsupported, "/layers/000/factors/lse", "'/etc/passwd'");
}

TEST_F(HostileTrace, LinksOutOfTheFileAreNeverFollowed) {
    const auto other = dir / "other.h5";
    std::filesystem::copy_file(good, other);
    auto external = edited("elink.h5", [&](hid_t f) {
        test::replaceWithExternalLink(f, "/per_token/loss", other, "/per_token/entropy");
    });
    expectRefused(external, ErrorKind::Unsupported, "/per_token/loss",
                  "external link to '" + other.string() + "' object '/per_token/entropy'");
    auto layer = edited("elink-layer.h5", [&](hid_t f) {
        test::replaceWithExternalLink(f, "/layers/001", other, "/layers/001");
    });
    expectRefused(layer, ErrorKind::Unsupported, "/layers/001", "never follows links out");
    auto soft = edited("soft.h5", [](hid_t f) {
        test::replaceWithSoftLink(f, "/per_token/loss", "/per_token/entropy");
    });
    expectRefused(soft, ErrorKind::Unsupported, "/per_token/loss", "soft link");
    auto group = edited("soft-group.h5", [](hid_t f) {
        test::replaceWithSoftLink(f, "/layers/000/factors", "/layers/001/factors");
    });
    expectRefused(group, ErrorKind::Unsupported, "/layers/000/factors", "soft link");
}

TEST_F(HostileTrace, VirtualDatasetsAreRefused) {
    const auto other = dir / "other.h5";
    std::filesystem::copy_file(good, other);
    auto path = edited("vds.h5", [&](hid_t f) {
        test::replaceWithVirtual(f, "/per_token/loss", other, "/per_token/entropy", 300);
    });
    expectRefused(path, ErrorKind::Unsupported, "/per_token/loss", "virtual dataset");
}

TEST_F(HostileTrace, OpenImageMatchesOpen) {
    const std::string bytes = [&] {
        std::ifstream in(good, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    auto fromImage = TraceReader::openImage("image.h5", bytes.data(), bytes.size());
    ASSERT_TRUE(fromImage) << fromImage.error().describe();
    auto fromFile = TraceReader::open(good);
    ASSERT_TRUE(fromFile);
    EXPECT_EQ((*fromImage)->summary().nTokens, (*fromFile)->summary().nTokens);
    EXPECT_EQ((*fromImage)->summary().layers.size(), (*fromFile)->summary().layers.size());
    auto loss = (*fromImage)->perToken();
    ASSERT_TRUE(loss) << loss.error().describe();
    EXPECT_EQ(loss->loss[10], sample.perToken.loss[10]);
    auto tokens = (*fromImage)->tokens();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    EXPECT_EQ(tokens->sourceText, sample.tokens.sourceText);

    auto garbage = TraceReader::openImage("garbage.h5", bytes.data() + 1, 4000);
    ASSERT_FALSE(garbage);
    EXPECT_EQ(garbage.error().kind, ErrorKind::Format);
    EXPECT_EQ(garbage.error().file, "garbage.h5");
    auto empty = TraceReader::openImage("empty.h5", nullptr, 0);
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().kind, ErrorKind::Format);
}

}  // namespace
}  // namespace gatescope::data
