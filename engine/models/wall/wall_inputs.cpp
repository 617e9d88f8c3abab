#include "engine/models/wall/wall_inputs.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "engine/nn/interventions.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::wall {

namespace {

/// [N, heads, D] (any dtype) -> [heads, N, D] contiguous float32, the kernel's layout.
torch::Tensor headMajor(const torch::Tensor& x) {
    return x.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
}

/// Per token, the first position of its document: [N] int64 on `device`.
torch::Tensor documentStartOfEachToken(std::span<const int64_t> starts, int64_t n,
                                       const torch::Device& device) {
    std::vector<int64_t> startOf(n, 0);
    for (std::size_t d = 0; d < starts.size(); ++d) {
        const int64_t end = d + 1 < starts.size() ? starts[d + 1] : n;
        std::fill(startOf.begin() + starts[d], startOf.begin() + end, starts[d]);
    }
    return torch::tensor(startOf, torch::kInt64).to(device);
}

/// Prefix sums over dim 0 of x [N, ...] in float64, restarting at each token's document start
/// (`startOf` undefined: one document); returned as float32.
torch::Tensor prefixSums(const torch::Tensor& x, const torch::Tensor& startOf) {
    auto sums = x.to(torch::kFloat64).cumsum(0);
    if (startOf.defined()) {
        // sum over [start, t] = C[t] - C[start - 1], with C[-1] = 0.
        auto shifted = torch::cat({torch::zeros_like(sums.narrow(0, 0, 1)), sums}, 0);
        sums = sums - shifted.index_select(0, startOf);
    }
    return sums.to(torch::kFloat32);
}

}  // namespace

void checkDocumentStarts(std::span<const int64_t> starts, int64_t n) {
    for (std::size_t d = 0; d < starts.size(); ++d) {
        const bool ok = d == 0 ? starts[d] == 0 : starts[d] > starts[d - 1];
        if (!ok || starts[d] >= n) {
            throwModelError(ErrorKind::Usage,
                            fmt::format("document start {} (entry {}): starts must increase from "
                                        "0 and lie below the {} tokens",
                                        starts[d], d, n),
                            {}, "documents");
        }
    }
}

WallInputs wallInputs(const WallConfig& c, const WallLayerWeights& w, const torch::Tensor& normed,
                      const Precision& precision, std::span<const int64_t> documentStarts,
                      const RunOptions* options, int layer) {
    const int64_t n = normed.size(0), hd = c.headDim;
    const auto device = normed.device();
    torch::Tensor startOf;
    if (documentStarts.size() > 1) startOf = documentStartOfEachToken(documentStarts, n, device);
    auto q = w.q(normed, precision).view({n, c.heads, hd});
    auto k = w.k(normed, precision).view({n, c.kvHeads, hd});
    auto v = w.v(normed, precision).view({n, c.kvHeads, hd});
    if (c.useRope) {
        auto [cos, sin] = rotaryTables(n, hd, c.ropeTheta);
        cos = cos.to(device);
        sin = sin.to(device);
        if (startOf.defined()) {  // position inside the document
            auto positions =
                torch::arange(n, torch::TensorOptions(device).dtype(torch::kInt64)) - startOf;
            cos = cos.index_select(0, positions);
            sin = sin.index_select(0, positions);
        }
        q = applyRotaryHalf(q, cos, sin);
        k = applyRotaryHalf(k, cos, sin);
    }
    WallInputs in;
    in.q = headMajor(q);
    in.k = headMajor(k);
    in.v = headMajor(v);
    if (c.gateDim > 0) {
        // softclamp(logsigmoid(z)), natural log, <= 0.
        auto z = w.g(normed, precision).to(torch::kFloat32).view({n, c.gateHeads(), c.gateDim});
        in.gates = torch::log_sigmoid(z);
        if (c.softClamp) in.gates = *c.softClamp * torch::expm1(in.gates / *c.softClamp);
        if (options) {  // interventions act on gate heads first: [G, N, C]
            in.gates = intervenedLogGate(*options, layer, in.gates.permute({1, 0, 2}))
                           .permute({1, 0, 2})
                           .contiguous();
        }
        in.cumsum = headMajor(prefixSums(in.gates, startOf));
    }
    if (c.scalarGate) {
        // fla's ForgettingAttention gate: logsigmoid(f_proj(x)) in fp32, one per query head.
        in.scalarGates = torch::log_sigmoid(w.f(normed, precision).to(torch::kFloat32));
        // Without channel gates the scalar gate is the layer's gate (the trace's retention).
        if (options && c.gateDim == 0)
            in.scalarGates =
                intervenedLogGate(*options, layer, in.scalarGates.t()).t().contiguous();
        in.scalarCumsum = prefixSums(in.scalarGates, startOf).t().contiguous();
    }
    return in;
}

}  // namespace gatescope::core::wall
