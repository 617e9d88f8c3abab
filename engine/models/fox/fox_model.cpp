#include "engine/models/fox/fox_model.h"

#include <cmath>

#include <fmt/format.h>

#include "engine/models/fox/fox_config.h"
#include "engine/models/fox/fox_weights.h"
#include "engine/nn/attention.h"
#include "engine/nn/device.h"
#include "engine/nn/forward_support.h"
#include "engine/nn/tensor_convert.h"
#include "engine/nn/token_stats.h"

namespace gatescope::core::fox {

namespace {

constexpr double kQkNormEps = 1e-5;  // the official QK-norm uses the RMSNorm default, not norm_eps

void moveWeights(FoxWeights& w, const DeviceMover& move) {
    const bool tied = w.lmHead.weight.is_same(w.embeddings);
    move(w.embeddings);
    move(w.finalNorm);
    if (tied) {
        w.lmHead = Linear{};
        w.lmHead.weight = w.embeddings;
    } else {
        move(w.lmHead);
    }
    for (auto& l : w.layers) {
        for (auto* t : {&l.attnNorm, &l.mlpNorm, &l.forgetBias, &l.outputNorm, &l.qNorm, &l.kNorm})
            move(*t);
        for (auto* lin : {&l.q, &l.k, &l.v, &l.o, &l.kShift, &l.vShift, &l.forgetGate,
                          &l.outputGate, &l.gateUp, &l.down})
            move(*lin);
    }
}

torch::Tensor gateActivation(const torch::Tensor& x, GateActivation act) {
    return act == GateActivation::Silu ? torch::silu(x) : torch::sigmoid(x);
}

class FoxModel final : public Model {
public:
    FoxModel(FoxConfig config, FoxWeights weights, std::string modelType)
        : m_config(std::move(config)), m_weights(std::move(weights)) {
        m_info.modelType = std::move(modelType);
        m_info.family = m_config.forgetGate == ForgetGate::None ? "transformer" : "fox";
        m_info.layers = m_config.layers;
        m_info.heads = m_config.heads;
        m_info.kvHeads = m_config.kvHeads;
        m_info.headDim = m_config.headDim;
        m_info.hiddenSize = m_config.hiddenSize;
        m_info.vocabSize = m_config.vocabSize;
        if (m_config.bosTokenId >= 0) m_info.bosId = m_config.bosTokenId;
    }

    const ModelInfo& info() const override { return m_info; }

    Result<ForwardResult> forward(std::span<const int32_t> ids, std::span<const int32_t> targets,
                                  const RunOptions& options, Probe* probe) override {
        return guarded<ForwardResult>([&] { return run(ids, targets, options, probe); });
    }

private:
    ForwardResult run(std::span<const int32_t> ids, std::span<const int32_t> targetsIn,
                      const RunOptions& options, Probe* probe) const {
        ForwardSession session(ids, targetsIn, m_config.vocabSize, options, m_config.layers);
        const Precision precision{options.dtype == ComputeDType::BFloat16};
        const int64_t n = session.n();
        const auto& device = session.device();
        const FoxWeights& weights = m_deviceWeights.get(m_weights, device, moveWeights);
        torch::Tensor cos, sin;
        if (m_config.useRope) {
            std::tie(cos, sin) = rotaryTables(n, m_config.headDim, m_config.ropeBase);
            cos = onDevice(cos, device);
            sin = onDevice(sin, device);
        }

        auto x = weights.embeddings.index_select(0, session.idTensor());
        for (int l = 0; l < m_config.layers; ++l) {
            session.beginLayer(l);
            const bool record = probe && probe->wantsLayer(l);
            LayerRecord rec;
            if (record && options.recordHidden) rec.hiddenIn = toFloatArray(x);
            x = block(weights.layers[l], l, x, cos, sin, precision, options,
                      record ? &rec : nullptr, probe);
            if (record) probe->onLayer(std::move(rec));
        }
        ForwardResult result;
        auto hidden = rmsNorm(x, weights.finalNorm, m_config.normEps, torch::kFloat32);
        if (options.recordHidden) result.finalHidden = toFloatArray(hidden);
        LogitsHead head{&weights.lmHead, m_config.vocabSize, std::nullopt, false};
        session.progress(0.99, "logits");
        computeTokenStats(hidden, head, session.targets(), precision, options.returnLogits, result);
        result.attentionPath = attentionPathOn(device, "cpu-blockwise", "cuda-fused");
        return result;
    }

