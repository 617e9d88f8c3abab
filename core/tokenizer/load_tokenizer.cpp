#include "core/tokenizer/load_tokenizer.h"

#include <fmt/format.h>

#include "core/tokenizer/byte_tokenizer.h"
#include "core/tokenizer/gpt2_bpe_tokenizer.h"
#include "core/tokenizer/hf_bpe_tokenizer.h"
#include "core/tokenizer/json_gpt2_tokenizer.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/tokenizer/text_file.h"
#include "core/tokenizer/tokenizer_config.h"
#include "core/tokenizer/tokenizer_json_kind.h"

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kJsonClass = "JSONGPT2Tokenizer";

bool fileExists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
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

Result<std::unique_ptr<Tokenizer>> loadGpt2(const fs::path& dir, bool fromJson,
                                            const TokenizerConfig& config) {
    const bool jsonConvention = config.tokenizerClass == kJsonClass;
    Gpt2BpeTokenizer::Options options;
    options.addBos = config.addBos.value_or(false) && !jsonConvention;  // the wrapper prepends it
    options.addPrefixSpace = config.addPrefixSpace && !jsonConvention;
    options.bosToken = config.bosToken;
    options.specialTokens = config.specialTokens;
    Result<std::unique_ptr<Gpt2BpeTokenizer>> bpe =
        fromJson
            ? Gpt2BpeTokenizer::fromTokenizerJson(dir / "tokenizer.json", options)
            : Gpt2BpeTokenizer::fromVocabAndMerges(dir / "vocab.json", dir / "merges.txt", options);
    if (!bpe) return bpe.error();
    if (jsonConvention) {
        return std::unique_ptr<Tokenizer>(std::make_unique<JsonGpt2Tokenizer>(
            std::move(bpe).value(), config.addBos.value_or(false)));
    }
    return std::unique_ptr<Tokenizer>(std::move(bpe).value());
}

// Every file that was there but of a kind gatescope does not read: one error naming the first
// file and its kind, the others in the message.
Error unreadable(const std::vector<Error>& skipped) {
    Error out = skipped.front();
    for (std::size_t i = 1; i < skipped.size(); ++i)
        out.message += fmt::format("; {}: {}", skipped[i].file, skipped[i].message);
    out.message += "; pass token ids (.ids, .npy or .safetensors) instead";
    return out;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> loadTokenizer(const fs::path& dir, const json& config) {
    if (config.is_object() && config.contains("gatescope_tokenizer")) {
        return loadByte(config["gatescope_tokenizer"], dir / "config.json");
    }

    const fs::path tokenizerJson = dir / "tokenizer.json";
    const fs::path tokenizerModel = dir / "tokenizer.model";
    const fs::path vocabJson = dir / "vocab.json";
    const fs::path mergesTxt = dir / "merges.txt";
    const bool haveJson = fileExists(tokenizerJson);
    const bool haveModel = fileExists(tokenizerModel);
    const bool haveVocab = fileExists(vocabJson) && fileExists(mergesTxt);
    if (!haveJson && !haveModel && !haveVocab) {
        std::string hint;
        if (fileExists(vocabJson) != fileExists(mergesTxt)) {
            hint = fileExists(vocabJson) ? " (vocab.json is there but merges.txt is not)"
                                         : " (merges.txt is there but vocab.json is not)";
        }
        return Error{ErrorKind::Missing,
                     fmt::format("no usable tokenizer: expected tokenizer.json, tokenizer.model, "
                                 "vocab.json + merges.txt, or \"gatescope_tokenizer\" in "
                                 "config.json{}",
                                 hint),
                     dir.string(),
                     {}};
    }
    Result<TokenizerConfig> settings = readTokenizerConfig(dir);
    if (!settings) return settings.error();

    std::vector<Error> skipped;  // files there, of kinds gatescope does not read
    if (haveJson) {
        Result<json> root = readJsonFile(tokenizerJson);
        if (!root) return root.error();
        const TokenizerJsonClass kind = classifyTokenizerJson(*root);
        switch (kind.kind) {
            case TokenizerJsonKind::Malformed:
                return Error{ErrorKind::Format, kind.description, tokenizerJson.string(),
                             kind.object};
            case TokenizerJsonKind::Gpt2ByteLevel:
                return loadGpt2(dir, true, *settings);
            case TokenizerJsonKind::SentencePieceBpe: {
                auto tok = HfBpeTokenizer::fromTokenizerJson(tokenizerJson, *root, *settings);
                if (!tok) return tok.error();
                return std::unique_ptr<Tokenizer>(std::move(tok).value());
            }
            case TokenizerJsonKind::Unsupported:
                skipped.push_back(Error{ErrorKind::Unsupported,
                                        fmt::format("holds {}, a kind of tokenizer gatescope "
                                                    "does not read",
                                                    kind.description),
                                        tokenizerJson.string(), kind.object});
                break;
        }
    }
    const std::string selection =
        skipped.empty() ? std::string()
                        : fmt::format("tokenizer.json not used: it {}", skipped[0].message);
    if (haveModel) {
        SentencePieceTokenizer::Options options;
        options.addBos = settings->addBos;
        options.addEos = settings->addEos.value_or(false);
        options.selection = selection;
        auto tok = SentencePieceTokenizer::fromFile(tokenizerModel, options);
        if (tok) return std::unique_ptr<Tokenizer>(std::move(tok).value());
        if (tok.error().kind != ErrorKind::Unsupported) return tok.error();
        skipped.push_back(tok.error());
    }
    if (haveVocab) return loadGpt2(dir, false, *settings);
    return unreadable(skipped);
}

}  // namespace gatescope::core
