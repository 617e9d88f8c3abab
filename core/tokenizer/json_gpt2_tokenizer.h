// FoX's LongCrawl64 tokenizer (JSONGPT2Tokenizer): GPT-2 BPE over json.dumps(text)[1:-1], no prefix
// space, BOS <|endoftext|> (50256) prepended.
#pragma once

#include <memory>

#include "core/tokenizer/gpt2_bpe_tokenizer.h"

namespace gatescope::core {

/// Offsets rule: every escaped character comes from exactly one original character, so a token's
/// span is the original characters its escaped bytes came from; a token covering only part of an
/// escape (e.g. "\u00" of "\u00e9") maps to that whole original character, which is why
/// neighbouring tokens may share bytes. BOS has the empty span (0, 0).
/// decode() is json.loads('"' + text + '"') made total (see jsonUnescape). tokenText() shows the
/// escaped form the model saw ("\n" as the two characters backslash and n).
/// Immutable apart from the BPE cache; thread-safe.
class JsonGpt2Tokenizer final : public Tokenizer {
public:
    /// `bpe` provides vocabulary, merges and special tokens; build it with addPrefixSpace off (the
    /// convention has no prefix space); a BOS it adds itself is dropped. `addBos` prepends bpe's
    /// BOS (Hugging Face add_bos_token, true for the released FoX checkpoints).
    JsonGpt2Tokenizer(std::unique_ptr<Gpt2BpeTokenizer> bpe, bool addBos);

    Result<Encoding> encode(std::string_view text) const override;
    Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const override;
    std::string tokenText(int32_t id) const override { return m_bpe->tokenText(id); }
    int32_t vocabSize() const override { return m_bpe->vocabSize(); }
    std::optional<int32_t> bosId() const override { return m_bpe->bosId(); }
    bool addsBos() const override { return m_addBos && m_bpe->bosId().has_value(); }
    nlohmann::json identity() const override;

private:
    std::unique_ptr<Gpt2BpeTokenizer> m_bpe;
    bool m_addBos;
};

}  // namespace gatescope::core
