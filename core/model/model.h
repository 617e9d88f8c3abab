// The model zoo's public face: what a loaded model is and what its instrumented forward takes and
// gives. No LibTorch types: the implementations and loadModel live in engine/models/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/checkpoint/checkpoint.h"
#include "core/model/float_array.h"
#include "core/model/probe.h"
#include "data/common/result.h"

namespace gatescope::core {

struct InterventionPlan;  // core/model/intervention_plan.h

enum class ComputeDType { Float32, BFloat16 };
std::string_view toString(ComputeDType dtype);

struct RunOptions {
    ComputeDType dtype = ComputeDType::Float32;
    /// "cpu" or "cuda" (the current CUDA device). "cuda" runs the forward on the GPU (weights
    /// copied there once per model, factors copied back for the probe); it fails with
    /// ErrorKind::Unsupported when the build or the machine has no usable GPU
    /// (engine/nn/device_check.h).
    std::string device = "cpu";
    int threads = 0;            ///< 0: all cores
    bool returnLogits = false;  ///< keep [N, V] logits (small N only: tests, tools)
    bool recordHidden = false;  ///< fill LayerRecord::hiddenIn and ForwardResult::finalHidden
    /// Polled between layers; returning true stops the forward with ErrorKind::Cancelled.
    std::function<bool()> cancelled;
    /// Fraction of the forward done in [0, 1] and the current stage; called on the forward's
    /// thread.
    std::function<void(double, std::string_view)> progress;
    /// Packed documents (fla's cu_seqlens): increasing token positions where a document starts,
    /// the first 0, each < N; empty or {0}: one document. No attention crosses a boundary, and
    /// cumulative gates and rotary positions restart at each. Models whose
    /// ModelInfo::packedDocuments is false fail with ErrorKind::Unsupported when given more than
    /// one document; malformed starts are ErrorKind::Usage.
    std::vector<int64_t> documentStarts;
    /// Gate and head interventions (core/model/intervention_plan.h, built by planInterventions
    /// for this model and these ids); null: none. Applied where each layer computes its gates and
    /// before its output projection (engine/nn/interventions.h); CPU only.
    std::shared_ptr<const InterventionPlan> interventions;
};

/// What a forward produced besides the probe's records.
/// How many next-token predictions a forward keeps per position (fewer for a smaller vocabulary).
inline constexpr int kTopPredictions = 5;

struct ForwardResult {
    /// Per position i: -log p(target_i | tokens 0..i), natural log; NaN where there is no target.
    std::vector<float> loss;
    /// 0-based rank of the target among the vocabulary logits (0 = argmax); -1 without target.
    std::vector<int32_t> targetRank;
    /// Entropy (nats) of the predicted distribution at each position.
    std::vector<float> entropy;
    /// The `topK` most likely next tokens at each position, most likely first: ids [N, topK]
    /// and their log-probabilities [N, topK] (natural log, from the scored logits as the loss).
    int topK = 0;
    std::vector<int32_t> topIds;
    std::vector<float> topLogProbs;
    /// [N, V] when RunOptions::returnLogits.
    FloatArray logits;
    /// [N, d_model] output of the final norm when RunOptions::recordHidden.
    FloatArray finalHidden;
    /// Which attention implementation ran ("cpu-blockwise", ...).
    std::string attentionPath;
};

struct ModelInfo {
    std::string modelType;  ///< config model_type
    std::string family;     ///< "fox", "transformer", "gsa", ...
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    int hiddenSize = 0;
    int vocabSize = 0;
    std::optional<int32_t> bosId;
    bool packedDocuments = false;  ///< forward() honours RunOptions::documentStarts
    /// The gate that interventions change (the one a trace stores as gates/log_retention): 0 no
    /// gate, 1 one scalar per head and token, C > 1 per-channel (Wall channels, GSA slots).
    int gateChannels = 0;
    int gateGroup = 1;  ///< query heads sharing one gate (grouped-query heads with shared gates)
};

/// A loaded model. forward() may be called repeatedly but not concurrently.
class Model {
public:
    virtual ~Model() = default;
    virtual const ModelInfo& info() const = 0;
    /// Runs tokens through the model. `targets` (same length as ids) overrides the default targets
    /// (ids shifted left by one; none for the last position). Errors: ids out of vocabulary,
    /// cancellation, out of memory (ErrorKind::Io with the requested size).
    virtual Result<ForwardResult> forward(std::span<const int32_t> ids,
                                          std::span<const int32_t> targets,
                                          const RunOptions& options, Probe* probe) = 0;
};

}  // namespace gatescope::core
