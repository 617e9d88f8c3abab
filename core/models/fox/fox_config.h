// Private to core/models/fox: the official ForgettingTransformerConfig, validated.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core::fox {

enum class ForgetGate { Full, BiasOnly, Fixed, None };
enum class GateActivation { Sigmoid, Silu };

struct FoxConfig {
    int vocabSize = 0;
    int hiddenSize = 0;
    int layers = 0;
    int heads = 0;
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
    int bosTokenId = -1;
};

/// Parses and validates config.json. Throws ModelError naming `file` and the key for unsupported
/// options (GQA, unknown fgate_type / hidden_act / ogate_act, silu output gate with output norm).
FoxConfig parseFoxConfig(const nlohmann::json& config, const std::string& file);

}  // namespace gatescope::core::fox
