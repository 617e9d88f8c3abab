#include "engine/nn/token_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/cancel.h"

namespace gatescope::core {

namespace {

constexpr int64_t kRowChunk = 256;
constexpr int64_t kDeviceRowChunk = 1024;

/// One row chunk's logits: as returned (softcapped when the head has a cap), as scored for
/// loss/rank/entropy, and the float64 log-probabilities of the scored ones.
struct ChunkLogits {
    torch::Tensor capped, scored, logp;
};

ChunkLogits chunkLogits(const torch::Tensor& hidden, const LogitsHead& head,
                        const Precision& precision, int64_t row0, int64_t rows) {
    ChunkLogits c;
    auto raw = (*head.projection)(hidden.narrow(0, row0, rows), precision)
                   .to(torch::kFloat32)
                   .narrow(1, 0, head.vocabSize);
    c.capped = head.softcap ? *head.softcap * torch::tanh(raw / *head.softcap) : raw;
    c.scored = head.lossFromSoftcapped ? c.capped : raw;
    c.logp = torch::log_softmax(c.scored.to(torch::kFloat64), 1);
    return c;
}

/// Rows [row0, row0 + rows) of the top predictions: topk of the float64 log-probabilities (ties
/// broken as torch breaks them), copied to the host.
void storeTopPredictions(const torch::Tensor& logp, int64_t row0, int64_t rows,
                         ForwardResult& result) {
    const int64_t k = result.topK;
    auto top = logp.topk(k, 1);
    auto values = std::get<0>(top).to(torch::kFloat32).cpu().contiguous();
    auto ids = std::get<1>(top).to(torch::kInt32).cpu().contiguous();
    const auto count = static_cast<std::size_t>(rows * k);
    std::memcpy(result.topLogProbs.data() + row0 * k, values.data_ptr<float>(),
                count * sizeof(float));
    std::memcpy(result.topIds.data() + row0 * k, ids.data_ptr<int32_t>(), count * sizeof(int32_t));
}

/// The same statistics with every reduction on the device (one host copy per chunk, no per-row
/// synchronization): the target's log-probability by gather, its rank as the count of larger
/// logits, entropy in float64 as on the CPU.
void computeTokenStatsOnDevice(const torch::Tensor& hidden, const LogitsHead& head,
                               std::span<const int32_t> targets, const Precision& precision,
                               bool keepLogits, ForwardResult& result) {
    const int64_t n = hidden.size(0), vocab = head.vocabSize;
    auto targetTensor = torch::empty({n}, torch::kInt64);
    for (int64_t i = 0; i < n; ++i)
        targetTensor.data_ptr<int64_t>()[i] = std::max<int32_t>(targets[i], 0);
    targetTensor = targetTensor.to(hidden.device());
    for (int64_t row0 = 0; row0 < n; row0 += kDeviceRowChunk) {
        kernels::throwIfCancelled();
        const int64_t rows = std::min(kDeviceRowChunk, n - row0);
        const auto chunk = chunkLogits(hidden, head, precision, row0, rows);
        const torch::Tensor &capped = chunk.capped, &scored = chunk.scored, &logp = chunk.logp;
        auto entropy = -(logp.exp() * logp).sum(1).to(torch::kFloat32);
        auto t = targetTensor.narrow(0, row0, rows).unsqueeze(1);
        auto loss = (-logp.gather(1, t)).squeeze(1).to(torch::kFloat32);
        auto rank = (scored > scored.gather(1, t)).sum(1).to(torch::kInt32);
        auto stats = torch::stack({entropy, loss}).cpu().contiguous();
        auto ranks = rank.cpu().contiguous();
        storeTopPredictions(logp, row0, rows, result);
        const float* e = stats.data_ptr<float>();
        const int32_t* rk = ranks.data_ptr<int32_t>();
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = row0 + r;
            result.entropy[i] = e[r];
            if (targets[i] < 0) continue;
            result.loss[i] = e[rows + r];
            result.targetRank[i] = rk[r];
        }
        if (keepLogits) {
            auto out = capped.contiguous().cpu();
            std::memcpy(result.logits.data.data() + row0 * vocab, out.data_ptr<float>(),
                        static_cast<std::size_t>(rows * vocab) * sizeof(float));
        }
    }
}

}  // namespace

void computeTokenStats(const torch::Tensor& hidden, const LogitsHead& head,
                       std::span<const int32_t> targets, const Precision& precision,
                       bool keepLogits, ForwardResult& result) {
    const int64_t n = hidden.size(0);
    const int64_t vocab = head.vocabSize;
    result.loss.assign(n, std::numeric_limits<float>::quiet_NaN());
    result.targetRank.assign(n, -1);
    result.entropy.assign(n, 0.0f);
    result.topK = static_cast<int>(std::min<int64_t>(kTopPredictions, vocab));
    result.topIds.assign(static_cast<std::size_t>(n * result.topK), -1);
    result.topLogProbs.assign(static_cast<std::size_t>(n * result.topK), 0.0f);
    if (keepLogits) {
        result.logits.shape = {n, vocab};
        result.logits.data.assign(static_cast<std::size_t>(n * vocab), 0.0f);
    }
    if (hidden.is_cuda()) {
        computeTokenStatsOnDevice(hidden, head, targets, precision, keepLogits, result);
        return;
    }
    for (int64_t row0 = 0; row0 < n; row0 += kRowChunk) {
        kernels::throwIfCancelled();
        const int64_t rows = std::min(kRowChunk, n - row0);
        const auto chunk = chunkLogits(hidden, head, precision, row0, rows);
        const torch::Tensor &capped = chunk.capped, &scored = chunk.scored, &logp = chunk.logp;
        auto entropy = -(logp.exp() * logp).sum(1).to(torch::kFloat32).contiguous();
        auto scoredF = scored.contiguous();
        storeTopPredictions(logp, row0, rows, result);
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = row0 + r;
            result.entropy[i] = entropy.data_ptr<float>()[r];
            const int32_t target = targets[i];
            if (target < 0) continue;
            result.loss[i] = static_cast<float>(-logp[r][target].item<double>());
            const float* row = scoredF.data_ptr<float>() + r * vocab;
            const float t = row[target];
            int32_t rank = 0;
            for (int64_t j = 0; j < vocab; ++j)
                rank += row[j] > t;
            result.targetRank[i] = rank;
        }
        if (keepLogits) {
            auto out = capped.contiguous();
            std::memcpy(result.logits.data.data() + row0 * vocab, out.data_ptr<float>(),
                        static_cast<std::size_t>(rows * vocab) * sizeof(float));
        }
    }
}

}  // namespace gatescope::core
