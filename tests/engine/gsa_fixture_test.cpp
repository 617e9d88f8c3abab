// Gated Slot Attention against the official fla model's own outputs (../shared/fixtures/gsa/gsa).
#include <cstdio>
#include <map>
#include <span>

#include <unistd.h>

#include <fmt/format.h>

#include "core/checkpoint/safetensors_writer.h"
#include "core/model/model.h"
#include "engine/models/registry.h"
#include "fixture_support.h"
#include "kernels/cpu/gsa_tile_source.h"

namespace gatescope {
namespace {

using test::RecordingProbe;

class GsaFixture : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = test::fixturesDir() / "gsa/gsa";
        if (!std::filesystem::exists(m_dir / "config.json"))
            GTEST_SKIP() << "fixture " << m_dir << " not found (../shared/fixtures is absent)";
        auto checkpoint = core::Checkpoint::open(m_dir);
        ASSERT_TRUE(checkpoint) << checkpoint.error().describe();
        auto model = core::loadModel(*checkpoint);
        ASSERT_TRUE(model) << model.error().describe();
        m_model = std::move(*model);
        m_expected = std::make_unique<test::Expected>(m_dir / "expected.safetensors");
    }
    std::filesystem::path m_dir;
    std::unique_ptr<core::Model> m_model;
    std::unique_ptr<test::Expected> m_expected;
};

TEST_F(GsaFixture, MatchesOfficialFloat32Outputs) {
    const auto ids = m_expected->ints("input_ids");
    const auto labels = m_expected->ints("labels");
    core::RunOptions options;
    options.returnLogits = true;
    options.recordHidden = true;
    RecordingProbe probe;
    auto result = m_model->forward(ids, labels, options, &probe);
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_EQ(m_model->info().family, "gsa");

    const double logitsErr = test::relativeError(result->logits.data, m_expected->floats("logits"));
    const double lossErr = test::relativeError(result->loss, m_expected->floats("per_token_loss"));
    std::printf("[ gsa      ] logits rel err %.2e, per-token loss rel err %.2e\n", logitsErr,
                lossErr);
    EXPECT_LT(logitsErr, 1e-4);
    EXPECT_LT(lossErr, 1e-4);
    // The official Triton chunk kernel in fp32 (tf32 dots) differs from the exact path by ~1e-3.
    std::printf(
        "[ gsa      ] official triton fp32 logits vs exact: %.2e, ours vs triton: %.2e\n",
        test::relativeError(m_expected->floats("logits_official_fp32"),
                            m_expected->floats("logits")),
        test::relativeError(result->logits.data, m_expected->floats("logits_official_fp32")));

    const int layers = m_model->info().layers;
    for (int l = 0; l < layers; ++l) {
        SCOPED_TRACE(fmt::format("layer {}", l));
        const auto& rec = probe.layers.at(l);
        EXPECT_EQ(rec.attention.scoreKind, core::ScoreKind::Gsa);
        EXPECT_EQ(rec.attention.channels, 16);
        EXPECT_LT(test::relativeError(rec.hiddenIn.data,
                                      m_expected->floats(fmt::format("hidden_states.{}", l))),
                  1e-4);
        const auto name = [&](const char* tensor) {
            return fmt::format("layers.{}.{}", l, tensor);
        };
        EXPECT_LT(
            test::relativeError(rec.logRetention.data, m_expected->floats(name("log_forget"))),
            1e-4);
        EXPECT_EQ(rec.logRetention.shape, m_expected->shape(name("log_forget")));
        // ours -> fixture name
        for (auto [ours, theirs] : {std::pair{"q", "q"},
                                    {"k", "k"},
                                    {"v", "v"},
                                    {"write", "write"},
                                    {"slot_scores", "slot_scores"},
                                    {"slot_probs", "slot_probs"}}) {
            const auto& factor = rec.factors.at(ours);
            EXPECT_EQ(factor.shape, m_expected->shape(name(theirs))) << ours;
            const double err = test::relativeError(factor.data, m_expected->floats(name(theirs)));
            std::printf("[ gsa      ] layer %d %-12s rel err %.2e\n", l, ours, err);
            EXPECT_LT(err, 1e-4) << ours;
        }
        // The attention output recomputed from the stored O(N) factors through the tile source:
        // o_t = sum_i A[t,i] v_i, against the official layer's o.
        const int64_t n = ids.size(), heads = rec.attention.heads, m = rec.attention.channels;
        const int64_t dv = rec.attention.valueDim, group = heads / rec.attention.kvHeads;
        const auto& probs = rec.factors.at("slot_probs").data;
        const auto& write = rec.factors.at("write").data;
        const auto& cumsum = rec.factors.at("log_forget_cumsum").data;
        const auto& v = rec.factors.at("v").data;
        std::vector<float> o(heads * n * dv, 0.0f), a(n * n);
        for (int64_t h = 0; h < heads; ++h) {
            kernels::GsaTileSource source({n, static_cast<int>(m), probs.data() + h * n * m,
                                           write.data() + h * n * m, cumsum.data() + h * n * m});
            source.compute(kernels::MapKind::Attention, 0, n, 0, n, a.data());
            for (int64_t t = 0; t < n; ++t)
                for (int64_t i = 0; i <= t; ++i)
                    for (int64_t d = 0; d < dv; ++d)
                        o[(h * n + t) * dv + d] += a[t * n + i] * v[((h / group) * n + i) * dv + d];
        }
        const double oErr = test::relativeError(o, m_expected->floats(name("o")));
        std::printf("[ gsa      ] layer %d o (A v via GsaTileSource) rel err %.2e\n", l, oErr);
        EXPECT_LT(oErr, 1e-4);
    }
    EXPECT_LT(test::relativeError(result->finalHidden.data,
                                  m_expected->floats(fmt::format("hidden_states.{}", layers))),
              1e-4);
}

