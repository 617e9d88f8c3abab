// tokenizer_config.json and special_tokens_map.json of a checkpoint folder (Hugging Face), as far
// as gatescope's tokenizers need them. Internal to core/tokenizer.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

/// Plain value. Absent files and keys leave fields empty; tokenizer_config.json wins over
/// special_tokens_map.json where both name a token.
struct TokenizerConfig {
    std::string tokenizerClass;   ///< "tokenizer_class", e.g. "LlamaTokenizer"
    std::optional<bool> addBos;   ///< "add_bos_token"
    std::optional<bool> addEos;   ///< "add_eos_token"
    bool addPrefixSpace = false;  ///< "add_prefix_space" (GPT-2)
    std::optional<std::string> bosToken;
    std::optional<std::string> eosToken;
    /// bos/eos/unk/pad tokens and the contents of added_tokens_decoder, in file order.
    std::vector<std::string> specialTokens;
};

/// Reads `dir`/tokenizer_config.json and `dir`/special_tokens_map.json when present. Errors name
/// the file: Io, Format (not JSON, tokenizer_config.json not an object). Thread-safe.
Result<TokenizerConfig> readTokenizerConfig(const std::filesystem::path& dir);

}  // namespace gatescope::core
