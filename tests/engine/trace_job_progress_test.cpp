// runTraceJob's progress and cancellation as the viewer's File > Run Model and the CLI see them:
// fractions rise to 1 and the trace opens; a job cancelled before it starts ends with
// ErrorKind::Cancelled and leaves no file at the output path.
#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include "core/checkpoint_test_helpers.h"
#include "core/sample/random_fox_checkpoint.h"
#include "data/trace/trace_reader.h"
#include "engine/trace/trace_job.h"

namespace gatescope::core {
namespace {

TraceRequest sampleRequest(const test::TempDir& tmp, const char* out) {
    TraceRequest request;
    request.modelDir = tmp / "model";
    request.input.path = GATESCOPE_SOURCE_DIR "/resources/samples/forgetting.txt";
    request.out = tmp / out;
    return request;
}

TEST(TraceJobProgress, FractionsRiseToOneAndTheTraceOpens) {
    test::TempDir tmp;
    RandomFoxSpec spec;
    spec.layers = 1;
    ASSERT_TRUE(writeRandomFoxCheckpoint(tmp / "model", spec));
    std::vector<double> fractions;
    auto outcome = runTraceJob(
        sampleRequest(tmp, "run.h5"),
        [&](const TraceProgress& p) { fractions.push_back(p.fraction); }, nullptr);
    ASSERT_TRUE(outcome) << outcome.error().describe();
    ASSERT_GE(fractions.size(), 2u);
    for (std::size_t i = 1; i < fractions.size(); ++i)
        EXPECT_GE(fractions[i], fractions[i - 1]);
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    auto reader = data::TraceReader::open(outcome->path);
    ASSERT_TRUE(reader) << reader.error().describe();
    EXPECT_EQ((*reader)->summary().layers.size(), 1u);
    EXPECT_EQ(outcome->layersRecorded, 1);
}

TEST(TraceJobProgress, CancelledJobEndsCancelledAndLeavesNoFile) {
    test::TempDir tmp;
    ASSERT_TRUE(writeRandomFoxCheckpoint(tmp / "model", RandomFoxSpec{}));
    const std::atomic<bool> cancel{true};
    const auto request = sampleRequest(tmp, "cancelled.h5");
    auto outcome = runTraceJob(request, nullptr, &cancel);
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, ErrorKind::Cancelled) << outcome.error().describe();
    EXPECT_FALSE(std::filesystem::exists(request.out));
}

}  // namespace
}  // namespace gatescope::core
