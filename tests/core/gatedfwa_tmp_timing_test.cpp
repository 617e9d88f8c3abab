#include <chrono>
#include <random>
#include <sys/resource.h>
#include "core/model/model.h"
#include "fixture_support.h"
#include "gatedfwa_test_support.h"
namespace gatescope {
TEST(GatedFwaTmpTiming, Run) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    auto model = core::loadModel(core::Checkpoint::open(dir).value());
    for (int64_t n : {4096, 32768}) {
        std::vector<int32_t> ids(n);
        std::mt19937 rng(1);
        for (auto& id : ids) id = rng() % 512;
        for (auto dt : {core::ComputeDType::Float32, core::ComputeDType::BFloat16}) {
            core::RunOptions o; o.dtype = dt; o.threads = 2;
            test::gatedfwa::RecordingProbe probe;
            auto t0 = std::chrono::steady_clock::now();
            auto r = (*model)->forward(ids, {}, o, &probe);
            auto t1 = std::chrono::steady_clock::now();
            ASSERT_TRUE(r);
            struct rusage u; getrusage(RUSAGE_SELF, &u);
            double mean = 0; for (int64_t i = 0; i + 1 < n; ++i) mean += r->loss[i]; mean /= (n - 1);
            std::printf("N=%ld %s: %.3f s, maxrss %ld MiB, mean loss %.4f\n", n, dt == core::ComputeDType::Float32 ? "fp32" : "bf16",
                        std::chrono::duration<double>(t1 - t0).count(), u.ru_maxrss / 1024, mean);
        }
    }
}
}
