// Strict UTF-8 (as Python decodes it: no overlong forms, no surrogates, nothing above U+10FFFF),
// for tokenizers, inputs and the strings a trace stores (h5py decodes them strictly). Pure
// functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gatescope::data {

/// Byte offset of the first byte that does not start a valid UTF-8 sequence (a truncated sequence
/// at the end reports its first byte); nullopt when `text` is valid.
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

/// Byte offset of the first byte a trace cannot store as text: the first invalid UTF-8 byte (as
/// firstInvalidUtf8) or NUL (HDF5 strings end at NUL); nullopt when `text` is storable.
std::optional<std::size_t> firstUnstorableByte(std::string_view text);

/// `text` with every byte that firstUnstorableByte would report replaced by U+FFFD.
std::string sanitizeUtf8(std::string_view text);

/// Length of the valid UTF-8 sequence starting at `text[pos]`, or 0 when none starts there.
/// On success `codePoint` receives the decoded scalar value.
std::size_t utf8SequenceAt(std::string_view text, std::size_t pos, char32_t& codePoint);

/// Appends the UTF-8 encoding of a scalar value (surrogates and values > U+10FFFF become U+FFFD).
void appendUtf8(std::string& out, char32_t codePoint);

/// `bytes` for display: valid UTF-8 sequences as they are, every other byte as "\xNN" (upper
/// case hex), e.g. a token holding half of "€" shows as "\xE2\x82".
std::string escapeInvalidUtf8(std::string_view bytes);

}  // namespace gatescope::data
