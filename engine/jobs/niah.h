// Needle in a haystack, the FoX paper's protocol (specs/forgetting-transformer.md §4.2) scored
// without an external judge: the prompt is haystack with the needle at depth d, then the question;
// the model passes a cell when its greedy continuation is exactly the answer. Greedy decoding
// reproduces the answer iff at every answer position the answer token is the argmax given the
// answer so far, so one teacher-forced forward over prompt + answer decides it exactly: the
// target rank of every answer token must be 0. That forward's trace is kept for each cell.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/niah_prompt.h"
#include "data/common/result.h"
#include "engine/trace/trace_job.h"

namespace gatescope::core {

struct NiahOptions {
    std::filesystem::path modelDir;
    std::filesystem::path haystack;  ///< UTF-8 text, repeated when shorter than a length
    std::vector<int64_t> lengths;    ///< total prompt + answer tokens per column
    std::vector<int> depths;         ///< needle depth in percent per row (0 = start, 100 = end)
    /// The needle, question and answer: the FoX paper's (foxNeedleTexts(true) is its easy mode,
    /// where the needle itself states the question) or a pass key.
    NeedleTexts texts = foxNeedleTexts(false);
    std::filesystem::path out;  ///< grid.json, grid.csv, heatmap.svg, cells/*.h5
    TraceRequest trace;         ///< template for the cells' traces (dtype, pyramids, ...)
};

struct NiahCell {
    int64_t length = 0;
    int depth = 0;
    bool exactMatch = false;
    int answerTokens = 0;
    int matchedPrefix = 0;  ///< leading answer tokens the model would produce greedily
    double answerLoss = 0;  ///< mean loss over the answer tokens (nats)
    int64_t needleBegin = 0, needleEnd = 0;  ///< token range of the needle in the prompt
    std::filesystem::path trace;             ///< relative to out
};

/// Runs every cell (lengths x depths) and writes the grid files. `progress(done, total)` after
/// each cell. Errors: checkpoint/tokenizer/haystack problems (named), a length too short for
/// needle + question + answer (Usage), Cancelled.
Result<std::vector<NiahCell>> runNiah(const NiahOptions& options,
                                      const std::function<void(int, int)>& progress,
                                      const std::atomic<bool>* cancel);

}  // namespace gatescope::core
