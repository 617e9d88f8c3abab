// Finding the tokenizer of a checkpoint folder.
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// Loads the tokenizer that goes with a checkpoint, in this order:
///  1. config["gatescope_tokenizer"]: "byte" (ByteTokenizer, no BOS) or {"kind": "byte",
///     "bos_id": N} (BOS N >= 256 prepended), for gatescope's own byte-level models;
///  2. `dir`/tokenizer.json (GPT-2 byte-level BPE);
///  3. `dir`/vocab.json + `dir`/merges.txt.
/// For 2 and 3, tokenizer_config.json (and special_tokens_map.json) are honoured: tokenizer_class
/// "JSONGPT2Tokenizer" selects FoX's JSON-escaping convention; add_bos_token, add_prefix_space,
/// bos_token and the special tokens (added_tokens_decoder, bos/eos/unk/pad) are read.
/// Errors name the file at fault; Missing (file = `dir`) when nothing usable is there.
/// `config` is the checkpoint's parsed config.json (may be an empty object). The caller owns the
/// result; it only reads files, so concurrent calls are safe.
Result<std::unique_ptr<Tokenizer>> loadTokenizer(const std::filesystem::path& dir,
                                                 const nlohmann::json& config);

}  // namespace gatescope::core
