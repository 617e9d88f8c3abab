// The Hugging Face tokenizer.json of the Llama / Mistral family: a BPE model over SentencePiece
// pieces ("▁the") with byte fallback ("<0x0A>"), the SentencePiece-style normalizer (Prepend "▁",
// Replace " " -> "▁") or Metaspace pre-tokenizer, added tokens split out of the text first, and a
// post-processor template (or tokenizer_config.json) that says whether <s> comes first.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tokenizer/added_tokens.h"
#include "core/tokenizer/bpe_model.h"
#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

class AlignedText;
struct TokenizerConfig;

/// The pipeline, as read from tokenizer.json (see hf_bpe_loader.cpp).
struct HfBpeSpec {
    /// One normalizer step: Prepend `text`, or Replace every `text` by `with`.
    struct Step {
        bool prepend = false;
        std::string text;
        std::string with;
    };
    enum class PrependScheme { Always, First, Never };
    struct Metaspace {
        std::string replacement = "\u2581";
        PrependScheme prependScheme = PrependScheme::Always;
        bool split = true;  ///< split before every replacement character (MergedWithNext)
    };

    std::vector<Step> normalizer;
    std::optional<Metaspace> metaspace;
    std::vector<std::pair<std::string, int32_t>> vocab;
    std::vector<std::pair<std::string, std::string>> merges;
    BpeModel::Options bpe;  ///< unkId filled in from unkToken by create()
    std::optional<std::string> unkToken;
    std::vector<AddedToken> addedTokens;
    std::vector<int32_t> prefixIds;  ///< added before the text (<s>)
    std::vector<int32_t> suffixIds;  ///< added after it (</s>)
    std::optional<int32_t> bosId;
    nlohmann::json files = nlohmann::json::object();  ///< identity()["files"]
    nlohmann::json description;                       ///< normalizer / pre-tokenizer, for identity
    std::string selection;                            ///< identity()["selection"] when not empty
};

/// encode() runs the tokenizers library's order: added tokens that are not normalized are split
/// out of the raw text; each remaining piece is normalized, normalized added tokens are split
/// out of it, the rest is pre-tokenized (Metaspace) and encoded by BPE (byte fallback, unknown
/// token). Offsets are into the original text; a token made only of an inserted "▁" has an
/// empty span. Text must be valid UTF-8 (Hugging Face tokenizers take Unicode strings).
/// decodeWithOffsets(): pieces with "▁" as a space, byte tokens as their byte, added tokens as
/// their text; the space the pipeline prepends is dropped from the first token, as the
/// SentencePiece-style decoders do. tokenText() is the vocabulary string ("▁the", "<0x0A>").
/// Immutable apart from the BPE cache; thread-safe.
class HfBpeTokenizer final : public Tokenizer {
public:
    /// Errors (Format, object = the token or merge at fault, file left empty for the loader to
    /// fill): merges out of the vocabulary, an unknown unk_token, a duplicate id.
    static Result<std::unique_ptr<HfBpeTokenizer>> create(HfBpeSpec spec);
    /// From a parsed tokenizer.json that classifyTokenizerJson() calls SentencePieceBpe, and the
    /// folder's tokenizer_config.json: its add_bos_token / add_eos_token (with bos_token /
    /// eos_token), where given, decide what comes before and after the text, as the transformers
    /// Llama tokenizers do; else the post_processor's TemplateProcessing does. Errors name `file`
    /// and the key at fault. `selection` goes into identity()["selection"].
    static Result<std::unique_ptr<HfBpeTokenizer>> fromTokenizerJson(
        const std::filesystem::path& file, const nlohmann::json& root,
        const TokenizerConfig& config, std::string selection = {});

    Result<Encoding> encode(std::string_view text) const override;
    Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const override;
    std::string tokenText(int32_t id) const override;
    int32_t vocabSize() const override { return m_vocabSize; }
    std::optional<int32_t> bosId() const override { return m_spec.bosId; }
    bool addsBos() const override;
    nlohmann::json identity() const override;

private:
    HfBpeTokenizer() = default;
    // Normalizes, splits normalized added tokens, pre-tokenizes and encodes one raw piece.
    Status encodePiece(std::string_view text, std::size_t base, Encoding& out) const;
    Status encodeWords(const AlignedText& normalized, Encoding& out) const;
    AlignedText normalize(std::string_view text, std::size_t base) const;
    bool prependsSpace() const;

    HfBpeSpec m_spec;
    std::unique_ptr<BpeModel> m_model;
    AddedTokenMatcher m_raw;               // added tokens with normalized == false
    AddedTokenMatcher m_normalized;        // normalized == true, by their normalized text
    std::vector<std::string> m_addedText;  // per id: an added token's content, else empty
    int32_t m_vocabSize = 0;
};

}  // namespace gatescope::core
