// HfBpeTokenizer::fromTokenizerJson: a Llama / Mistral style tokenizer.json into an HfBpeSpec.
#include <unordered_map>

#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/bpe_json.h"
#include "core/tokenizer/hf_bpe_tokenizer.h"
#include "core/tokenizer/tokenizer_config.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Ids = std::vector<int32_t>;

Error bad(const fs::path& file, std::string object, std::string message) {
    return Error{ErrorKind::Format, std::move(message), file.string(), std::move(object)};
}

void readNormalizer(const json& normalizer, HfBpeSpec& spec) {
    if (!normalizer.is_object()) return;
    const std::string type = normalizer.value("type", "");
    if (type == "Sequence") {
        for (const json& step : normalizer.value("normalizers", json::array()))
            readNormalizer(step, spec);
    } else if (type == "Prepend") {
        spec.normalizer.push_back({true, normalizer.value("prepend", ""), {}});
    } else if (type == "Replace") {
        const json pattern = normalizer.value("pattern", json::object());
        spec.normalizer.push_back(
            {false, pattern.value("String", ""), normalizer.value("content", "")});
    }
}

Status readMetaspace(const json& pre, const fs::path& file, HfBpeSpec& spec) {
    if (!pre.is_object() || pre.value("type", "") != "Metaspace") return Ok{};
    HfBpeSpec::Metaspace meta;
    meta.replacement = pre.value("replacement", meta.replacement);
    meta.split = pre.value("split", true);
    const std::string scheme = pre.value("prepend_scheme", "always");
    if (scheme == "first") {
        meta.prependScheme = HfBpeSpec::PrependScheme::First;
    } else if (scheme == "never") {
        meta.prependScheme = HfBpeSpec::PrependScheme::Never;
    } else if (scheme != "always") {
        return bad(file, "pre_tokenizer.prepend_scheme", "expected always, first or never");
    }
    if (pre.contains("add_prefix_space") && pre["add_prefix_space"] == false)
        meta.prependScheme = HfBpeSpec::PrependScheme::Never;
    spec.metaspace = meta;
    return Ok{};
}

// TemplateProcessing's "single": the special tokens before and after $A. A Sequence of
// processors contributes its TemplateProcessing; anything else adds nothing.
Status readTemplate(const json& processor, const fs::path& file, Ids& prefix, Ids& suffix) {
    if (!processor.is_object()) return Ok{};
    const std::string type = processor.value("type", "");
    if (type == "Sequence") {
        for (const json& p : processor.value("processors", json::array())) {
            if (Status st = readTemplate(p, file, prefix, suffix); !st) return st;
        }
        return Ok{};
    }
    if (type != "TemplateProcessing") return Ok{};
    const json specials = processor.value("special_tokens", json::object());
    bool seenText = false;
    for (const json& item : processor.value("single", json::array())) {
        if (item.contains("Sequence")) {
            seenText = true;
            continue;
        }
        const std::string name = item.value("SpecialToken", json::object()).value("id", "");
        if (!specials.contains(name) || !specials[name].contains("ids") ||
            !specials[name]["ids"].is_array()) {
            return bad(file, "post_processor.special_tokens",
                       fmt::format("the template's \"{}\" has no ids", name));
        }
        for (const json& id : specials[name]["ids"]) {
            if (!id.is_number_integer() || id.get<int64_t>() < 0)
                return bad(file, "post_processor.special_tokens", "an id is not a valid id");
            (seenText ? suffix : prefix).push_back(id.get<int32_t>());
        }
    }
    return Ok{};
}

Status readAddedTokens(const json& root, const fs::path& file, HfBpeSpec& spec) {
    for (const json& added : root.value("added_tokens", json::array())) {
        if (!added.is_object() || !added.contains("id") || !added.contains("content") ||
            !added["id"].is_number_integer() || !added["content"].is_string()) {
            return bad(file, "added_tokens", "an entry lacks an integer id and a string content");
        }
        AddedToken token;
        token.content = added["content"].get<std::string>();
        token.id = added["id"].get<int32_t>();
        token.special = added.value("special", false);
        token.singleWord = added.value("single_word", false);
        token.lstrip = added.value("lstrip", false);
        token.rstrip = added.value("rstrip", false);
        token.normalized = added.value("normalized", !token.special);
        if (!token.content.empty()) spec.addedTokens.push_back(std::move(token));
    }
    return Ok{};
}

}  // namespace

