#include "engine/diagnostics/matmul_probe.h"

#include <algorithm>
#include <chrono>

#include "engine/nn/cpu_math.h"
#include "engine/torch_pch.h"

namespace gatescope::core {

double measureMatmulGflops(int m, int k, int n, int threads, int repeats) {
    torch::NoGradGuard noGrad;
    prepareCpuMath(threads);
    auto a = torch::randn({m, k});
    auto b = torch::randn({k, n});
    auto c = torch::matmul(a, b);  // warm-up
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        c = torch::matmul(a, b);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, seconds);
    }
    return 2.0 * m * k * n / best / 1e9;
}

}  // namespace gatescope::core
