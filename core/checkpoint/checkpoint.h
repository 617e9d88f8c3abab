// A model checkpoint folder as published: config.json plus model.safetensors, or shards listed in
// model.safetensors.index.json. Pickle-based pytorch_model.bin is refused with a conversion hint.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/checkpoint/safetensors_file.h"
#include "data/common/result.h"

namespace gatescope::core {

/// Immutable after open(); safe to share across threads. Tensor views stay valid while it lives.
class Checkpoint {
public:
    /// Opens `dir` (or a config.json / .safetensors path inside it). Errors: missing or invalid
    /// config.json, no model_type, no weights, only pytorch_model.bin (refused: explains how to
    /// convert with safetensors' save_file), a shard the index names that is missing, a tensor
    /// listed in two shards.
    static Result<std::shared_ptr<const Checkpoint>> open(const std::filesystem::path& dir);

    const std::filesystem::path& dir() const { return m_dir; }
    const nlohmann::json& config() const { return m_config; }
    /// config["model_type"].
    const std::string& modelType() const { return m_modelType; }
    /// The weight files, in index order.
    std::vector<std::filesystem::path> weightFiles() const;
    /// nullptr when absent.
    const TensorInfo* find(const std::string& name) const;
    /// All tensor names across shards, sorted.
    std::vector<std::string> tensorNames() const;

    /// SHA-256 (lowercase hex) of each weight file, in weightFiles() order. Reads every byte:
    /// seconds for a GB-size checkpoint, once per process: digests are remembered by file
    /// identity (device, inode, size, modification time), so a batch hashes each checkpoint once.
    /// Thread-safe. Errors: a file cannot be read (Io); `stop` set (Cancelled).
    Result<std::vector<std::string>> weightSha256(const std::atomic<bool>* stop = nullptr) const;

private:
    std::filesystem::path m_dir;
    nlohmann::json m_config;
    std::string m_modelType;
    std::vector<std::shared_ptr<const SafetensorsFile>> m_files;
};

/// SHA-256 (lowercase hex) of a byte range and of a whole file.
std::string sha256Hex(const void* data, std::size_t size);
/// `stop` (may be null) is polled between 1 MiB reads: set, the function returns Cancelled.
Result<std::string> sha256File(const std::filesystem::path& path,
                               const std::atomic<bool>* stop = nullptr);

}  // namespace gatescope::core