Result<std::unique_ptr<HfBpeTokenizer>> HfBpeTokenizer::fromTokenizerJson(
    const fs::path& file, const json& root, const TokenizerConfig& config, std::string selection) {
    HfBpeSpec spec;
    const json& model = root.at("model");
    Result<BpeVocab> vocab = parseBpeVocab(model.value("vocab", json()), file);
    if (!vocab) return vocab.error();
    Result<BpeMerges> merges = parseBpeMerges(model.value("merges", json::array()), file);
    if (!merges) return merges.error();
    spec.vocab = std::move(vocab).value();
    spec.merges = std::move(merges).value();
    spec.bpe.byteFallback = model.value("byte_fallback", false);
    spec.bpe.fuseUnk = model.value("fuse_unk", false);
    spec.bpe.ignoreMerges = model.value("ignore_merges", false);
    if (model.contains("unk_token") && model["unk_token"].is_string())
        spec.unkToken = model["unk_token"].get<std::string>();
    readNormalizer(root.value("normalizer", json()), spec);
    if (Status st = readMetaspace(root.value("pre_tokenizer", json()), file, spec); !st)
        return st.error();
    if (Status st = readAddedTokens(root, file, spec); !st) return st.error();
    if (Status st = readTemplate(root.value("post_processor", json()), file, spec.prefixIds,
                                 spec.suffixIds);
        !st)
        return st.error();

    // Token text -> id, for the tokens tokenizer_config.json names.
    std::unordered_map<std::string, int32_t> ids;
    for (const auto& [token, id] : spec.vocab)
        ids.emplace(token, id);
    for (const AddedToken& token : spec.addedTokens)
        ids[token.content] = token.id;
    auto idOf = [&](const std::optional<std::string>& token) -> std::optional<int32_t> {
        if (!token) return std::nullopt;
        auto it = ids.find(*token);
        return it == ids.end() ? std::nullopt : std::optional<int32_t>(it->second);
    };
    const fs::path configFile = file.parent_path() / "tokenizer_config.json";
    std::string bosFrom = spec.prefixIds.empty() ? "none" : "post_processor";
    spec.bosId = idOf(config.bosToken);
    if (!spec.bosId && !spec.prefixIds.empty()) spec.bosId = spec.prefixIds.front();
    if (config.addBos) {
        if (*config.addBos && !spec.bosId) {
            return Error{ErrorKind::Missing, "add_bos_token is true but the BOS token is unknown",
                         configFile.string(), "bos_token"};
        }
        spec.prefixIds = *config.addBos ? Ids{*spec.bosId} : Ids{};
        bosFrom = "tokenizer_config.json add_bos_token";
    }
    if (config.addEos) {
        const std::optional<int32_t> eos = idOf(config.eosToken);
        if (*config.addEos && !eos) {
            return Error{ErrorKind::Missing, "add_eos_token is true but the EOS token is unknown",
                         configFile.string(), "eos_token"};
        }
        spec.suffixIds = *config.addEos ? Ids{*eos} : Ids{};
    }

    spec.description = {{"normalizer", root.value("normalizer", json())},
                        {"pre_tokenizer", root.value("pre_tokenizer", json())},
                        {"special_tokens_from", bosFrom}};
    Result<std::string> digest = sha256File(file);
    if (!digest) return digest.error();
    spec.files = {{file.filename().string(), *digest}};
    spec.selection = std::move(selection);
    auto tok = create(std::move(spec));
    if (!tok) {
        Error error = tok.error();
        if (error.file.empty()) error.file = file.string();
        return error;
    }
    return tok;
}

}  // namespace gatescope::core
