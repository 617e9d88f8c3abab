// The Transformer (LLaMA) baseline's TransformerConfig (model/transformer/ of the official FoX
// code, model_type "transformer-project_fox"), read into FoxConfig: its block is the FoX LLaMA
// block without a forget gate, with RoPE, grouped-query heads and an optional sliding window.
#include <fmt/format.h>

#include "engine/models/fox/fox_config.h"
#include "engine/nn/config_reader.h"
#include "engine/nn/model_error.h"

namespace gatescope::core::fox {

namespace {

/// TransformerMLP builds ACT2FN[hidden_act] (a KeyError for names transformers 4.44 does not
/// know) but its forward always runs swiglu_linear: the value never changes the math.
void checkHiddenAct(const ConfigReader& r) {
    static const char* const kAct2Fn[] = {
        "gelu",          "gelu_10", "gelu_fast",  "gelu_new", "gelu_python", "gelu_pytorch_tanh",
        "gelu_accurate", "laplace", "leaky_relu", "linear",   "mish",        "quick_gelu",
        "relu",          "relu2",   "relu6",      "sigmoid",  "silu",        "swish",
        "tanh"};
    const auto name = r.string("hidden_act", "swish");
    for (const char* known : kAct2Fn)
        if (name == known) return;
    throwModelError(ErrorKind::Unsupported,
                    "unknown hidden_act '" + name +
                        "' (transformers' ACT2FN has no such activation; the official "
                        "TransformerMLP always computes SwiGLU)",
                    r.file(), "hidden_act");
}

}  // namespace

FoxConfig parseTransformerConfig(const nlohmann::json& json, const std::string& file) {
    ConfigReader r(json, file);
    FoxConfig c;
    readSharedKeys(r, json, c);
    if (auto kv = r.optionalInteger("num_kv_heads", 1, c.heads)) {
        if (c.heads % *kv != 0) {
            r.fail("num_kv_heads",
                   fmt::format("num_heads {} is not a multiple of num_kv_heads {}", c.heads, *kv));
        }
        c.kvHeads = *kv;  // query head h reads kv head h / (num_heads / num_kv_heads)
    }
    // flash_attn window (window_size - 1, 0): keys i - w + 1 .. i. 0 gives flash-attn's (-1, 0),
    // an unbounded left window, as null does.
    c.window = r.integerOr("window_size", 0, 0, kMaxConfigSize);
    c.useRope = r.boolean("use_rope", true);
    checkHiddenAct(r);
    c.mlpActivation = GateActivation::Silu;
    c.forgetGate = ForgetGate::None;
    // Read by the official code, no effect on its forward: max_position_embeddings only sizes the
    // rotary cache; elementwise_affine and attention_bias are stored but never passed to a module
    // (the norms always have a scale, the projections never a bias); fuse_norm is unused;
    // fuse_cross_entropy picks an implementation of the same loss.
    r.accept({"max_position_embeddings", "elementwise_affine", "attention_bias", "fuse_norm",
              "fuse_cross_entropy"});
    r.acceptBookkeeping();
    r.rejectUnknownKeys();
    return c;
}

}  // namespace gatescope::core::fox
