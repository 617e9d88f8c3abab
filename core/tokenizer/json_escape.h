// The LongCrawl64 text convention of FoX: text is JSON-escaped as Python's
// json.dumps(text)[1:-1] (ensure_ascii=True) before BPE, and json.loads('"' + text + '"') after.
// Both directions keep a map from rewritten bytes to the characters they came from. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/tokenizer.h"
#include "data/common/result.h"

namespace gatescope::core {

/// Maps byte ranges of a JSON-escaped text to byte ranges of its plain counterpart (the text it was
/// escaped from, or the text it unescapes to). The escaped text is cut into units (one escape
/// sequence, or one character): every escaped byte of unit u has unitOfByte == u, and the unit
/// stands for plain bytes [unitStart[u], unitStart[u + 1]).
struct RewriteMap {
    std::vector<uint32_t> unitOfByte;
    std::vector<std::size_t> unitStart;  ///< one entry per unit plus the end of the plain text

    /// The plain bytes of escaped bytes [span.start, span.end): a range that covers part of a unit
    /// is widened to the whole unit. An empty span maps to an empty span at its unit's start.
    ByteSpan toPlain(ByteSpan span) const;
};

/// A text and the map from the escaped side to the plain side.
struct RewrittenText {
    std::string text;
    RewriteMap map;
};

/// json.dumps(text, ensure_ascii=True)[1:-1]: \" \\ \b \f \n \r \t, other controls and DEL as
/// \u00XX, every non-ASCII character as \uXXXX (lower-case hex; astral characters as a surrogate
/// pair). `map` goes from the escaped output back to the characters of `text`. Error (Format) if
/// `text` is not valid UTF-8 or is 4 GiB or longer.
Result<RewrittenText> jsonEscapeAscii(std::string_view text);

/// json.loads('"' + escaped + '"'), made total: where Python would raise (a bad or cut-off escape,
/// a raw quote or control character) the offending bytes are kept literally instead; a lone
/// surrogate becomes U+FFFD. `map` goes from bytes of `escaped` to the unescaped output.
RewrittenText jsonUnescape(std::string_view escaped);

}  // namespace gatescope::core
