#include "engine/nn/layers.h"

#include "kernels/cpu/cancel.h"

namespace gatescope::core {

torch::Tensor Linear::operator()(const torch::Tensor& x, const Precision& precision) const {
    // Projections and norms are where a layer spends its time outside the attention kernels
    // (which poll per block): polling before each keeps Ctrl-C within a second at 100k+ tokens.
    kernels::throwIfCancelled();
    if (!precision.bf16) {
        auto y = torch::matmul(x.to(torch::kFloat32), weight.t());
        return bias.defined() ? y + bias : y;
    }
    if (!m_weightBf16.defined()) {
        m_weightBf16 = weight.to(torch::kBFloat16);
        if (bias.defined()) m_biasBf16 = bias.to(torch::kBFloat16);
    }
    if (m_weightBf16.is_cuda()) {
        return torch::linear(x.to(torch::kBFloat16), m_weightBf16, m_biasBf16);
    }
    // bf16 GEMM with fp32 accumulation, output rounded to bf16, as under CUDA autocast.
    auto y = torch::matmul(x.to(torch::kBFloat16).to(torch::kFloat32),
                           m_weightBf16.to(torch::kFloat32).t());
    if (m_biasBf16.defined()) y = y + m_biasBf16.to(torch::kFloat32);
    return y.to(torch::kBFloat16);
}

Linear Linear::to(const torch::Device& device) const {
    Linear moved;
    moved.weight = weight.defined() ? weight.to(device) : weight;
    moved.bias = bias.defined() ? bias.to(device) : bias;
    return moved;
}

torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps,
                      torch::ScalarType outDtype) {
    kernels::throwIfCancelled();
    auto xf = x.to(torch::kFloat32);
    auto y = xf * torch::rsqrt(xf.pow(2).mean(-1, true) + eps);
    if (weight.defined()) y = y * weight;
    return y.to(outDtype);
}

torch::Tensor groupRmsNorm(const torch::Tensor& x, int64_t groups, const torch::Tensor& weight,
                           double eps, torch::ScalarType outDtype) {
    auto shape = x.sizes().vec();
    const int64_t width = shape.back();
    auto grouped = x.to(torch::kFloat32).reshape({-1, groups, width / groups});
    auto y = grouped * torch::rsqrt(grouped.pow(2).mean(-1, true) + eps);
    y = y.reshape(shape);
    if (weight.defined()) y = y * weight;
    return y.to(outDtype);
}

torch::Tensor layerNorm(const torch::Tensor& x, const torch::Tensor& weight,
                        const torch::Tensor& bias, double eps, torch::ScalarType outDtype) {
    auto xf = x.to(torch::kFloat32);
    auto y = torch::layer_norm(xf, {xf.size(-1)}, weight, bias, eps);
    return y.to(outDtype);
}

std::pair<torch::Tensor, torch::Tensor> rotaryTables(int64_t n, int64_t dim, double base) {
    auto exponents = torch::arange(0, dim, 2, torch::kFloat32) / static_cast<double>(dim);
    auto invFreq = 1.0 / torch::pow(torch::tensor(base, torch::kFloat32), exponents);
    auto positions = torch::arange(n, torch::kFloat32);
    auto freqs = torch::outer(positions, invFreq);
    return {freqs.cos(), freqs.sin()};
}

torch::Tensor applyRotaryHalf(const torch::Tensor& x, const torch::Tensor& cos,
                              const torch::Tensor& sin) {
    const int64_t half = cos.size(1);
    auto xf = x.to(torch::kFloat32);
    auto x1 = xf.narrow(-1, 0, half);
    auto x2 = xf.narrow(-1, half, half);
    auto c = cos.unsqueeze(1);  // [N, 1, half]
    auto s = sin.unsqueeze(1);
    auto rotated = torch::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
    if (2 * half < xf.size(-1)) {
        rotated = torch::cat({rotated, xf.narrow(-1, 2 * half, xf.size(-1) - 2 * half)}, -1);
    }
    return rotated.to(x.scalar_type());
}

torch::Tensor tokenShift(const torch::Tensor& x, const torch::Tensor& alpha) {
    auto xf = x.to(torch::kFloat32);
    auto previous = torch::zeros_like(xf);
    if (xf.size(0) > 1)
        previous.narrow(0, 1, xf.size(0) - 1).copy_(xf.narrow(0, 0, xf.size(0) - 1));
    auto a = alpha.to(torch::kFloat32).unsqueeze(-1);
    return (previous * a + xf * (1.0 - a)).to(x.scalar_type());
}

torch::Tensor roundTrip(const torch::Tensor& x, torch::ScalarType dtype) {
    return x.to(dtype).to(torch::kFloat32);
}

}  // namespace gatescope::core
