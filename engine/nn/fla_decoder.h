// Private to engine/models: the DecoderArch parts that the fla-style models (GSA, Wall) share:
// the FlaStack's embeddings, its pre-norm blocks with their SwiGLU MLP, the final RMSNorm and the
// LM head. An architecture derives from FlaDecoder and adds its token mixer (block, through
// mixedBlock), describe, move and attentionPath (see DecoderArch).
#pragma once

#include <optional>
#include <utility>

#include "engine/nn/decoder_model.h"
#include "engine/nn/fla_stack.h"

namespace gatescope::core {

/// Weights needs a member `FlaStack stack`.
template <class Config, class Weights>
class FlaDecoder : public DecoderArchBase<Config, Weights> {
public:
    using DecoderArchBase<Config, Weights>::DecoderArchBase;

    torch::Tensor embed(const torch::Tensor& ids) const {
        return stack().embeddings.index_select(0, ids);
    }
    torch::Tensor finalNorm(const torch::Tensor& x) const {
        return rmsNorm(x, stack().finalNorm, stack().normEps, torch::kFloat32);
    }
    LogitsHead head() const { return {&stack().lmHead, stack().vocabSize, std::nullopt, false}; }

protected:
    /// Layer `layer` around its token mixer: `mix(normed)` takes the attention-norm output
    /// (activation dtype) and returns its residual contribution [N, d] float32.
    template <class Mix>
    torch::Tensor mixedBlock(int layer, const torch::Tensor& x, Mix&& mix) const {
        const Precision& precision = this->pass().precision;
        auto mixed = std::forward<Mix>(mix)(stack().mixerInput(layer, x, precision));
        return stack().blockOutput(layer, x, mixed, precision);
    }

private:
    const FlaStack& stack() const { return this->pass().weights.stack; }
};

}  // namespace gatescope::core