TEST_F(GsaFixture, Bfloat16LandsNearOfficialBf16Loss) {
    core::RunOptions options;
    options.dtype = core::ComputeDType::BFloat16;
    auto result = m_model->forward(m_expected->ints("input_ids"), m_expected->ints("labels"),
                                   options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    test::expectBf16LossNearOfficial(result->loss, *m_expected, "gsa");
}

TEST_F(GsaFixture, LegacyParameterNamesGiveTheSameOutputs) {
    // Rewrite the fixture under the paper-era names (attn.norm, mlp.norm, fused gate_proj).
    auto file = core::SafetensorsFile::open(m_dir / "model.safetensors");
    ASSERT_TRUE(file) << file.error().describe();
    std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> tensors;
    for (const auto& [name, info] : (*file)->tensors()) {
        tensors[name] = {info.shape, core::toFloat32(info).value()};
    }
    for (int l = 0; l < m_model->info().layers; ++l) {
        const std::string p = fmt::format("model.layers.{}.", l);
        tensors[p + "attn.norm.weight"] = tensors.at(p + "attn_norm.weight");
        tensors[p + "mlp.norm.weight"] = tensors.at(p + "mlp_norm.weight");
        auto gate = tensors.at(p + "mlp.gate_proj.weight");
        const auto& up = tensors.at(p + "mlp.up_proj.weight");
        gate.first[0] *= 2;
        gate.second.insert(gate.second.end(), up.second.begin(), up.second.end());
        tensors[p + "mlp.gate_proj.weight"] = gate;
        for (const char* old : {"attn_norm.weight", "mlp_norm.weight", "mlp.up_proj.weight"})
            tensors.erase(p + old);
    }
    const auto dir =
        std::filesystem::temp_directory_path() / fmt::format("gatescope_gsa_legacy_{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(m_dir / "config.json", dir / "config.json",
                               std::filesystem::copy_options::overwrite_existing);
    std::vector<core::TensorToWrite> out;
    for (const auto& [name, t] : tensors)
        out.push_back(
            {name, core::DType::F32, t.first, std::as_bytes(std::span<const float>(t.second))});
    ASSERT_TRUE(core::writeSafetensors(dir / "model.safetensors", out));
    auto legacy = core::loadModel(core::Checkpoint::open(dir).value());
    ASSERT_TRUE(legacy) << legacy.error().describe();
    core::RunOptions options;
    options.returnLogits = true;
    auto result = (*legacy)->forward(m_expected->ints("input_ids"), m_expected->ints("labels"),
                                     options, nullptr);
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_LT(test::relativeError(result->logits.data, m_expected->floats("logits")), 1e-4);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatescope
