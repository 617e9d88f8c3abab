// GatedFWA at a length that is not a multiple of the attention block (and many windows long):
// the blockwise forward's row normalizer, recomputed attention and decay tiles, and the memory
// gate all agree with a dense float64 reference written from the formulas (spec gatedfwa.md §1).
#include <random>

#include <fmt/format.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "gatedfwa_test_support.h"
#include "kernels/cpu/tile_recompute.h"

namespace gatescope {
namespace {

using test::gatedfwa::headSlice;
using test::gatedfwa::RecordingProbe;

constexpr int64_t kTokens = 301;  // > 2 blocks of 128, not a multiple; 12.5 windows of 24

double logSigmoid(double z) {
    return std::min(z, 0.0) - std::log1p(std::exp(-std::abs(z)));
}

/// The public code's log gate from the layer input, in float64 (spec §1.5):
/// log lambda = logsigmoid(beta h) / (beta + 1e-3), beta = 1 + elu(a W_lambda), h = a W_g^T + b,
/// a = the parameter-free RMSNorm of the residual stream (eps = float32 epsilon).
std::vector<double> referenceLogGate(const core::FloatArray& hiddenIn, const test::Expected& w,
                                     int layer, int64_t heads) {
    const auto p = fmt::format("transformer.h.{}.attn.", layer);
    const auto wg = w.floats(p + "fgate_proj.weight"), bg = w.floats(p + "fgate_proj.bias");
    const auto wl = w.floats(p + "weight_lambda");  // [d, H], used as x @ W
    const int64_t n = hiddenIn.dim(0), d = hiddenIn.dim(1);
    std::vector<double> out(heads * n);
    for (int64_t i = 0; i < n; ++i) {
        const float* x = hiddenIn.data.data() + i * d;
        double ms = 0;
        for (int64_t c = 0; c < d; ++c)
            ms += double(x[c]) * x[c];
        const double inv = 1.0 / std::sqrt(ms / d + std::numeric_limits<float>::epsilon());
        for (int64_t h = 0; h < heads; ++h) {
            double logit = bg[h], z = 0;
            for (int64_t c = 0; c < d; ++c) {
                logit += x[c] * inv * wg[h * d + c];
                z += x[c] * inv * wl[c * heads + h];
            }
            const double beta = 1.0 + (z > 0 ? z : std::expm1(z));
            out[h * n + i] = logSigmoid(beta * logit) / (beta + 1e-3);
        }
    }
    return out;
}

TEST(GatedFwaWindow, LongInputMatchesDenseFloat64Reference) {
    GATESCOPE_REQUIRE_FIXTURE(dir, "gatedfwa/gatedfwa");
    auto model = core::loadModel(core::Checkpoint::open(dir).value());
    ASSERT_TRUE(model) << model.error().describe();
    std::mt19937 rng(7);
    std::uniform_int_distribution<int32_t> token(0, (*model)->info().vocabSize - 1);
    std::vector<int32_t> ids(kTokens);
    for (auto& id : ids)
        id = token(rng);

    core::RunOptions options;
    options.recordHidden = true;
    RecordingProbe probe;
    auto result = (*model)->forward(ids, {}, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    test::Expected weights(dir / "model.safetensors");

    for (const auto& [layer, rec] : probe.layers) {
        SCOPED_TRACE(fmt::format("layer {}", layer));
        const int64_t heads = rec.attention.heads, n = kTokens, window = rec.attention.window;
        const int d = rec.attention.headDim;
        ASSERT_EQ(window, 24);
        const auto gateRef = referenceLogGate(rec.hiddenIn, weights, layer, heads);
        double gateErr = 0;
        for (int64_t i = 0; i < heads * n; ++i) {
            const double got = rec.logRetention.data[i];
            gateErr = std::max(gateErr, std::abs(got - gateRef[i]) / (std::abs(gateRef[i]) + 1e-3));
            EXPECT_LE(got, 0.0);  // memory gate exp(-alpha) in (0, 1]
        }
        EXPECT_LT(gateErr, 1e-4);

        for (int64_t h = 0; h < heads; ++h) {
            SCOPED_TRACE(fmt::format("head {}", h));
            auto q = headSlice(rec.factors.at("q"), h), k = headSlice(rec.factors.at("k"), h);
            auto lse = headSlice(rec.factors.at("lse"), h);
            auto c = headSlice(rec.factors.at("log_decay_cumsum"), h);
            auto logGate = headSlice(rec.logRetention, h);
            const auto ref = test::gatedfwa::denseWindowAttention(q, k, logGate, n, d,
                                                                  rec.attention.scale, window);
            std::vector<float> refLse(ref.lse.begin(), ref.lse.end());
            std::vector<float> refU(ref.u.begin(), ref.u.end());
            EXPECT_LT(test::relativeError(lse, refLse), 1e-5);
            EXPECT_LT(test::relativeError(c, refU), 1e-5);

            kernels::AdditiveDecayHead view;
            view.n = n;
            view.dk = d;
            view.q = q.data();
            view.k = k.data();
            view.lse = lse.data();
            view.logDecayCumsum = c.data();
            view.scale = static_cast<float>(rec.attention.scale);
            view.window = window;
            kernels::AdditiveDecayTileSource source(view);
            // A tile that straddles block edges and the band: rows 117..300, columns 90..299.
            const int64_t row0 = 117, rows = n - row0, col0 = 90, cols = 210;
            std::vector<float> tile(rows * cols), decay(rows * cols);
            source.compute(kernels::MapKind::Attention, row0, rows, col0, cols, tile.data());
            source.compute(kernels::MapKind::Decay, row0, rows, col0, cols, decay.data());
            std::vector<float> refTile(rows * cols), refDecay(rows * cols);
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t i = row0 + r;
                for (int64_t cc = 0; cc < cols; ++cc) {
                    const int64_t j = col0 + cc;
                    refTile[r * cols + cc] = float(ref.probs[i * n + j]);
                    const bool inside = j <= i && j > i - window;
                    // From the stored float32 cumsum: |U| reaches ~1e2 here, so U itself carries
                    // ~|U| x 2^-24 of rounding, which exp(U_i - U_j) would inherit (checked above).
                    refDecay[r * cols + cc] =
                        inside ? float(std::exp(double(c[i]) - double(c[j]))) : 0.f;
                    if (!inside) {
                        EXPECT_EQ(tile[r * cols + cc], 0.f) << i << "," << j;
                    }
                }
            }
            // 2e-5: the factors come from the model's fp32 GEMMs, whose summation order depends
            // on the BLAS (1.03e-5 with the GPU machine's LibTorch CPU GEMMs, 2026-11-22).
            EXPECT_LT(test::relativeError(tile, refTile), 2e-5);
            EXPECT_LT(test::relativeError(decay, refDecay), 1e-5);
        }
    }
}

}  // namespace
}  // namespace gatescope
