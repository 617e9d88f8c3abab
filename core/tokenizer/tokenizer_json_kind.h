// Which kind of Hugging Face tokenizer.json a file holds, so that a checkpoint folder gets the
// tokenizer that reads it, or an error that names the kind. Internal to core/tokenizer.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gatescope::core {

enum class TokenizerJsonKind {
    Gpt2ByteLevel,     ///< BPE, ByteLevel pre-tokenizer, no normalizer: Gpt2BpeTokenizer
    SentencePieceBpe,  ///< BPE with Prepend/Replace normalizers and/or Metaspace: HfBpeTokenizer
    Unsupported,       ///< a valid kind that gatescope does not read (WordPiece, Unigram, ...)
    Malformed,         ///< not a tokenizer.json (no "model" object)
};

struct TokenizerJsonClass {
    TokenizerJsonKind kind = TokenizerJsonKind::Malformed;
    /// For Unsupported and Malformed: what the file holds, e.g. "a WordPiece model" or "a BPE
    /// model with a Split pre-tokenizer"; empty otherwise.
    std::string description;
    /// The JSON key at fault ("model.type", "pre_tokenizer", ...); empty when none.
    std::string object;
};

/// Classifies a parsed tokenizer.json by model type, normalizer and pre-tokenizer. Pure function.
TokenizerJsonClass classifyTokenizerJson(const nlohmann::json& root);

}  // namespace gatescope::core
