// Private to core/train: the loss log of a run (train_log.csv) and its record (train.json), both
// rewritten atomically at every checkpoint so that a folder never holds a half-written log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/common/result.h"
#include "engine/train/trainer.h"

namespace gatescope::core::train {

class TrainLog {
public:
    TrainLog(const TrainOptions& options, int64_t corpusFiles, int64_t corpusBytes,
             int64_t parameters);
    void addStep(const TrainProgress& progress, double lr, double seconds);
    /// Mean training loss of the last 50 steps (the noise of one batch averaged out).
    double recentLoss() const;
    /// Writes dir/train_log.csv and dir/train.json (options, corpus, losses, time so far).
    Status write(const std::filesystem::path& dir, const TrainProgress& last,
                 int64_t heldOutWindows) const;

private:
    struct Row {
        int64_t step;
        double loss, lr, heldOutLoss, tokensPerSecond, seconds;
    };
    const TrainOptions& m_options;
    int64_t m_corpusFiles, m_corpusBytes, m_parameters;
    std::vector<Row> m_rows;
};

}  // namespace gatescope::core::train
