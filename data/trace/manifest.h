// The provenance manifest: what produced a trace. Stored as JSON in /manifest.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::data {

/// The fields every trace manifest carries. toJson() gives the stored layout:
/// {"checkpoint": {"path", "weight_sha256": {file: hex}}, "model_type", "model_config",
///  "tokenizer", "input": {"sha256", "hashed", "file_sha256", "kind"}, "gatescope": {"version",
///  "git_revision"}, "device", "dtypes", "attention_path", "created_at"} plus any keys of `extra`
///  (which must not collide).
struct Manifest {
    std::string checkpointPath;
    std::map<std::string, std::string> weightSha256;  ///< weight file name -> SHA-256 (hex)
    std::string modelType;
    nlohmann::json modelConfig = nlohmann::json::object();  ///< the full config.json
    nlohmann::json tokenizer = nlohmann::json::object();    ///< identity: kind, path, sha256...
    /// SHA-256 of what was traced: for text inputs the traced bytes (/tokens/source_bytes), for
    /// id inputs the traced ids as little-endian int64 (inputHashed says which).
    std::string inputSha256;
    std::string inputHashed = "source_bytes";  ///< "source_bytes" or "ids_int64le"
    std::string inputFileSha256;               ///< SHA-256 of the whole input file
    std::string inputKind = "text";            ///< "text" or "ids"
    std::string gatescopeVersion;
    std::string gitRevision;
    std::string device;                                ///< "cpu", "cuda:0 (NVIDIA H100)", ...
    nlohmann::json dtypes = nlohmann::json::object();  ///< {"weights": "float32", ...}
    std::string attentionPath;                         ///< which attention code ran
    std::string createdAt = utcNow();                  ///< ISO 8601 UTC
    nlohmann::json extra = nlohmann::json::object();

    nlohmann::json toJson() const;
    /// The current time as "YYYY-MM-DDTHH:MM:SSZ".
    static std::string utcNow();
};

/// Checks that `manifest` has every required key with the right JSON type. On failure the Error
/// (kind Usage) lists every problem; `file` names the trace being written.
Status validateManifest(const nlohmann::json& manifest, const std::string& file);

}  // namespace gatescope::data
