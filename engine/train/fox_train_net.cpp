// The FoX (and RoPE Transformer) training twin of engine/models/fox: the LLaMA-style block of the
// official forgetting-transformer code, with a data-dependent forget gate or none.
#include <cmath>

#include <fmt/format.h>

#include "engine/models/fox/fox_config.h"
#include "engine/nn/layers.h"
#include "engine/train/train_blocks.h"
#include "engine/train/train_net.h"

namespace gatescope::core::train {

namespace {

class FoxTrainNet final : public TrainNet {
public:
    FoxTrainNet(const NetShape& shape, bool forgetGate) : TrainNet(shape.seed) {
        m_config = {{"model_type", "forgetting_transformer-project_fox"},
                    {"architectures", {"ForgettingTransformerForCausalLM"}},
                    {"vocab_size", shape.vocabSize},
                    {"hidden_size", shape.hiddenSize},
                    {"num_hidden_layers", shape.layers},
                    {"num_heads", shape.heads},
                    {"num_kv_heads", nullptr},
                    {"hidden_ratio", 4.0},
                    {"intermediate_size", nullptr},
                    {"hidden_act", "swish"},
                    {"norm_eps", 1e-6},
                    {"use_rope", !forgetGate},
                    {"rope_base", 10000.0},
                    {"fgate_type", forgetGate ? "full" : "none"},
                    {"use_output_gate", false},
                    {"use_output_norm", false},
                    {"qk_norm", false},
                    {"use_k_shift", false},
                    {"use_v_shift", false},
                    {"tie_word_embeddings", false}};
        m_c = fox::parseFoxConfig(m_config, "config.json");
        const int64_t d = m_c.hiddenSize, h = m_c.heads;
        m_params.normal("model.embeddings.weight", {m_c.vocabSize, d}, kInitStd);
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            m_params.constant(p + "attn_norm.weight", {d}, 1.0);
            for (const char* proj : {"q_proj", "k_proj", "v_proj", "o_proj"})
                m_params.normal(p + "attn." + proj + ".weight", {d, d}, kInitStd);
            if (forgetGate) {
                m_params.normal(p + "attn.fgate_proj.weight", {h, d}, kInitStd);
                m_params.add(p + "attn.fgate_proj.bias", spreadGateBias(h));
            }
            addMlpSublayer(m_params, p, d, m_c.intermediateSize, true);
        }
        addOutputHead(m_params, d, m_c.vocabSize);
    }

    torch::Tensor logits(const torch::Tensor& ids) override {
        const auto& P = m_params;
        const int64_t b = ids.size(0), n = ids.size(1), h = m_c.heads, hd = m_c.headDim;
        torch::Tensor cos, sin;
        if (m_c.useRope) {
            std::tie(cos, sin) = rotaryTables(n, hd, m_c.ropeBase);
            cos = cos.to(ids.device());
            sin = sin.to(ids.device());
        }
        auto x = P.get("model.embeddings.weight").index_select(0, ids.flatten()).view({b, n, -1});
        for (int l = 0; l < m_c.layers; ++l) {
            const std::string p = fmt::format("model.layers.{}.", l);
            auto a = rmsNorm(x, P.get(p + "attn_norm.weight"), m_c.normEps, torch::kFloat32);
            auto q = linear(a, P, p + "attn.q_proj").view({b, n, h, hd});
            auto k = linear(a, P, p + "attn.k_proj").view({b, n, h, hd});
            auto v = linear(a, P, p + "attn.v_proj").view({b, n, h, hd});
            if (m_c.useRope) {
                q = applyRotaryHalf(q, cos, sin);
                k = applyRotaryHalf(k, cos, sin);
            }
            torch::Tensor bias;
            if (m_c.forgetGate == fox::ForgetGate::Full) {
                auto logForget = torch::log_sigmoid(linear(a, P, p + "attn.fgate_proj"));
                bias = pairwiseDecay(torch::cumsum(logForget.permute({0, 2, 1}), -1));
            }
            auto o = denseCausalAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                          bias, 1.0 / std::sqrt(static_cast<double>(hd)));
            x = x + linear(o.transpose(1, 2).reshape({b, n, -1}), P, p + "attn.o_proj");
            x = mlpSublayer(x, P, p, m_c.normEps, true);
        }
        return outputHead(x, P, m_c.normEps);
    }

private:
    fox::FoxConfig m_c;
};

}  // namespace

std::unique_ptr<TrainNet> makeFoxTrainNet(const NetShape& shape) {
    return std::make_unique<FoxTrainNet>(shape, true);
}

std::unique_ptr<TrainNet> makeTransformerTrainNet(const NetShape& shape) {
    return std::make_unique<FoxTrainNet>(shape, false);
}

}  // namespace gatescope::core::train
