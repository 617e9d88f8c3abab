// Finding positions in a trace's tokens: by token text, by a string of the source text, or by a
// typed position. Display-free pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/trace/trace_types.h"

namespace gatescope::widgets {

/// Token positions whose text contains `needle` (case-sensitive), ascending; at most `limit`.
std::vector<int64_t> findTokens(const data::TokenTable& tokens, std::string_view needle,
                                size_t limit = 10000);

/// Token positions where `needle` starts in the source text (the token whose byte range holds
/// the match's first byte), ascending. Falls back to the concatenated token texts when the
/// trace has no source text.
std::vector<int64_t> findString(const data::TokenTable& tokens, std::string_view needle,
                                size_t limit = 10000);

/// The first match after `from` (wrapping around), or nothing when `matches` is empty.
std::optional<int64_t> nextMatch(const std::vector<int64_t>& matches, int64_t from);

/// Parses a typed position: "1234", "12,345", or "50%" of n. Nothing when malformed or out of
/// [0, n).
std::optional<int64_t> parsePosition(std::string_view text, int64_t n);

/// What Go to Position says when `text` is not a position of a trace of `n` tokens: the valid
/// range and the accepted forms, e.g. "Not a position: 99999. This trace has positions 0 to
/// 1,417 (type 1234, 1,234 or 50%)."
std::string positionHint(std::string_view text, int64_t n);

}  // namespace gatescope::widgets
