#include "core/tokenizer/load_tokenizer.h"

#include <fmt/format.h>

#include "core/tokenizer/byte_tokenizer.h"
#include "core/tokenizer/gpt2_bpe_tokenizer.h"
#include "core/tokenizer/json_gpt2_tokenizer.h"
#include "core/tokenizer/text_file.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kJsonClass = "JSONGPT2Tokenizer";

bool fileExists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
}

// A special token field: "text" or {"content": "text", ...}.
std::optional<std::string> tokenContent(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_object() && value.contains("content") && value["content"].is_string()) {
        return value["content"].get<std::string>();
    }
    return std::nullopt;
}

Result<std::unique_ptr<Tokenizer>> loadByte(const json& setting, const fs::path& configFile) {
    auto bad = [&] {
        return Error{ErrorKind::Format,
                     "expected \"byte\" or {\"kind\": \"byte\", \"bos_id\": N} with N >= 256",
                     configFile.string(), "gatescope_tokenizer"};
    };
    if (setting.is_string()) {
        if (setting.get<std::string>() != "byte") return bad();
        return std::unique_ptr<Tokenizer>(std::make_unique<ByteTokenizer>());
    }
    if (!setting.is_object() || setting.value("kind", "") != "byte") return bad();
    std::optional<int32_t> bos;
    if (setting.contains("bos_id")) {
        if (!setting["bos_id"].is_number_integer() || setting["bos_id"].get<int64_t>() < 256 ||
            setting["bos_id"].get<int64_t>() > 1'000'000) {
            return bad();
        }
        bos = setting["bos_id"].get<int32_t>();
    }
    return std::unique_ptr<Tokenizer>(std::make_unique<ByteTokenizer>(bos));
}

struct HfSettings {
    Gpt2BpeTokenizer::Options options;
    bool jsonConvention = false;
};

Result<HfSettings> readHfSettings(const fs::path& dir) {
    HfSettings settings;
    json tokenizerConfig = json::object();
    const fs::path configPath = dir / "tokenizer_config.json";
    if (fileExists(configPath)) {
        Result<json> parsed = readJsonFile(configPath);
        if (!parsed) return parsed.error();
        if (!parsed->is_object()) {
            return Error{ErrorKind::Format, "is not a JSON object", configPath.string(), {}};
        }
        tokenizerConfig = std::move(parsed).value();
    }
    json specialMap = json::object();
    const fs::path mapPath = dir / "special_tokens_map.json";
    if (fileExists(mapPath)) {
        Result<json> parsed = readJsonFile(mapPath);
        if (!parsed) return parsed.error();
        if (parsed->is_object()) specialMap = std::move(parsed).value();
    }

    auto& options = settings.options;
    settings.jsonConvention = tokenizerConfig.value("tokenizer_class", "") == kJsonClass;
    auto flag = [&](const char* key) {
        return tokenizerConfig.contains(key) && tokenizerConfig[key].is_boolean() &&
               tokenizerConfig[key].get<bool>();
    };
    options.addBos = flag("add_bos_token");
    options.addPrefixSpace = flag("add_prefix_space") && !settings.jsonConvention;
    for (const json* source : {&specialMap, &tokenizerConfig}) {
        for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token"}) {
            if (!source->contains(key)) continue;
            if (auto content = tokenContent((*source)[key])) {
                options.specialTokens.push_back(*content);
                if (std::string_view(key) == "bos_token") options.bosToken = *content;
            }
        }
    }
    if (tokenizerConfig.contains("added_tokens_decoder") &&
        tokenizerConfig["added_tokens_decoder"].is_object()) {
        for (const auto& [id, entry] : tokenizerConfig["added_tokens_decoder"].items()) {
            if (auto content = tokenContent(entry)) options.specialTokens.push_back(*content);
        }
    }
    return settings;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> loadTokenizer(const fs::path& dir, const json& config) {
    if (config.is_object() && config.contains("gatescope_tokenizer")) {
        return loadByte(config["gatescope_tokenizer"], dir / "config.json");
    }

    const fs::path tokenizerJson = dir / "tokenizer.json";
    const fs::path vocabJson = dir / "vocab.json";
    const fs::path mergesTxt = dir / "merges.txt";
    const bool haveJson = fileExists(tokenizerJson);
    const bool haveVocab = fileExists(vocabJson) && fileExists(mergesTxt);
    if (!haveJson && !haveVocab) {
        std::string hint;
        if (fileExists(dir / "tokenizer.model")) {
            hint =
                " (tokenizer.model is a SentencePiece model, which gatescope does not read; "
                "pass token ids instead)";
        } else if (fileExists(vocabJson) != fileExists(mergesTxt)) {
            hint = fileExists(vocabJson) ? " (vocab.json is there but merges.txt is not)"
                                         : " (merges.txt is there but vocab.json is not)";
        }
        return Error{ErrorKind::Missing,
                     fmt::format("no usable tokenizer: expected tokenizer.json, vocab.json + "
                                 "merges.txt, or \"gatescope_tokenizer\" in config.json{}",
                                 hint),
                     dir.string(),
                     {}};
    }

    Result<HfSettings> settings = readHfSettings(dir);
    if (!settings) return settings.error();
    const bool addBos = settings->options.addBos;
    Gpt2BpeTokenizer::Options options = settings->options;
    if (settings->jsonConvention) options.addBos = false;  // the wrapper prepends it
    Result<std::unique_ptr<Gpt2BpeTokenizer>> bpe =
        haveJson ? Gpt2BpeTokenizer::fromTokenizerJson(tokenizerJson, options)
                 : Gpt2BpeTokenizer::fromVocabAndMerges(vocabJson, mergesTxt, options);
    if (!bpe) return bpe.error();
    if (settings->jsonConvention) {
        return std::unique_ptr<Tokenizer>(
            std::make_unique<JsonGpt2Tokenizer>(std::move(bpe).value(), addBos));
    }
    return std::unique_ptr<Tokenizer>(std::move(bpe).value());
}

}  // namespace gatescope::core
