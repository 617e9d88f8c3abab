// GPT-2's byte-to-unicode table: every byte maps to one printable code point, so byte-level BPE
// vocabularies are plain strings ("Ġ" is the space byte 0x20, "Ċ" the newline 0x0A).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gatescope::core {

/// UTF-8 of the code point standing for each byte. Built once; thread-safe.
const std::array<std::string, 256>& byteLevelAlphabet();

/// Appends the byte-level spelling of `bytes` (each byte -> its code point's UTF-8).
void appendByteLevel(std::string& out, std::string_view bytes);

/// Maps a byte-level token string back to raw bytes, appended to `out`. False (and `out` partly
/// written) when `token` holds a character outside the table, e.g. an added special token.
bool decodeByteLevel(std::string_view token, std::string& out);

}  // namespace gatescope::core
