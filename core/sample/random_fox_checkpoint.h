// Writes a FoX checkpoint with seeded random weights in the official layout (config.json +
// model.safetensors). For the demo, benchmarks at published sizes, and tests; not a trained model.
#pragma once

#include <cstdint>
#include <filesystem>

#include "data/common/result.h"

namespace gatescope::core {

struct RandomFoxSpec {
    int layers = 2;
    int hiddenSize = 64;
    int heads = 4;
    int vocabSize = 256;  ///< 256 selects the byte-level tokenizer ("gatescope_tokenizer": "byte")
    bool pro = true;      ///< FoX (Pro) block: output gate + norm, QK-norm, KV-shift
    bool forgetGate = true;  ///< false: the Transformer baseline (fgate_type "none", RoPE on)
    double hiddenRatio = 3.5;
    uint64_t seed = 1;
};

/// Writes `dir`/config.json and `dir`/model.safetensors (creating `dir`). Weights ~ N(0, 0.02^2)
/// as the official init, except forget-gate biases spread over heads (from fast to slow decay) so
/// that the gates show structure. Errors: the folder or files cannot be written.
Status writeRandomFoxCheckpoint(const std::filesystem::path& dir, const RandomFoxSpec& spec);

}  // namespace gatescope::core
