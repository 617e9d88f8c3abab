// The trace-reader fuzz target's inputs, replayed through its own read path
// (fuzz/trace_reader_read.h): the committed seeds are valid traces that open and read, and every
// input the fuzzer once failed on (fuzz/regressions/trace_reader/) now ends in a value or an
// error naming the file.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "fuzz/trace_reader_read.h"
#include "trace_test_util.h"

namespace gatescope {
namespace {

namespace fs = std::filesystem;

const fs::path kFuzz = fs::path(GATESCOPE_SOURCE_DIR) / "fuzz";

std::vector<fs::path> filesIn(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<uint8_t> bytesOf(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FuzzRegression, SeedCorpusTracesOpenAndRead) {
    const auto seeds = filesIn(kFuzz / "corpus/trace_reader");
    ASSERT_FALSE(seeds.empty());
    uintmax_t total = 0;
    for (const auto& seed : seeds) {
        const auto bytes = bytesOf(seed);
        total += bytes.size();
        auto st = fuzz::readTraceImage(seed.filename().string(), bytes.data(), bytes.size());
        EXPECT_TRUE(st) << seed << ": " << st.error().describe();
    }
    EXPECT_LT(total, 200u * 1024) << "keep the committed seeds small";
}

TEST(FuzzRegression, InputsThatOnceFailedEndInAValueOrAnError) {
    const auto inputs = filesIn(kFuzz / "regressions/trace_reader");
    ASSERT_FALSE(inputs.empty());
    for (const auto& input : inputs) {
        const auto bytes = bytesOf(input);
        const std::string name = input.filename().string();
        auto st = fuzz::readTraceImage(name, bytes.data(), bytes.size());
        if (!st) {
            EXPECT_EQ(st.error().file, name) << st.error().describe();
        }
        std::cout << "    " << name << ": " << (st ? "opened" : st.error().describe()) << "\n";
    }
}

// trace_reader_fuzz stopped on this input for memory (2.7 GB): its /manifest descriptor claims a
// 2.4 GB string, which HDF5 1.10 allocated before finding the heap address bad. The claim is now
// refused before HDF5 reads the value, both from disk and from an image.
TEST(FuzzRegression, AForgedStringLengthIsRefusedBeforeHdf5AllocatesIt) {
    const auto path = kFuzz / "regressions/trace_reader/oom-vlen-length-manifest.h5";
    const auto bytes = bytesOf(path);
    ASSERT_FALSE(bytes.empty());
    auto fromDisk = data::TraceReader::open(path);
    auto fromImage = data::TraceReader::openImage("oom.h5", bytes.data(), bytes.size());
    for (auto* reader : {&fromDisk, &fromImage}) {
        ASSERT_TRUE(*reader) << reader->error().describe();
        auto manifest = (**reader)->manifest();
        ASSERT_FALSE(manifest);
        EXPECT_EQ(manifest.error().object, "/manifest");
        EXPECT_NE(manifest.error().message.find("a stored string claims 2461376110 bytes"),
                  std::string::npos)
            << manifest.error().describe();
    }
    EXPECT_EQ(fromDisk.value()->manifest().error().file, path.string());
}

// trace_reader_fuzz crashed (SIGSEGV in H5HG_read; main's `gatescope info` too) on this input:
// its /manifest descriptor names object 6185728 of a collection holding a handful, an index HDF5
// 1.10 uses unchecked. The descriptor is now checked against the collection first.
TEST(FuzzRegression, AStoredStringNamingAMissingHeapObjectIsRefused) {
    const auto path = kFuzz / "regressions/trace_reader/segv-global-heap-index-manifest.h5";
    auto reader = data::TraceReader::open(path);
    ASSERT_TRUE(reader) << reader.error().describe();
    auto manifest = (*reader)->manifest();
    ASSERT_FALSE(manifest);
    EXPECT_EQ(manifest.error().file, path.string());
    EXPECT_NE(manifest.error().message.find("names object 6185728 of the global heap collection"),
              std::string::npos)
        << manifest.error().describe();
}

// Writes the seed corpus; run by hand (docs/fuzzing.md):
// GATESCOPE_SEED_DIR=fuzz/corpus/trace_reader build/default/tests/data_tests
// --gtest_also_run_disabled_tests
// --gtest_filter=FuzzRegression.DISABLED_WriteSeedCorpus
TEST(FuzzRegression, DISABLED_WriteSeedCorpus) {
    const char* dir = std::getenv("GATESCOPE_SEED_DIR");
    ASSERT_NE(dir, nullptr) << "set GATESCOPE_SEED_DIR";
    struct Seed {
        const char* name;
        int64_t n;
        data::Compression compression;
        bool f16;
    };
    for (const Seed& seed : {Seed{"n5-none.h5", 5, data::Compression::None, false},
                             Seed{"n9-deflate-f16.h5", 9, data::Compression::Deflate, true},
                             Seed{"n3-zstd.h5", 3, data::Compression::Zstd, false},
                             Seed{"n4-lz4.h5", 4, data::Compression::Lz4, false}}) {
        data::TraceWriterOptions options;
        options.compression = seed.compression;
        options.factorsAsF16 = seed.f16;
        options.encodeThreads = 1;
        const auto path = fs::path(dir) / seed.name;
        auto rc = data::testing::writeSample(data::testing::makeSample(seed.n, 7), path, options);
        ASSERT_TRUE(rc) << rc.error().describe();
        std::cout << "    " << path << ": " << fs::file_size(path) << " bytes\n";
    }
}

}  // namespace
}  // namespace gatescope