    torch::Tensor block(const FoxLayerWeights& w, int l, const torch::Tensor& x,
                        const torch::Tensor& cos, const torch::Tensor& sin,
                        const Precision& precision, const RunOptions& options, LayerRecord* rec,
                        const Probe* probe) const {
        const auto& c = m_config;
        const int64_t n = x.size(0), h = c.heads, kvh = c.kvHeads, hd = c.headDim;
        const auto act = precision.activation();

        auto a = rmsNorm(x, w.attnNorm, c.normEps, act);
        auto q = w.q(a, precision);
        auto k = w.k(a, precision);
        auto v = w.v(a, precision);
        if (c.useKShift) {
            auto alpha = torch::sigmoid(w.kShift(a, precision).to(torch::kFloat32));
            k = tokenShift(k.view({n, h, hd}), alpha).reshape({n, h * hd});
        }
        if (c.useVShift) {
            auto alpha = torch::sigmoid(w.vShift(a, precision).to(torch::kFloat32));
            v = tokenShift(v.view({n, h, hd}), alpha).reshape({n, h * hd});
        }
        if (c.qkNorm && !c.qkNormShared) {
            q = groupRmsNorm(q, h, w.qNorm, kQkNormEps, q.scalar_type());
            k = groupRmsNorm(k, h, w.kNorm, kQkNormEps, k.scalar_type());
        }
        q = q.view({n, h, hd});
        k = k.view({n, kvh, hd});
        if (c.qkNorm && c.qkNormShared) {
            q = rmsNorm(q, w.qNorm, kQkNormEps, q.scalar_type());
            k = rmsNorm(k, w.kNorm, kQkNormEps, k.scalar_type());
        }
        if (c.useRope) {
            q = applyRotaryHalf(q, cos, sin);
            k = applyRotaryHalf(k, cos, sin);
        }

        torch::Tensor logForget;  // [H, N] fp32, undefined without a forget gate
        if (c.forgetGate == ForgetGate::Full) {
            logForget = torch::log_sigmoid(w.forgetGate(a, precision).to(torch::kFloat32)).t();
        } else if (c.forgetGate != ForgetGate::None) {
            logForget = torch::log_sigmoid(w.forgetBias).unsqueeze(1).expand({h, n});
        }
        torch::Tensor cumsum;
        if (logForget.defined()) cumsum = torch::cumsum(logForget, 1).contiguous();

        auto qh = q.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        auto kh = k.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        auto vh = v.view({n, kvh, hd}).permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        auto attention = additiveDecayAttention(qh, kh, vh, cumsum, scale, c.window, precision.bf16,
                                                options.threads);
        auto o = attention.out.to(act).permute({1, 0, 2}).reshape({n, h * hd});

        if (c.useOutputNorm) {
            if (c.useOutputGate) {
                auto g = w.outputGate(a, precision).to(torch::kFloat32);
                o = (groupRmsNorm(o, h, w.outputNorm, c.normEps, torch::kFloat32) *
                     torch::sigmoid(g))
                        .to(act);
            } else {
                o = groupRmsNorm(o, h, w.outputNorm, c.normEps, act);
            }
        } else if (c.useOutputGate) {
            auto g = w.outputGate(a, precision).to(torch::kFloat32);
            o = (gateActivation(g, c.outputGateActivation) * o.to(torch::kFloat32)).to(act);
        }
        auto residual = x + w.o(o, precision).to(torch::kFloat32);

        auto m = rmsNorm(residual, w.mlpNorm, c.normEps, act);
        auto gateUp = w.gateUp(m, precision).to(torch::kFloat32);
        auto parts = gateUp.chunk(2, -1);
        auto hiddenMlp = (gateActivation(parts[0], c.mlpActivation) * parts[1]).to(act);
        auto out = residual + w.down(hiddenMlp, precision).to(torch::kFloat32);

        if (rec) {
            rec->layer = l;
            rec->attention.scoreKind = ScoreKind::AdditiveDecay;
            rec->attention.heads = static_cast<int>(h);
            rec->attention.kvHeads = static_cast<int>(kvh);
            rec->attention.window = c.window;
            rec->attention.headDim = rec->attention.valueDim = static_cast<int>(hd);
            rec->attention.scale = scale;
            rec->attention.hasDecay = cumsum.defined();
            attachDeviceFactors(*rec, qh, kh, attention.lse, cumsum);
            auto factors = attentionFactors(q, k, vh, attention.lse);
            torch::Tensor logRetention;
            if (cumsum.defined()) {
                factors.emplace_back("log_decay_cumsum", cumsum);
                logRetention = logForget.unsqueeze(-1);
            }
            recordFactors(*rec, *probe, factors, logRetention);
        }
        return out;
    }

    FoxConfig m_config;
    FoxWeights m_weights;
    mutable DeviceWeightCache<FoxWeights> m_deviceWeights;
    ModelInfo m_info;
};

}  // namespace

std::unique_ptr<Model> loadFoxModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseFoxConfig(checkpoint->config(), store.configFile());
    auto weights = loadFoxWeights(config, store);
    return std::make_unique<FoxModel>(std::move(config), std::move(weights),
                                      checkpoint->modelType());
}

std::unique_ptr<Model> loadTransformerModel(std::shared_ptr<const Checkpoint> checkpoint) {
    WeightStore store(checkpoint);
    auto config = parseTransformerConfig(checkpoint->config(), store.configFile());
    auto weights = loadFoxWeights(config, store);
    return std::make_unique<FoxModel>(std::move(config), std::move(weights),
                                      checkpoint->modelType());
}

}  // namespace gatescope::core::fox
