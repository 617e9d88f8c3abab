// LoadedModelCache: jobs that reuse a loaded checkpoint write the same traces, bit for bit, as jobs
// that load it afresh, also when the cache moves from one checkpoint to another and back.
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "core/checkpoint_test_helpers.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/trace/trace_job.h"

namespace gatescope::core {
namespace {

std::vector<float> tracedLoss(const std::filesystem::path& model, const std::filesystem::path& text,
                              const std::filesystem::path& out, LoadedModelCache* cache) {
    TraceRequest request;
    request.modelDir = model;
    request.input.path = text;
    request.out = out;
    request.threads = 1;
    request.storePyramids = false;
    auto outcome = runTraceJob(request, nullptr, nullptr, cache);
    EXPECT_TRUE(outcome) << outcome.error().describe();
    auto reader = data::TraceReader::open(out);
    EXPECT_TRUE(reader);
    return reader ? (*reader)->perToken().value().loss : std::vector<float>{};
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(LoadedModelCache, ReusedModelsTraceExactlyLikeFreshOnes) {
    test::TempDir tmp;
    RandomFoxSpec spec;
    spec.layers = 2, spec.hiddenSize = 32, spec.heads = 2;
    ASSERT_TRUE(writeRandomFoxCheckpoint(tmp / "fox", spec));
    spec.forgetGate = false, spec.seed = 5;
    ASSERT_TRUE(writeRandomFoxCheckpoint(tmp / "tfm", spec));
    for (int d = 0; d < 2; ++d) {
        std::ofstream out(tmp / ("doc" + std::to_string(d) + ".txt"));
        for (int i = 0; i < 6 + 9 * d; ++i)
            out << "The gate decides what the head forgets. ";
    }
    LoadedModelCache cache;
    int job = 0;
    for (const char* model : {"fox", "fox", "tfm", "fox"}) {
        for (const char* doc : {"doc0.txt", "doc1.txt"}) {
            const auto fresh = tracedLoss(tmp / model, tmp / doc, tmp / "fresh.h5", nullptr);
            const auto reused = tracedLoss(
                tmp / model, tmp / doc, tmp / ("cached" + std::to_string(job++) + ".h5"), &cache);
            ASSERT_FALSE(fresh.empty());
            EXPECT_TRUE(sameBits(fresh, reused)) << model << " " << doc;
        }
    }
    // The cache hands back the same loaded model for the same folder, a new one for another.
    auto a = cache.load(tmp / "fox"), b = cache.load(tmp / "fox" / ".");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->get(), b->get());
    auto c = cache.load(tmp / "tfm");
    ASSERT_TRUE(c);
    EXPECT_NE(a->get(), c->get());
    EXPECT_FALSE(cache.load(tmp / "missing"));
}

}  // namespace
}  // namespace gatescope::core
