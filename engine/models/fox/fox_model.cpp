#include "engine/models/fox/fox_model.h"

#include <cmath>
#include <string>
#include <tuple>

#include "engine/models/fox/fox_config.h"
#include "engine/models/fox/fox_weights.h"
#include "engine/nn/attention.h"
#include "engine/nn/decoder_model.h"
#include "engine/nn/interventions.h"

namespace gatescope::core::fox {

namespace {

constexpr double kQkNormEps = 1e-5;  // the official QK-norm uses the RMSNorm default, not norm_eps

torch::Tensor gateActivation(const torch::Tensor& x, GateActivation act) {
    return act == GateActivation::Silu ? torch::silu(x) : torch::sigmoid(x);
}

class FoxDecoder final : public DecoderArchBase<FoxConfig, FoxWeights> {
public:
    static void describe(const FoxConfig& c, ModelInfo& info) {
        info.family = c.forgetGate == ForgetGate::None ? "transformer" : "fox";
        info.headDim = c.headDim;
        info.gateChannels = c.forgetGate == ForgetGate::None ? 0 : 1;
    }

    static void move(FoxWeights& w, const DeviceMover& move) {
        move.embeddingsAndHead(w.embeddings, w.lmHead);
        move(w.finalNorm);
        for (auto& l : w.layers) {
            for (auto* t :
                 {&l.attnNorm, &l.mlpNorm, &l.forgetBias, &l.outputNorm, &l.qNorm, &l.kNorm})
                move(*t);
            for (auto* lin : {&l.q, &l.k, &l.v, &l.o, &l.kShift, &l.vShift, &l.forgetGate,
                              &l.outputGate, &l.gateUp, &l.down})
                move(*lin);
        }
    }

    explicit FoxDecoder(const Pass& pass) : DecoderArchBase(pass) {
        const auto& c = pass.config;
        if (c.useRope) {
            std::tie(m_cos, m_sin) = rotaryTables(pass.session.n(), c.headDim, c.ropeBase);
            m_cos = onDevice(m_cos, pass.session.device());
            m_sin = onDevice(m_sin, pass.session.device());
        }
    }

    torch::Tensor embed(const torch::Tensor& ids) const {
        return pass().weights.embeddings.index_select(0, ids);
    }

    torch::Tensor block(int layer, const torch::Tensor& x, LayerRecord* rec) const {
        const auto& c = pass().config;
        const FoxLayerWeights& w = pass().weights.layers[layer];
        const Precision& precision = pass().precision;
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
            q = applyRotaryHalf(q, m_cos, m_sin);
            k = applyRotaryHalf(k, m_cos, m_sin);
        }

        torch::Tensor logForget;  // [H, N] fp32, undefined without a forget gate
        if (c.forgetGate == ForgetGate::Full) {
            logForget = torch::log_sigmoid(w.forgetGate(a, precision).to(torch::kFloat32)).t();
        } else if (c.forgetGate != ForgetGate::None) {
            logForget = torch::log_sigmoid(w.forgetBias).unsqueeze(1).expand({h, n});
        }
        if (logForget.defined()) logForget = intervenedLogGate(pass().options, layer, logForget);
        torch::Tensor cumsum;
        if (logForget.defined()) cumsum = torch::cumsum(logForget, 1).contiguous();

        auto qh = q.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        auto kh = k.permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        auto vh = v.view({n, kvh, hd}).permute({1, 0, 2}).to(torch::kFloat32).contiguous();
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        auto attention = additiveDecayAttention(qh, kh, vh, cumsum, scale, c.window, precision.bf16,
                                                pass().options.threads);
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
        o = ablatedHeads(pass().options, layer, o, static_cast<int>(h));
        auto residual = x + w.o(o, precision).to(torch::kFloat32);

        auto m = rmsNorm(residual, w.mlpNorm, c.normEps, act);
        auto gateUp = w.gateUp(m, precision).to(torch::kFloat32);
        auto parts = gateUp.chunk(2, -1);
        auto hiddenMlp = (gateActivation(parts[0], c.mlpActivation) * parts[1]).to(act);
        auto out = residual + w.down(hiddenMlp, precision).to(torch::kFloat32);

        if (rec) {
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
            recordFactors(*rec, *pass().probe, factors, logRetention);
        }
        return out;
    }

    torch::Tensor finalNorm(const torch::Tensor& x) const {
        return rmsNorm(x, pass().weights.finalNorm, pass().config.normEps, torch::kFloat32);
    }

    LogitsHead head() const {
        return {&pass().weights.lmHead, pass().config.vocabSize, std::nullopt, false};
    }

    std::string attentionPath() const {
        return attentionPathOn(pass().session.device(), "cpu-blockwise", "cuda-fused");
    }

private:
    torch::Tensor m_cos, m_sin;  ///< RoPE tables [N, D/2] on the device; undefined without RoPE
};

}  // namespace

namespace {

/// FoX and the RoPE Transformer share weights and decoder; `parse` reads the one's config.
template <typename Parse>
std::unique_ptr<Model> loadDecoder(std::shared_ptr<const Checkpoint> checkpoint, Parse parse) {
    WeightStore store(checkpoint);
    auto config = parse(checkpoint->config(), store.configFile());
    auto weights = loadFoxWeights(config, store);
    return std::make_unique<DecoderModel<FoxDecoder>>(std::move(config), std::move(weights),
                                                      checkpoint->modelType());
}

}  // namespace

std::unique_ptr<Model> loadFoxModel(std::shared_ptr<const Checkpoint> checkpoint) {
    return loadDecoder(std::move(checkpoint), parseFoxConfig);
}

std::unique_ptr<Model> loadTransformerModel(std::shared_ptr<const Checkpoint> checkpoint) {
    return loadDecoder(std::move(checkpoint), parseTransformerConfig);
}

}  // namespace gatescope::core::fox
