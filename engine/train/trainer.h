// `gatescope train`: trains a small model of any architecture of the zoo with LibTorch (CPU, or
// CUDA where the build and machine have it), on text files and a synthetic pass-key task, and
// writes checkpoints in the layout the loaders read (config.json + model.safetensors) with a log
// of the loss. No LibTorch types here.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "data/common/result.h"
#include "engine/train/net_shape.h"

namespace gatescope::core::train {

struct TrainOptions {
    std::string arch = "fox";  ///< see trainableArchs()
    NetShape shape;
    std::vector<std::filesystem::path> corpus;  ///< files, or folders of .py/.txt/.md/.rst
    int64_t maxCorpusBytes = 64 << 20;
    /// Held-out text (excluded from the corpus): its loss is measured at every evaluation and
    /// recorded in train.json. Empty: the last 5% of the corpus bytes are held out instead.
    std::filesystem::path heldOut;
    double recallFraction = 0.5;  ///< share of sequences that are pass-key tasks
    double assocFraction = 0.0;   ///< share that are multi-query associative recall
    int64_t steps = 1000;
    int64_t batch = 16;
    int64_t seqLen = 256;  ///< training length (attention is dense over it: at most 2048)
    double lr = 3e-3;      ///< peak; linear warmup, cosine decay to 10%
    int64_t warmup = 100;
    double weightDecay = 0.1;
    /// Stop after this many seconds of training (0: no limit), evaluating and saving as at the
    /// last step; train.json's "step" says how far it got. The schedule is not shortened.
    double maxSeconds = 0;
    int64_t evalEvery = 200;     ///< steps between held-out evaluations and checkpoints
    std::string device = "cpu";  ///< "cpu" or "cuda"
    int threads = 0;             ///< 0: all cores
    std::filesystem::path out;   ///< checkpoint folder (created)
    std::string command;         ///< the command line, recorded in train.json
};

struct TrainProgress {
    int64_t step = 0, steps = 0;
    double loss = 0;          ///< this step's training loss (nats per byte)
    double heldOutLoss = -1;  ///< last evaluation, -1 before the first
    double tokensPerSecond = 0;
};

struct TrainSummary {
    std::filesystem::path out;
    int64_t steps = 0;
    int64_t parameters = 0;
    double trainLoss = 0;    ///< mean of the last 50 steps
    double heldOutLoss = 0;  ///< nats per byte on the held-out windows (see evaluateHeldOut)
    int64_t heldOutTokens = 0;
    double seconds = 0;
};

/// Trains and writes `out`/config.json, model.safetensors (each atomically, at every evaluation
/// and at the end), train_log.csv (step, loss, lr, held-out loss, tokens/s) and train.json (the
/// options, corpus, final losses, time). `progress` is called after every step on the calling
/// thread. On cancel the checkpoint of the last finished step is written and Cancelled returned.
/// Errors: unknown arch or bad shape (Usage, the config key), corpus problems (named files),
/// seqLen > 2048 (Usage), device unavailable (Unsupported), write failures (Io, named).
Result<TrainSummary> runTraining(const TrainOptions& options,
                                 const std::function<void(const TrainProgress&)>& progress,
                                 const std::atomic<bool>* cancel);

/// The held-out windows of a text: consecutive, non-overlapping windows of seqLen + 1 byte ids
/// starting at byte 0 and seqLen apart (windows w: ids [w*seqLen, w*seqLen + seqLen + 1)), at
/// most `maxWindows`; the loss is the mean over the windows' predicted bytes (positions 1..seqLen
/// of each). Shared with the tests, which recompute it through core/models.
std::vector<std::vector<int32_t>> heldOutWindows(const std::string& text, int64_t seqLen,
                                                 int64_t maxWindows);

/// Logits [ids.size() x vocab] (as the inference model reports them) of the training twin of the
/// checkpoint in `dir` (a folder that runTraining wrote: config.json names the arch and shape) on
/// `ids`: for checking that the inference model computes what was trained. Errors: not a
/// gatescope-trained checkpoint, I/O.
Result<std::vector<float>> trainingNetLogits(const std::filesystem::path& dir,
                                             std::span<const int32_t> ids);

}  // namespace gatescope::core::train
