#include "data/trace/manifest.h"

#include <ctime>
#include <string_view>
#include <vector>

namespace gatescope::data {

nlohmann::json Manifest::toJson() const {
    nlohmann::json out = extra.is_object() ? extra : nlohmann::json::object();
    out["checkpoint"] = {{"path", checkpointPath}, {"weight_sha256", weightSha256}};
    out["model_type"] = modelType;
    out["model_config"] = modelConfig;
    out["tokenizer"] = tokenizer;
    out["input"] = {{"sha256", inputSha256},
                    {"hashed", inputHashed},
                    {"file_sha256", inputFileSha256},
                    {"kind", inputKind}};
    out["gatescope"] = {{"version", gatescopeVersion}, {"git_revision", gitRevision}};
    out["device"] = device;
    out["dtypes"] = dtypes;
    out["attention_path"] = attentionPath;
    out["created_at"] = createdAt;
    return out;
}

std::string Manifest::utcNow() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

namespace {

enum class Want { String, Object, Any };

struct Requirement {
    const char* pointer;
    Want want;
};

constexpr Requirement kRequired[] = {
    {"/checkpoint/path", Want::String},
    {"/checkpoint/weight_sha256", Want::Object},
    {"/model_type", Want::String},
    {"/model_config", Want::Object},
    {"/tokenizer", Want::Any},
    {"/input/sha256", Want::String},
    {"/gatescope/version", Want::String},
    {"/gatescope/git_revision", Want::String},
    {"/device", Want::String},
    {"/dtypes", Want::Object},
    {"/attention_path", Want::String},
    {"/created_at", Want::String},
};

}  // namespace

Status validateManifest(const nlohmann::json& manifest, const std::string& file) {
    if (!manifest.is_object())
        return Error{ErrorKind::Usage, "the manifest must be a JSON object", file, "/manifest"};
    std::string problems;
    for (const auto& req : kRequired) {
        nlohmann::json::json_pointer pointer(req.pointer);
        std::string_view name = req.pointer + 1;
        if (!manifest.contains(pointer)) {
            problems += (problems.empty() ? "" : ", ") + std::string(name) + " missing";
            continue;
        }
        const auto& value = manifest.at(pointer);
        bool ok = req.want == Want::Any || (req.want == Want::String && value.is_string()) ||
                  (req.want == Want::Object && value.is_object());
        if (!ok)
            problems += (problems.empty() ? "" : ", ") + std::string(name) +
                        (req.want == Want::String ? " must be a string" : " must be an object");
    }
    if (problems.empty()) return Ok{};
    return Error{ErrorKind::Usage, "incomplete provenance manifest: " + problems, file,
                 "/manifest"};
}

}  // namespace gatescope::data
