// Private to engine/models: the fla-style decoder stack that GSA and Wall share, with fla's
// checkpoint names: token embeddings (`model.embeddings`), pre-norm blocks
//   h = x + mixer(RMSNorm_attn(x));  out = h + down(silu(gate(RMSNorm_mlp(h))) *
//   up(RMSNorm_mlp(h)))
// (`model.layers.{i}.attn_norm`, `.mlp_norm`, `.mlp.{gate,up,down}_proj`), a final RMSNorm
// (`model.norm`) and the LM head (`lm_head`, or the embeddings when tied).
#pragma once

#include <string>
#include <vector>

#include "engine/nn/layers.h"
#include "engine/nn/weight_store.h"

namespace gatescope::core {

/// One block's weights outside its token mixer.
struct FlaBlockWeights {
    torch::Tensor attnNorm, mlpNorm;  ///< [d]
    Linear gate, up, down;            ///< gate/up [I, d], down [d, I]
};

/// Takes layer `layer`'s norms and MLP. Also accepts the paper-era names (FLA before Feb 2025:
/// `attn.norm` / `mlp.norm`, one fused `mlp.gate_proj` [2I, d], gate rows first).
FlaBlockWeights loadFlaBlock(WeightStore& store, int layer, int64_t hidden, int64_t intermediate);

/// The stack around the blocks: what every fla model shares (FlaDecoder runs it).
struct FlaStack {
    torch::Tensor embeddings;  ///< [V, d]
    torch::Tensor finalNorm;   ///< [d]
    Linear lmHead;             ///< [V, d]
    std::vector<FlaBlockWeights> blocks;
    int64_t vocabSize = 0;
    double normEps = 1e-6;

    /// What layer `layer`'s token mixer reads: RMSNorm_attn of the residual stream x [N, d]
    /// (float32), in the activation dtype.
    torch::Tensor mixerInput(int layer, const torch::Tensor& x, const Precision& precision) const;
    /// The residual stream leaving layer `layer` [N, d] float32, given the mixer's residual
    /// contribution `mixed` [N, d] float32: h = x + mixed, then h + MLP(RMSNorm_mlp(h)).
    torch::Tensor blockOutput(int layer, const torch::Tensor& x, const torch::Tensor& mixed,
                              const Precision& precision) const;
};

struct DeviceMover;
/// Moves the stack's tensors (embeddings, norms, MLPs, LM head; a tied head stays tied).
void moveFlaStack(FlaStack& stack, const DeviceMover& move);

/// Takes the embeddings, final norm and LM head (tied: the embeddings; a stored lm_head.weight
/// is then consumed and ignored, as the official loader does).
void loadFlaEnds(WeightStore& store, int64_t vocab, int64_t hidden, bool tieWordEmbeddings,
                 FlaStack& stack);

}  // namespace gatescope::core
