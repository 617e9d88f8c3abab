#include "core/tokenizer/tokenizer_json_kind.h"

#include <fmt/format.h>

namespace gatescope::core {
namespace {

using nlohmann::json;

std::string typeOf(const json& component) {
    if (!component.is_object()) return {};
    return component.value("type", std::string());
}

// The model's type; the tokenizers library infers it from the fields when "type" is absent.
std::string modelType(const json& model) {
    if (model.contains("type") && model["type"].is_string())
        return model["type"].get<std::string>();
    if (model.contains("merges")) return "BPE";
    if (model.contains("vocab") && model["vocab"].is_array()) return "Unigram";
    if (model.contains("max_input_chars_per_word")) return "WordPiece";
    return "WordLevel";
}

TokenizerJsonClass unsupported(std::string description, std::string object) {
    return {TokenizerJsonKind::Unsupported, std::move(description), std::move(object)};
}

// Prepend and Replace with a plain-string pattern, alone or in a Sequence: SentencePiece-style.
bool isSentencePieceNormalizer(const json& normalizer, std::string& offending) {
    if (normalizer.is_null()) return true;
    const std::string type = typeOf(normalizer);
    if (type == "Sequence") {
        for (const json& step : normalizer.value("normalizers", json::array())) {
            if (!isSentencePieceNormalizer(step, offending)) return false;
        }
        return true;
    }
    if (type == "Prepend") return true;
    if (type == "Replace") {
        const json pattern = normalizer.value("pattern", json());
        if (pattern.is_object() && pattern.contains("String")) return true;
        offending = "Replace normalizer with a regular expression";
        return false;
    }
    offending = (type.empty() ? "an unknown" : type) + " normalizer";
    return false;
}

}  // namespace

TokenizerJsonClass classifyTokenizerJson(const json& root) {
    if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
        return {TokenizerJsonKind::Malformed, "lacks a \"model\" object", "model"};
    }
    const json& model = root["model"];
    const std::string type = modelType(model);
    if (type != "BPE") return unsupported(fmt::format("a {} model", type), "model.type");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        if (model.contains(key) && model[key].is_string() && !model[key].get<std::string>().empty())
            return unsupported("a BPE model with subword affixes", std::string("model.") + key);
    }
    if (model.contains("dropout") && model["dropout"].is_number() &&
        model["dropout"].get<double>() > 0.0) {
        return unsupported("a BPE model with dropout (a random segmentation)", "model.dropout");
    }

    const json normalizer = root.value("normalizer", json());
    const json pre = root.value("pre_tokenizer", json());
    const std::string preType = typeOf(pre);
    if (preType == "ByteLevel") {
        if (!normalizer.is_null()) {
            return unsupported("a byte-level BPE model with a normalizer", "normalizer");
        }
        if (!pre.value("use_regex", true)) {
            return unsupported("a byte-level BPE model without GPT-2's split pattern",
                               "pre_tokenizer");
        }
        return {TokenizerJsonKind::Gpt2ByteLevel, {}, {}};
    }
    if (!pre.is_null() && preType != "Metaspace") {
        std::string kinds = preType;
        if (preType == "Sequence") {
            kinds.clear();
            for (const json& p : pre.value("pretokenizers", json::array()))
                kinds += (kinds.empty() ? "" : ", ") + typeOf(p);
            return unsupported(
                fmt::format("a BPE model with a Sequence pre-tokenizer ({}), as Llama 3 and Qwen "
                            "ship",
                            kinds),
                "pre_tokenizer");
        }
        return unsupported(fmt::format("a BPE model with a {} pre-tokenizer", preType),
                           "pre_tokenizer");
    }
    std::string offending;
    if (!isSentencePieceNormalizer(normalizer, offending)) {
        return unsupported(fmt::format("a BPE model with a {}", offending), "normalizer");
    }
    return {TokenizerJsonKind::SentencePieceBpe, {}, {}};
}

}  // namespace gatescope::core
