#include "core/checkpoint/checkpoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/checkpoint/weight_discovery.h"
#include "data/common/bounded_json.h"
#include "data/common/input_file.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Result<json> readConfig(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return Error{ErrorKind::Missing,
                     "config.json is missing: a checkpoint folder needs config.json beside its "
                     "weights",
                     path.string(),
                     {}};
    }
    Result<std::string> text =
        data::readRegularFile(path, data::input_limits::kConfigJson, "a config.json");
    if (!text) return text.error();
    Result<json> parsed = data::parseBoundedJson(*text, path.string());
    if (!parsed) return parsed.error();
    json config = std::move(parsed).value();
    if (!config.is_object()) {
        return Error{ErrorKind::Format, "is not a JSON object", path.string(), {}};
    }
    auto type = config.find("model_type");
    if (type == config.end()) {
        return Error{ErrorKind::Missing, "has no \"model_type\"", path.string(), "model_type"};
    }
    if (!type->is_string() || type->get<std::string>().empty()) {
        return Error{ErrorKind::Format, "\"model_type\" is not a non-empty string", path.string(),
                     "model_type"};
    }
    return config;
}

// The folder a user meant: the path itself, or the folder holding a named file inside it.
Result<fs::path> resolveDir(const fs::path& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        return Error{ErrorKind::Io, "no such file or directory", path.string(), {}};
    }
    if (fs::is_directory(status)) return path;
    // A file named inside the folder (config.json, model.safetensors): regular files only.
    if (auto st = data::checkRegularFile(path); !st) return st.error();
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    return parent;
}

}  // namespace

Result<std::shared_ptr<const Checkpoint>> Checkpoint::open(const std::filesystem::path& dir) {
    Result<fs::path> resolved = resolveDir(dir);
    if (!resolved) return resolved.error();

    Result<WeightFiles> weights = discoverWeights(*resolved);
    if (!weights) return weights.error();
    Result<json> config = readConfig(*resolved / "config.json");
    if (!config) return config.error();

    auto checkpoint = std::make_shared<Checkpoint>();
    checkpoint->m_dir = *resolved;
    checkpoint->m_modelType = (*config)["model_type"].get<std::string>();
    checkpoint->m_config = std::move(config).value();
    checkpoint->m_files = std::move(weights->files);
    return std::shared_ptr<const Checkpoint>(std::move(checkpoint));
}

std::vector<std::filesystem::path> Checkpoint::weightFiles() const {
    std::vector<fs::path> out;
    out.reserve(m_files.size());
    for (const auto& file : m_files)
        out.push_back(file->path());
    return out;
}

const TensorInfo* Checkpoint::find(const std::string& name) const {
    // Shards are few (a handful even for 7B models): a scan beats keeping a second index.
    for (const auto& file : m_files) {
        if (const TensorInfo* info = file->find(name)) return info;
    }
    return nullptr;
}

std::vector<std::string> Checkpoint::tensorNames() const {
    std::vector<std::string> names;
    for (const auto& file : m_files) {
        for (const auto& [name, info] : file->tensors())
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

namespace {

/// A file's identity for the digest memo: a rewritten file changes size or modification time.
using FileIdentity = std::tuple<dev_t, ino_t, off_t, int64_t, int64_t>;

std::optional<FileIdentity> identityOf(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileIdentity{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
}

Result<std::string> rememberedSha256(const std::filesystem::path& path,
                                     const std::atomic<bool>* stop) {
    static std::mutex mutex;
    static std::map<FileIdentity, std::string> digests;
    const auto before = identityOf(path);
    if (before) {
        std::lock_guard lock(mutex);
        if (auto it = digests.find(*before); it != digests.end()) return it->second;
    }
    auto digest = sha256File(path, stop);
    if (!digest || !before || identityOf(path) != before) return digest;  // changed meanwhile
    std::lock_guard lock(mutex);
    digests[*before] = *digest;
    return digest;
}

}  // namespace

Result<std::vector<std::string>> Checkpoint::weightSha256(const std::atomic<bool>* stop) const {
    std::vector<std::string> out;
    for (const auto& file : m_files) {
        Result<std::string> digest = rememberedSha256(file->path(), stop);
        if (!digest) return digest.error();
        out.push_back(std::move(digest).value());
    }
    return out;
}

}  // namespace gatescope::core
