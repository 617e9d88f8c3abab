#include "core/tokenizer/tokenizer_config.h"

#include <nlohmann/json.hpp>

#include "core/tokenizer/text_file.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A special token field: "text" or {"content": "text", ...}.
std::optional<std::string> tokenContent(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_object() && value.contains("content") && value["content"].is_string()) {
        return value["content"].get<std::string>();
    }
    return std::nullopt;
}

std::optional<bool> flag(const json& config, const char* key) {
    if (config.contains(key) && config[key].is_boolean()) return config[key].get<bool>();
    return std::nullopt;
}

}  // namespace

Result<TokenizerConfig> readTokenizerConfig(const fs::path& dir) {
    json tokenizerConfig = json::object();
    const fs::path configPath = dir / "tokenizer_config.json";
    std::error_code ec;
    if (fs::exists(configPath, ec)) {
        Result<json> parsed = readJsonFile(configPath);
        if (!parsed) return parsed.error();
        if (!parsed->is_object()) {
            return Error{ErrorKind::Format, "is not a JSON object", configPath.string(), {}};
        }
        tokenizerConfig = std::move(parsed).value();
    }
    json specialMap = json::object();
    const fs::path mapPath = dir / "special_tokens_map.json";
    if (fs::exists(mapPath, ec)) {
        Result<json> parsed = readJsonFile(mapPath);
        if (!parsed) return parsed.error();
        if (parsed->is_object()) specialMap = std::move(parsed).value();
    }

    TokenizerConfig out;
    if (tokenizerConfig.contains("tokenizer_class") &&
        tokenizerConfig["tokenizer_class"].is_string())
        out.tokenizerClass = tokenizerConfig["tokenizer_class"].get<std::string>();
    out.addBos = flag(tokenizerConfig, "add_bos_token");
    out.addEos = flag(tokenizerConfig, "add_eos_token");
    out.addPrefixSpace = flag(tokenizerConfig, "add_prefix_space").value_or(false);
    for (const json* source : {&specialMap, &tokenizerConfig}) {
        for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token"}) {
            if (!source->contains(key)) continue;
            if (auto content = tokenContent((*source)[key])) {
                out.specialTokens.push_back(*content);
                if (std::string_view(key) == "bos_token") out.bosToken = *content;
                if (std::string_view(key) == "eos_token") out.eosToken = *content;
            }
        }
    }
    if (tokenizerConfig.contains("added_tokens_decoder") &&
        tokenizerConfig["added_tokens_decoder"].is_object()) {
        for (const auto& [id, entry] : tokenizerConfig["added_tokens_decoder"].items()) {
            if (auto content = tokenContent(entry)) out.specialTokens.push_back(*content);
        }
    }
    return out;
}

}  // namespace gatescope::core
