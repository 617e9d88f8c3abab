// GPT-2 byte-level BPE: pre-tokenization by GPT-2's regex, the byte-to-unicode alphabet, merges by
// rank, and added special tokens such as <|endoftext|> (50256) matched in the text first.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tokenizer/bpe_model.h"
#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

class Gpt2BpeTokenizer final : public Tokenizer {
public:
    struct Options {
        /// Prepend the BOS token in encode() (Hugging Face's add_bos_token).
        bool addBos = false;
        /// The BOS token's text; defaults to "<|endoftext|>" when the vocabulary has it.
        std::optional<std::string> bosToken;
        /// Prepend one space to the whole text before pre-tokenization (the slow GPT2Tokenizer's
        /// add_prefix_space; the added space maps to no byte of the original text).
        bool addPrefixSpace = false;
        /// Extra texts matched as single tokens before pre-tokenization (must be in the
        /// vocabulary; ignored otherwise). "<|endoftext|>" is always one when present.
        std::vector<std::string> specialTokens;
    };
    using Vocab = std::vector<std::pair<std::string, int32_t>>;
    using Merges = std::vector<std::pair<std::string, std::string>>;

    /// A Hugging Face tokenizer.json with a BPE model (vocab + merges as "a b" strings or [a, b]
    /// pairs), a ByteLevel pre-tokenizer and no normalizer; its added_tokens become special
    /// tokens. Errors name the file: not JSON, not BPE, not byte-level, a merge out of vocabulary.
    static Result<std::unique_ptr<Gpt2BpeTokenizer>> fromTokenizerJson(
        const std::filesystem::path& file, Options options);
    /// GPT-2's vocab.json (token -> id) and merges.txt ("#version" line, then "a b" per line).
    static Result<std::unique_ptr<Gpt2BpeTokenizer>> fromVocabAndMerges(
        const std::filesystem::path& vocabFile, const std::filesystem::path& mergesFile,
        Options options);
    /// From memory (byte-level token strings). `files` goes into identity()["files"].
    static Result<std::unique_ptr<Gpt2BpeTokenizer>> fromData(
        Vocab vocab, const Merges& merges, Options options,
        nlohmann::json files = nlohmann::json::object());

    /// Error (Format, no file) for invalid UTF-8, naming the byte offset.
    Result<Encoding> encode(std::string_view text) const override;
    Result<Decoding> decodeWithOffsets(std::span<const int32_t> ids) const override;
    std::string tokenText(int32_t id) const override;
    int32_t vocabSize() const override { return m_vocabSize; }
    std::optional<int32_t> bosId() const override { return m_bos; }
    bool addsBos() const override { return m_options.addBos && m_bos.has_value(); }
    nlohmann::json identity() const override;

    /// The id of a token string (byte-level spelling, or a special token's text); -1 if absent.
    int32_t idOf(std::string_view token) const { return m_model->idOf(token); }
    /// The raw bytes an id stands for (a special token: its text). Empty for unknown ids.
    const std::string& bytesOf(int32_t id) const;

private:
    Gpt2BpeTokenizer() = default;
    Status encodeOrdinary(std::string_view text, std::size_t base, Encoding& out) const;

    std::unique_ptr<BpeModel> m_model;
    Options m_options;
    std::vector<std::pair<std::string, int32_t>> m_specials;  // longest first
    std::vector<std::string> m_bytes;                         // per id: decoded bytes
    std::optional<int32_t> m_bos;
    int32_t m_vocabSize = 0;
    nlohmann::json m_files;
};

}  // namespace gatescope::core
