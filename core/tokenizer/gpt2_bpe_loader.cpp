// The file-reading factories of Gpt2BpeTokenizer: tokenizer.json, or vocab.json + merges.txt.
#include <fmt/format.h>

#include "core/checkpoint/checkpoint.h"
#include "core/tokenizer/bpe_json.h"
#include "core/tokenizer/gpt2_bpe_tokenizer.h"
#include "core/tokenizer/text_file.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Error fileError(ErrorKind kind, const fs::path& file, std::string object, std::string message) {
    return Error{kind, std::move(message), file.string(), std::move(object)};
}

// Re-attributes an error from the in-memory factory to the file it came from.
Error inFile(Error error, const fs::path& file) {
    if (error.file.empty()) error.file = file.string();
    return error;
}

Status checkByteLevelPipeline(const json& root, const fs::path& file,
                              Gpt2BpeTokenizer::Options& options) {
    const json& model = root.at("model");
    const std::string type = model.value("type", "BPE");
    if (type != "BPE") {
        return fileError(
            ErrorKind::Unsupported, file, "model.type",
            fmt::format("a {} model; only GPT-2 style byte-level BPE is supported", type));
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        if (model.contains(key) && model[key].is_string() &&
            !model[key].get<std::string>().empty()) {
            return fileError(ErrorKind::Unsupported, file, std::string("model.") + key,
                             "BPE with subword affixes is not byte-level GPT-2 BPE");
        }
    }
    if (root.contains("normalizer") && !root["normalizer"].is_null()) {
        return fileError(ErrorKind::Unsupported, file, "normalizer",
                         "a normalizer is configured; GPT-2 byte-level BPE has none");
    }
    const json pre = root.value("pre_tokenizer", json());
    if (!pre.is_object() || pre.value("type", "") != "ByteLevel" || !pre.value("use_regex", true)) {
        return fileError(ErrorKind::Unsupported, file, "pre_tokenizer",
                         "the pre-tokenizer is not ByteLevel with GPT-2's regex; only GPT-2 "
                         "style byte-level BPE is supported");
    }
    if (pre.value("add_prefix_space", false)) options.addPrefixSpace = true;
    return Ok{};
}

}  // namespace

Result<std::unique_ptr<Gpt2BpeTokenizer>> Gpt2BpeTokenizer::fromTokenizerJson(const fs::path& file,
                                                                              Options options) {
    Result<json> root = readJsonFile(file);
    if (!root) return root.error();
    if (!root->is_object() || !root->contains("model") || !(*root)["model"].is_object()) {
        return fileError(ErrorKind::Format, file, "model", "lacks a \"model\" object");
    }
    Status pipeline = checkByteLevelPipeline(*root, file, options);
    if (!pipeline) return pipeline.error();
    const json& model = (*root)["model"];
    Result<Vocab> vocab = parseBpeVocab(model.value("vocab", json()), file);
    if (!vocab) return vocab.error();
    Result<Merges> merges = parseBpeMerges(model.value("merges", json::array()), file);
    if (!merges) return merges.error();

    for (const json& added : root->value("added_tokens", json::array())) {
        if (!added.is_object() || !added.contains("id") || !added.contains("content") ||
            !added["id"].is_number_integer() || !added["content"].is_string()) {
            return fileError(ErrorKind::Format, file, "added_tokens",
                             "an entry lacks an integer id and a string content");
        }
        const auto content = added["content"].get<std::string>();
        const auto id = added["id"].get<int32_t>();
        const bool known = std::any_of(vocab->begin(), vocab->end(),
                                       [&](const auto& v) { return v.first == content; });
        if (!known) vocab->emplace_back(content, id);
        options.specialTokens.push_back(content);
    }

    Result<std::string> digest = sha256File(file);
    if (!digest) return digest.error();
    json files = {{file.filename().string(), *digest}};
    auto tok = fromData(std::move(vocab).value(), *merges, std::move(options), std::move(files));
    if (!tok) return inFile(tok.error(), file);
    return tok;
}

Result<std::unique_ptr<Gpt2BpeTokenizer>> Gpt2BpeTokenizer::fromVocabAndMerges(
    const fs::path& vocabFile, const fs::path& mergesFile, Options options) {
    Result<json> vocabJson = readJsonFile(vocabFile);
    if (!vocabJson) return vocabJson.error();
    Result<Vocab> vocab = parseBpeVocab(*vocabJson, vocabFile);
    if (!vocab) return vocab.error();

    Result<std::string> mergesText = readWholeFile(mergesFile);
    if (!mergesText) return mergesText.error();
    Merges merges;
    std::size_t lineStart = 0;
    for (std::size_t lineNumber = 1; lineStart <= mergesText->size(); ++lineNumber) {
        std::size_t lineEnd = mergesText->find('\n', lineStart);
        if (lineEnd == std::string::npos) lineEnd = mergesText->size();
        std::string_view line(mergesText->data() + lineStart, lineEnd - lineStart);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lineStart = lineEnd + 1;
        if (line.empty() || line.starts_with("#version")) continue;
        std::pair<std::string, std::string> merge;
        if (!splitBpeMerge(line, merge)) {
            return fileError(ErrorKind::Format, mergesFile, fmt::format("line {}", lineNumber),
                             "expected two symbols separated by one space");
        }
        merges.push_back(std::move(merge));
    }

    json files = json::object();
    for (const fs::path& f : {vocabFile, mergesFile}) {
        Result<std::string> digest = sha256File(f);
        if (!digest) return digest.error();
        files[f.filename().string()] = *digest;
    }
    auto tok = fromData(std::move(vocab).value(), merges, std::move(options), std::move(files));
    if (!tok) {
        // Merge problems are the merges file's; id problems the vocabulary's.
        const bool mergeError = tok.error().object.find(' ') != std::string::npos;
        return inFile(tok.error(), mergeError ? mergesFile : vocabFile);
    }
    return tok;
}

}  // namespace gatescope::core
