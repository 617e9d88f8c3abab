// The vocabulary and merges of a BPE model in JSON (tokenizer.json's model, GPT-2's vocab.json),
// shared by the tokenizer.json loaders. Internal to core/tokenizer. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::core {

using BpeVocab = std::vector<std::pair<std::string, int32_t>>;
using BpeMerges = std::vector<std::pair<std::string, std::string>>;

/// {token: id}. Error (Format, naming `file` and the token) for a non-object or an id that is
/// not an integer in [0, 2^31).
Result<BpeVocab> parseBpeVocab(const nlohmann::json& vocab, const std::filesystem::path& file);

/// "a b" -> (a, b); false unless there is exactly one space with text on both sides.
bool splitBpeMerge(std::string_view line, std::pair<std::string, std::string>& out);

/// model.merges: "a b" strings or ["a", "b"] pairs (the newer tokenizers format). Error (Format,
/// naming `file` and "model.merges[i]") for anything else.
Result<BpeMerges> parseBpeMerges(const nlohmann::json& merges, const std::filesystem::path& file);

}  // namespace gatescope::core
