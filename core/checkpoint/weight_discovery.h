// Finding and opening the weight files of a checkpoint folder (internal to core/checkpoint).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/checkpoint/safetensors_file.h"
#include "data/common/result.h"

namespace gatescope::core {

struct WeightFiles {
    std::vector<std::shared_ptr<const SafetensorsFile>> files;  ///< shard-name order
    std::optional<std::filesystem::path> indexFile;             ///< set for sharded checkpoints
};

/// model.safetensors.index.json (shards, validated against the index), else model.safetensors.
/// Refuses pickle-based weights (pytorch_model.bin, *.pt, *.pth, *.ckpt) with a conversion recipe;
/// Missing when the folder has no weights at all. Every error names the file at fault.
Result<WeightFiles> discoverWeights(const std::filesystem::path& dir);

/// The message for a refused pickle file: why, and the Python lines that convert it.
std::string pickleRefusalMessage(const std::filesystem::path& pickleFile);

}  // namespace gatescope::core
