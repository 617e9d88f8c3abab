#include "engine/nn/cpu_math.h"

#include <mutex>

#include "engine/torch_pch.h"

namespace gatescope::core {

namespace {

// The ops whose contiguous float/double kernels call MKL VML in ATen's cpu/vml.h (some only in
// some releases). An extra entry is harmless; a missing one would leave its first call racing.
void warmUpVectorMath() {
    torch::NoGradGuard noGrad;
    for (auto dtype : {torch::kFloat32, torch::kFloat64}) {
        const auto x = torch::full({1}, 0.5, torch::TensorOptions().dtype(dtype));
        (void)torch::acos(x), (void)torch::asin(x), (void)torch::atan(x);
        (void)torch::cos(x), (void)torch::sin(x), (void)torch::tan(x), (void)torch::tanh(x);
        (void)torch::erf(x), (void)torch::erfc(x), (void)torch::erfinv(x);
        (void)torch::exp(x), (void)torch::expm1(x), (void)torch::log(x), (void)torch::log1p(x);
        (void)torch::log2(x), (void)torch::log10(x), (void)torch::sqrt(x), (void)torch::trunc(x);
    }
}

}  // namespace

void prepareCpuMath(int threads) {
    if (threads > 0) torch::set_num_threads(threads);
    static std::once_flag warmedUp;
    std::call_once(warmedUp, warmUpVectorMath);
}

}  // namespace gatescope::core
