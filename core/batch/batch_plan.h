// The runs of a batch: every checkpoint x document x chunk (documents longer than max_tokens are
// split; a checkpoint's token budget cuts later chunks), in a fixed order, so every shard and
// every re-run of the same recipe sees the same list.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/batch/batch_recipe.h"

namespace gatescope::core {

struct BatchRun {
    int index = 0;
    std::string id;          ///< "<checkpoint>/<document>#<chunk>"
    std::string checkpoint;  ///< recipe name
    std::filesystem::path checkpointDir;
    InputSpec input;              ///< document and token range
    std::filesystem::path trace;  ///< relative to the output folder
    /// Set when the run cannot even be planned (missing checkpoint or unreadable document): the
    /// run fails with this error and the others go on.
    std::optional<Error> planError;
};

/// Expands the recipe. Tokenizes each document once per checkpoint to count its tokens (no model
/// is loaded). Problems with one checkpoint or document become failed runs, not an error.
std::vector<BatchRun> planBatch(const BatchRecipe& recipe);

/// The file-name-safe form of a run id (status files).
std::string runFileName(const std::string& id);

}  // namespace gatescope::core
