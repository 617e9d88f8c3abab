// GPT-2's pre-tokenization: the text is cut into pieces before BPE, exactly as the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// splits it (first alternative that matches wins; quantifiers greedy with backtracking).
#pragma once

#include <string_view>
#include <vector>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// Character classes of the regex. Letter = general category L*, Number = N*, Space = the Unicode
/// White_Space property (what \s means for the Rust regex of Hugging Face tokenizers and tiktoken),
/// Other = everything else. Unicode data comes from ICU.
enum class CharClass { Letter, Number, Space, Other };
CharClass classifyCodePoint(char32_t cp);
/// Whether classifyCodePoint reads ICU's Unicode tables; without ICU (the GPU machine) glibc's
/// wide-character classes stand in, which count non-ASCII digits (Nd) as letters.
bool unicodeClassesFromIcu();

/// The pieces of `text`, as byte spans that tile it exactly (in order, no gaps). `text` should be
/// valid UTF-8; a byte that does not start a valid sequence is taken as one Other character.
/// Linear time. Pure function; thread-safe.
std::vector<ByteSpan> gpt2PreTokenize(std::string_view text);

}  // namespace gatescope::core
