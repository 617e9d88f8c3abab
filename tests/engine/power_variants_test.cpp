// Config variants of the power model the official fixture does not cover, against the float64
// reference of train/model.py (power_reference_model.h, itself checked against the fixture).
#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "kernels/cpu/power_tile_source.h"
#include "power_test_support.h"

namespace gatescope {
namespace {

using test::power::RefConfig;

struct PowerCase {
    const char* name;
    RefConfig config;
    int64_t n;
};

class PowerVariant : public ::testing::TestWithParam<PowerCase> {};

TEST_P(PowerVariant, MatchesFloat64Reference) {
    const auto& [label, c, n] = GetParam();
    test::power::Weights weights;
    std::map<std::string, std::vector<int64_t>> shapes;
    test::power::randomWeights(c, 2024, weights, shapes);
    test::power::ScratchCheckpoint scratch(weights, shapes, test::power::configJson(c), label);
    auto model = core::loadModel(core::Checkpoint::open(scratch.dir()).value());
    ASSERT_TRUE(model) << model.error().describe();
    EXPECT_EQ((*model)->info().heads, c.heads());
    EXPECT_EQ((*model)->info().kvHeads, c.kvHeads);

    std::vector<int32_t> ids(n);
    for (int64_t i = 0; i < n; ++i)
        ids[i] = static_cast<int32_t>((i * 37 + 11) % c.vocab);
    std::vector<int32_t> targets(ids.begin() + 1, ids.end());
    targets.push_back(-1);
    core::RunOptions options;
    options.returnLogits = true;
    options.threads = 2;
    test::power::RecordingProbe probe;
    auto result = (*model)->forward(ids, targets, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    const auto ref = test::power::runReference(c, weights, {ids.begin(), ids.end()},
                                               {targets.begin(), targets.end()});
    const std::vector<float> refLogits(ref.logits.begin(), ref.logits.end());
    const double logitsErr = test::relativeError(result->logits.data, refLogits);
    // The per-token loss is what users read: compared per position, in nats. loss = logsumexp(z)
    // - z[target] moves by at most 2 max_j |dz_j| when the logits z move, so a loss error beyond
    // that bound is a bug of its own (wrong target, wrong normalizer), not float32 rounding of
    // the logits; and the logits' rounding is what the 1e-4 relative bound above limits.
    double lossErr = 0, worstExcess = -1;
    for (int64_t i = 0; i + 1 < n; ++i) {
        double rowErr = 0;
        for (int64_t v = 0; v < c.vocab; ++v)
            rowErr = std::max(rowErr, std::abs(double(result->logits.data[i * c.vocab + v]) -
                                               ref.logits[i * c.vocab + v]));
        const double err = std::abs(double(result->loss[i]) - ref.loss[i]);
        lossErr = std::max(lossErr, err);
        worstExcess = std::max(worstExcess, err - (2 * rowErr + 1e-6));
    }
    std::printf("[ variant  ] %s (N %lld): logits rel %.1e, per-token loss abs %.1e\n", label,
                static_cast<long long>(n), logitsErr, lossErr);
    EXPECT_LT(logitsErr, 1e-4);
    EXPECT_LE(worstExcess, 0.0) << "a per-token loss moved more than its logits allow";
    EXPECT_LT(lossErr, 5e-4);

    for (int l = 0; l < c.layers; ++l) {
        SCOPED_TRACE(fmt::format("layer {}", l));
        const auto& rec = probe.layers.at(l);
        const auto& att = rec.attention;
        EXPECT_EQ(att.heads, c.heads());
        EXPECT_EQ(att.kvHeads, c.kvHeads);
        EXPECT_EQ(att.scoreKind, c.sdpa ? core::ScoreKind::AdditiveDecay : core::ScoreKind::Power);
        EXPECT_EQ(att.hasDecay, c.gating && !c.sdpa);
        // Reference arrays are [N, heads, d]; records are [heads, N, d].
        const auto& rq = ref.layers[l].q;
        const auto& rk = ref.layers[l].k;
        double qErr = 0, kErr = 0, scale = 0;
        const int d = c.headDim;
        for (int h = 0; h < c.heads(); ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int e = 0; e < d; ++e) {
                    const double want = rq[(t * c.heads() + h) * d + e];
                    qErr = std::max(qErr,
                                    std::abs(rec.factors.at("q").data[(h * n + t) * d + e] - want));
                    scale = std::max(scale, std::abs(want));
                }
        for (int h = 0; h < c.kvHeads; ++h)
            for (int64_t t = 0; t < n; ++t)
                for (int e = 0; e < d; ++e)
                    kErr = std::max(kErr, std::abs(rec.factors.at("k").data[(h * n + t) * d + e] -
                                                   rk[(t * c.kvHeads + h) * d + e]));
        EXPECT_LT(qErr / scale, 1e-4);
        EXPECT_LT(kErr / scale, 1e-4);
        if (att.scoreKind != core::ScoreKind::Power) continue;
        if (c.gating) {
            ASSERT_EQ(rec.logRetention.shape, (std::vector<int64_t>{c.heads(), n, 1}));
            for (int h = 0; h < c.heads(); ++h)
                for (int64_t t = 0; t < n; ++t) {
                    // Relative: log g reaches -2.4 in the deeper layers, where the residual
                    // stream's float32 rounding carries 1e-5 absolute (1.29e-5 at -1.12 in
                    // degree4_gqa_n301's layer 1 on an AMD EPYC, whose OpenBLAS kernels round
                    // otherwise; the q and k checks above allow 1e-4).
                    const double want = ref.layers[l].logG[t * c.kvHeads + h / c.ratio];
                    ASSERT_NEAR(rec.logRetention.data[h * n + t], want,
                                3e-5 * std::max(1.0, std::abs(want)));
                }
        } else {
            EXPECT_TRUE(rec.logRetention.data.empty());
            EXPECT_EQ(rec.factors.count("log_decay_cumsum"), 0u);
        }
        // Rows of every query head's recomputed attention sum to 1 - 1e-6 (the package's l + 1e-6).
        for (int h = 0; h < c.heads(); ++h) {
            auto q = test::power::headSlice(rec.factors.at("q"), h);
            auto k = test::power::headSlice(rec.factors.at("k"), h / c.ratio);
            auto z = test::power::headSlice(rec.factors.at("log_normalizer"), h);
            std::vector<float> g;
            kernels::PowerHead head;
            if (c.gating) {
                g = test::power::headSlice(rec.factors.at("log_decay_cumsum"), h);
                head.logDecayCumsum = g.data();
            }
            head.n = n;
            head.dk = d;
            head.q = q.data();
            head.k = k.data();
            head.logNormalizer = z.data();
            head.scale = static_cast<float>(att.scale);
            head.degree = c.degree;
            std::vector<float> tile(n * n);
            kernels::PowerTileSource(head).compute(kernels::MapKind::Attention, 0, n, 0, n,
                                                   tile.data());
            for (int64_t i = 0; i < n; ++i) {
                double sum = 0;
                for (int64_t j = 0; j < n; ++j)
                    sum += tile[i * n + j];
                ASSERT_NEAR(sum, 1.0, 1e-5) << "head " << h << " row " << i;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    PowerConfigs, PowerVariant,
    ::testing::Values(
        // vocab, layers, kvHeads, qhead_ratio, head_size, n_embd, bias, gating, sdpa, degree
        PowerCase{"gqa", RefConfig{97, 2, 2, 2, 8, 24, true, true, false, 2}, 45},
        PowerCase{"no_bias", RefConfig{97, 1, 3, 1, 10, 30, false, true, false, 2}, 53},
        PowerCase{"ungated", RefConfig{97, 1, 2, 1, 8, 20, true, false, false, 2}, 40},
        PowerCase{"degree4", RefConfig{97, 1, 2, 1, 6, 16, true, true, false, 4}, 37},
        PowerCase{"sdpa_gqa", RefConfig{97, 2, 2, 3, 8, 20, true, false, true, 2}, 41},
        // Several attention blocks (N not a multiple of 64), grouped query heads, gating,
        // several layers, n_embd != query heads x head_size. The first one has the shape of a
        // user report (qhead_ratio 2, 3 layers x 3 kv heads, head size 32, vocab 1000, N 200).
        PowerCase{"gqa2_3layers_n200", RefConfig{1000, 3, 3, 2, 32, 96, true, true, false, 2}, 200},
        PowerCase{"gqa3_n301", RefConfig{311, 2, 3, 3, 32, 72, true, true, false, 2}, 301},
        PowerCase{"no_bias_gqa_n200", RefConfig{97, 2, 2, 2, 16, 40, false, true, false, 2}, 200},
        PowerCase{"degree4_gqa_n301", RefConfig{97, 2, 2, 3, 16, 40, true, true, false, 4}, 301},
        PowerCase{"ungated_gqa_n200", RefConfig{97, 2, 3, 2, 16, 40, true, false, false, 2}, 200},
        PowerCase{"sdpa_gqa_n301", RefConfig{97, 2, 2, 2, 16, 40, true, false, true, 2}, 301},
        // GPTConfig's defaults: attention_kernel sdpa with disable_gating false. The official
        // layer still sizes c_attn with the n_head gate columns and only warns that sdpa ignores
        // them.
        PowerCase{"sdpa_gate_columns", RefConfig{97, 2, 2, 2, 16, 40, true, true, true, 2}, 200}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gatescope
