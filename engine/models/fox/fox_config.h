// Private to engine/models/fox: the official ForgettingTransformerConfig and TransformerConfig
// (github:zhixuan-lin/forgetting-transformer, model/forgetting_transformer/ and
// model/transformer/), validated, as one set of options for the one block both classes share.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core {
class ConfigReader;
}

namespace gatescope::core::fox {

enum class ForgetGate { Full, BiasOnly, Fixed, None };
enum class GateActivation { Sigmoid, Silu };

struct FoxConfig {
    int vocabSize = 0;
    int hiddenSize = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;  ///< key/value heads; query head h reads kv head h / (heads / kvHeads)
    int headDim = 0;
    int intermediateSize = 0;  ///< after the official hidden_ratio rounding rule
    GateActivation mlpActivation = GateActivation::Sigmoid;  ///< hidden_act: swish -> Silu
    double normEps = 1e-6;
    bool tieWordEmbeddings = false;
    bool useRope = false;
    double ropeBase = 500000.0;
    bool useOutputGate = false;
    GateActivation outputGateActivation = GateActivation::Sigmoid;
    bool useOutputNorm = false;
    ForgetGate forgetGate = ForgetGate::Full;
    bool qkNorm = false;
    bool qkNormShared = false;
    bool useKShift = false;
    bool useVShift = false;
    int64_t window = 0;  ///< 0: full causal; w: keys i - w + 1 .. i (TransformerConfig only)
    int bosTokenId = -1;
};

/// Reads the keys both official configs share and read alike (sizes, hidden_ratio /
/// intermediate_size with the official rounding, norm_eps, tie_word_embeddings, rope_base,
/// bos_token_id: 1 when absent, none when null) from `r` over `json` into `c`; sets kvHeads =
/// heads and headDim.
void readSharedKeys(const ConfigReader& r, const nlohmann::json& json, FoxConfig& c);

/// Parses and validates config.json. Throws ModelError naming `file` and the key for unsupported
/// options (GQA, unknown fgate_type / hidden_act / ogate_act, silu output gate with output norm).
FoxConfig parseFoxConfig(const nlohmann::json& config, const std::string& file);

/// Parses the Transformer (LLaMA) baseline's own TransformerConfig (model_type
/// "transformer-project_fox") into the same options: no forget gate, shifts, QK-norm or output
/// gate/norm; RoPE on by default; grouped-query heads and a sliding window allowed. Throws
/// ModelError naming `file` and the key, as parseFoxConfig.
FoxConfig parseTransformerConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::fox
