// Finding the tokenizer of a checkpoint folder.
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// Loads the tokenizer that goes with a checkpoint folder as it was downloaded, in this order:
///  1. config["gatescope_tokenizer"]: "byte" (ByteTokenizer, no BOS) or {"kind": "byte",
///     "bos_id": N} (BOS N >= 256 prepended), for gatescope's own byte-level models;
///  2. `dir`/tokenizer.json when it is a kind gatescope reads: GPT-2 byte-level BPE
///     (Gpt2BpeTokenizer, or JsonGpt2Tokenizer for tokenizer_class "JSONGPT2Tokenizer"), or
///     SentencePiece-style BPE of the Llama / Mistral family (HfBpeTokenizer);
///  3. `dir`/tokenizer.model, a SentencePiece model (SentencePieceTokenizer);
///  4. `dir`/vocab.json + `dir`/merges.txt (GPT-2 BPE).
/// tokenizer_config.json (and special_tokens_map.json) are honoured: add_bos_token,
/// add_eos_token, add_prefix_space, bos_token / eos_token and the special tokens. The chosen
/// tokenizer's identity() names its kind and files (and, under "selection", a tokenizer.json it
/// passed over). Errors name the file at fault: a tokenizer.json (or tokenizer.model) of a kind
/// gatescope does not read, with nothing readable after it, is Unsupported naming the file and
/// the kind (e.g. "holds a WordPiece model"); nothing there at all is Missing (file = `dir`).
/// `config` is the checkpoint's parsed config.json (may be an empty object). The caller owns the
/// result; it only reads files, so concurrent calls are safe.
Result<std::unique_ptr<Tokenizer>> loadTokenizer(const std::filesystem::path& dir,
                                                 const nlohmann::json& config);

}  // namespace gatescope::core
