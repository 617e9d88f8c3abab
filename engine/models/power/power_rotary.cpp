#include "engine/models/power/power_rotary.h"

#include <cmath>

namespace gatescope::core::power {

std::pair<torch::Tensor, torch::Tensor> sequenceRotaryTables(int64_t t, int64_t dim) {
    // div_term = 2 pi / T ** (arange(0, dim, 2) / dim); Tensor.__rtruediv__ is reciprocal() * 2pi.
    auto exponents = torch::arange(0, dim, 2, torch::kFloat32) / static_cast<double>(dim);
    auto powers = torch::pow(static_cast<double>(t), exponents);
    auto divTerm = powers.reciprocal() * (2.0 * M_PI);
    auto positions = torch::arange(t, torch::kFloat32).unsqueeze(1);
    auto angles = positions * divTerm.unsqueeze(0);
    return {torch::sin(angles), torch::cos(angles)};
}

torch::Tensor applyRotaryInterleaved(const torch::Tensor& x, const torch::Tensor& sin,
                                     const torch::Tensor& cos) {
    const int64_t t = x.size(0), h = x.size(1), d = x.size(2);
    auto pairs = x.to(torch::kFloat32).reshape({t, h, d / 2, 2});
    auto even = pairs.select(-1, 0);
    auto odd = pairs.select(-1, 1);
    auto s = sin.unsqueeze(1);  // [T, 1, d/2]
    auto c = cos.unsqueeze(1);
    auto outEven = even * c + (-odd) * s;
    auto outOdd = odd * c + even * s;
    return torch::stack({outEven, outOdd}, -1).reshape({t, h, d}).to(x.scalar_type());
}

}  // namespace gatescope::core::power
