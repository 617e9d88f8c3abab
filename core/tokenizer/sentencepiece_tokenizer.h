// A SentencePiece model (tokenizer.model of Llama, Mistral and the fla-hub GSA checkpoints), run by
// the SentencePiece library itself (Debian's libsentencepiece, loaded through gatescope's
// SentencePiece module in a link namespace of its own: sentencepiece_module.h says why): gatescope
// does not re-implement its normalization, BPE or unigram segmentation.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// Whether this build made the SentencePiece module (optional: absent where libsentencepiece-dev
/// is not installed, e.g. the GPU machine, where SentencePieceTokenizer::fromFile reports
/// Unsupported).
bool sentencePieceAvailable();

/// encode() is SentencePiece's Encode of the whole text (as spm_encode does per line), with BOS
/// (and EOS) added as Options say. Ids, pieces and offsets are the library's; a piece of a
/// character split into byte pieces ("<0xE2>" "<0x82>" "<0xAC>") gets that character's bytes
/// one by one when their count matches, else the whole character (spans may then overlap).
/// Text that is not valid UTF-8 is accepted: SentencePiece reads every invalid byte as U+FFFD
/// (acceptsInvalidUtf8() is true), and that token's span is the invalid byte.
/// decodeWithOffsets() is SentencePiece's Decode: control tokens (<s>, </s>) decode to no text,
/// the dummy-prefix space of the first piece is dropped. tokenText() is the piece ("▁the",
/// "<0x0A>"). identity() names the library's version. The library's processor is immutable after
/// loading and its Encode/Decode are const: every method is safe to call from several threads at
/// once.
class SentencePieceTokenizer final : public Tokenizer {
public:
    struct Options {
        /// Prepend the model's BOS (<s>) in encode() (tokenizer_config.json's add_bos_token).
        /// nullopt: when the model has one, as the transformers LlamaTokenizer defaults to.
        std::optional<bool> addBos;
        /// Append the model's EOS (</s>) in encode() (add_eos_token).
        bool addEos = false;
        /// Put into identity()["selection"]: why this file was chosen (may be empty).
        std::string selection;
    };

    /// Loads `file` (at most data::input_limits::kTokenizerFile bytes). Errors name it: Io (cannot
    /// read), Unsupported (a tiktoken BPE file, as Llama 3 ships under this name; a build without
    /// the SentencePiece module, or a module that does not load: sentencePieceModule()'s reason),
    /// Format (not a SentencePiece model, or too large), Missing (addBos / addEos but the model
    /// has no such token).
    static Result<std::unique_ptr<SentencePieceTokenizer>> fromFile(
        const std::filesystem::path& file, Options options);
    ~SentencePieceTokenizer() override;

    Result<Encoding> encode(std::string_view text) const override;
    Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const override;
    std::string tokenText(int32_t id) const override;
    int32_t vocabSize() const override;
    std::optional<int32_t> bosId() const override;
    bool addsBos() const override;
    bool acceptsInvalidUtf8() const override { return true; }
    nlohmann::json identity() const override;

private:
    struct Impl;
    explicit SentencePieceTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace gatescope::core
