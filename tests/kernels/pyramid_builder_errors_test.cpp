// buildPyramid's errors, cancellation and progress reporting.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "kernels/cpu/pyramid_builder.h"
#include "pyramid_test_support.h"

namespace gatescope {
namespace {

using kernels::MapKind;
using test::pyramid::collect;
using test::pyramid::HashSource;
using test::pyramid::Tiles;

TEST(PyramidBuilder, RejectsBadRequestsWithClearErrors) {
    const HashSource source(1000, 0);
    Tiles tiles;
    auto build = [&](kernels::PyramidRequest request, kernels::PyramidCallbacks cb) {
        return kernels::buildPyramid(source, request, cb);
    };
    kernels::PyramidRequest good;
    good.finestLevel = 2;
    good.coarsestLevel = 4;

    auto noCallback = build(good, {});
    ASSERT_FALSE(noCallback);
    EXPECT_EQ(noCallback.error().kind, ErrorKind::Usage);
    EXPECT_NE(noCallback.error().message.find("onTile"), std::string::npos);

    kernels::PyramidRequest reversed = good;
    reversed.finestLevel = 5;
    auto badRange = build(reversed, collect(tiles));
    ASSERT_FALSE(badRange);
    EXPECT_EQ(badRange.error().kind, ErrorKind::Usage);
    EXPECT_NE(badRange.error().message.find("[5, 4]"), std::string::npos);

    kernels::PyramidRequest tooFine = good;
    tooFine.finestLevel = 0;
    tooFine.maxFinestSide = 512;
    auto big = build(tooFine, collect(tiles));
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().kind, ErrorKind::Usage);
    EXPECT_NE(big.error().message.find("1000 cells per side"), std::string::npos);

    for (MapKind kind : {MapKind::Logit, MapKind::Decay}) {  // the hash source has neither
        kernels::PyramidRequest other = good;
        other.kind = kind;
        auto unsupported = build(other, collect(tiles));
        ASSERT_FALSE(unsupported);
        EXPECT_EQ(unsupported.error().kind, ErrorKind::Unsupported);
        EXPECT_NE(unsupported.error().message.find(kernels::toString(kind)), std::string::npos);
    }
    EXPECT_TRUE(tiles.empty());
}

TEST(PyramidBuilder, CancelsAndReportsProgress) {
    const HashSource source(3000, 0);
    kernels::PyramidRequest request;
    request.finestLevel = 3;
    request.coarsestLevel = 5;
    request.threads = 2;

    std::vector<double> progress;
    Tiles tiles;
    kernels::PyramidCallbacks cb = collect(tiles);
    cb.onProgress = [&](double f) { progress.push_back(f); };
    ASSERT_TRUE(kernels::buildPyramid(source, request, cb));
    ASSERT_FALSE(progress.empty());
    for (size_t i = 1; i < progress.size(); ++i)
        EXPECT_GE(progress[i], progress[i - 1]);
    EXPECT_EQ(progress.back(), 1.0);

    std::atomic<int> polls{0};
    const int computedBefore = source.computed.load();
    Tiles partial;
    kernels::PyramidCallbacks cancelling = collect(partial);
    cancelling.isCancelled = [&] { return polls.fetch_add(1) >= 5; };
    auto result = kernels::buildPyramid(source, request, cancelling);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ErrorKind::Cancelled);
    EXPECT_LE(source.computed.load() - computedBefore, 5);
    EXPECT_TRUE(partial.empty());
}

}  // namespace
}  // namespace gatescope
