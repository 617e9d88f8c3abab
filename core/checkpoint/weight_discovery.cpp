#include "core/checkpoint/weight_discovery.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "data/common/bounded_json.h"
#include "data/common/input_file.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kIndexName = "model.safetensors.index.json";
constexpr const char* kSingleName = "model.safetensors";

bool isPickleName(const fs::path& file) {
    const std::string ext = file.extension().string();
    const std::string name = file.filename().string();
    return ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt" || ext == ".pkl" ||
           name == "pytorch_model.bin.index.json";
}

// Files in `dir` (not recursive), sorted, for which `keep` holds.
template <class Keep>
std::vector<fs::path> listFiles(const fs::path& dir, Keep keep) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec) && keep(entry.path())) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A shard name must stay inside the folder: a plain file name.
bool isPlainFileName(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\\') == std::string::npos;
}

Result<WeightFiles> openSharded(const fs::path& dir, const fs::path& indexPath) {
    auto fail = [&](ErrorKind kind, std::string message, std::string object = {}) {
        return Error{kind, std::move(message), indexPath.string(), std::move(object)};
    };
    Result<std::string> text =
        data::readRegularFile(indexPath, data::input_limits::kShardIndex, "a shard index");
    if (!text) return text.error();
    Result<json> parsed = data::parseBoundedJson(*text, indexPath.string());
    if (!parsed) return parsed.error();
    const json index = std::move(parsed).value();
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
        return fail(ErrorKind::Format, "lacks a \"weight_map\" object", "weight_map");
    }

    std::map<std::string, std::string> shardOf;                 // tensor -> shard file name
    std::map<std::string, std::vector<std::string>> tensorsOf;  // shard -> tensors it should hold
    for (const auto& [tensor, shard] : index["weight_map"].items()) {
        if (!shard.is_string() || !isPlainFileName(shard.get<std::string>())) {
            return fail(ErrorKind::Format,
                        "weight_map entry is not a plain file name inside the checkpoint folder",
                        tensor);
        }
        shardOf[tensor] = shard.get<std::string>();
        tensorsOf[shard.get<std::string>()].push_back(tensor);
    }
    if (tensorsOf.empty()) return fail(ErrorKind::Format, "weight_map is empty", "weight_map");

    WeightFiles result;
    result.indexFile = indexPath;
    std::map<std::string, fs::path> seenIn;  // tensor -> first shard holding it
    for (const auto& [shardName, expected] : tensorsOf) {
        const fs::path shardPath = dir / shardName;
        std::error_code ec;
        if (!fs::exists(shardPath, ec)) {
            return Error{ErrorKind::Missing,
                         fmt::format("shard listed in {} for {} tensor(s) is missing", kIndexName,
                                     expected.size()),
                         shardPath.string(), expected.front()};
        }
        Result<std::shared_ptr<const SafetensorsFile>> shard = SafetensorsFile::open(shardPath);
        if (!shard) return shard.error();
        for (const std::string& tensor : expected) {
            if ((*shard)->find(tensor) == nullptr) {
                return Error{ErrorKind::Missing,
                             fmt::format("{} places this tensor in this shard, but the shard "
                                         "lacks it",
                                         kIndexName),
                             shardPath.string(), tensor};
            }
        }
        for (const auto& [tensor, info] : (*shard)->tensors()) {
            auto [it, inserted] = seenIn.emplace(tensor, shardPath);
            if (!inserted) {
                return Error{ErrorKind::Format,
                             fmt::format("tensor is stored in two shards: {} and {}",
                                         it->second.filename().string(), shardName),
                             shardPath.string(), tensor};
            }
        }
        result.files.push_back(std::move(shard).value());
    }
    return result;
}

}  // namespace

std::string pickleRefusalMessage(const fs::path& pickleFile) {
    return fmt::format(
        "{} is a pickle-based PyTorch checkpoint; gatescope refuses pickles because loading one "
        "can execute arbitrary code. Convert it once to safetensors in Python (tensors only): "
        "import torch; from safetensors.torch import save_file; "
        "sd = torch.load(\"{}\", map_location=\"cpu\", weights_only=True); "
        "save_file({{k: v.detach().clone().contiguous() for k, v in sd.items()}}, "
        "\"model.safetensors\") -- keep config.json beside it",
        pickleFile.filename().string(), pickleFile.filename().string());
}

Result<WeightFiles> discoverWeights(const fs::path& dir) {
    std::error_code ec;
    const fs::path indexPath = dir / kIndexName;
    if (fs::exists(indexPath, ec)) return openSharded(dir, indexPath);

    const fs::path single = dir / kSingleName;
    if (fs::exists(single, ec)) {
        Result<std::shared_ptr<const SafetensorsFile>> file = SafetensorsFile::open(single);
        if (!file) return file.error();
        WeightFiles result;
        result.files.push_back(std::move(file).value());
        return result;
    }

    const std::vector<fs::path> pickles = listFiles(dir, isPickleName);
    if (!pickles.empty()) {
        return Error{ErrorKind::Unsupported,
                     pickleRefusalMessage(pickles.front()),
                     pickles.front().string(),
                     {}};
    }
    const std::vector<fs::path> others =
        listFiles(dir, [](const fs::path& p) { return p.extension() == ".safetensors"; });
    std::string hint;
    if (!others.empty()) {
        hint = fmt::format(
            " (found {}, but not under the standard name; rename the model's "
            "weights to {} or write {})",
            others.front().filename().string(), kSingleName, kIndexName);
    }
    return Error{ErrorKind::Missing,
                 fmt::format("no weights: expected {} or {}{}", kSingleName, kIndexName, hint),
                 dir.string(),
                 {}};
}

}  // namespace gatescope::core
