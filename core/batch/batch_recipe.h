// A batch recipe (JSON, docs/batch.md): checkpoints x inputs, what to record, which analyses to
// run, and where the results go. Paths in the recipe are relative to the recipe's folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/stats_report.h"
#include "core/batch/recipe_figures.h"
#include "core/input/input.h"
#include "core/trace/trace_request.h"
#include "data/common/result.h"

namespace gatescope::core {

struct RecipeCheckpoint {
    std::string name;  ///< unique; names the checkpoint's folder of traces
    std::filesystem::path path;
};

struct RecipeInput {
    std::filesystem::path path;  ///< a file (one document) or a folder (every file, sorted)
    InputKind kind = InputKind::Auto;
};

struct BatchRecipe {
    std::filesystem::path file;    ///< the recipe itself
    std::filesystem::path output;  ///< results folder
    std::vector<RecipeCheckpoint> checkpoints;
    std::vector<RecipeInput> inputs;
    int64_t maxTokens = 0;    ///< per run: longer documents are split in chunks; 0 = no limit
    int64_t tokenBudget = 0;  ///< per checkpoint: later chunks are skipped once spent; 0 = none
    TraceRequest trace;       ///< template: device, dtype, threads, layers, pyramids, compression
    /// GPUs the processes of a launch spread over (visible indices; each process takes
    /// devices[local rank % size]); empty: every visible GPU (launch_environment.h).
    std::vector<int> devices;
    StatsOptions analyses;             ///< computed over each checkpoint's traces at the end
    std::vector<BatchFigure> figures;  ///< per finished run (rendered by the app with Qt)
    nlohmann::json source;             ///< the recipe as read, for the manifest
};

/// Reads and validates `file`. Errors name the file and the key (Format, Missing, Usage); a key
/// the recipe format does not have is an error too (a misspelt option must not pass silently).
Result<BatchRecipe> readRecipe(const std::filesystem::path& file);

}  // namespace gatescope::core
