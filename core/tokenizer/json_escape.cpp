#include "core/tokenizer/json_escape.h"

#include <limits>

#include <fmt/format.h>

#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendU16(std::string& out, uint32_t unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(unit >> shift) & 0xF];
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Four hex digits at escaped[pos..pos+4), or -1.
int32_t hex4(std::string_view s, std::size_t pos) {
    if (pos + 4 > s.size()) return -1;
    int32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const int digit = hexValue(s[pos + i]);
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

// "\uD83D\uDE00" at pos: a surrogate pair, or 0 when pos holds no pair.
char32_t surrogatePairAt(std::string_view s, std::size_t pos) {
    if (pos + 12 > s.size() || s[pos] != '\\' || s[pos + 1] != 'u') return 0;
    const int32_t high = hex4(s, pos + 2);
    if (high < 0xD800 || high > 0xDBFF) return 0;
    if (s[pos + 6] != '\\' || s[pos + 7] != 'u') return 0;
    const int32_t low = hex4(s, pos + 8);
    if (low < 0xDC00 || low > 0xDFFF) return 0;
    return 0x10000 + ((static_cast<char32_t>(high) - 0xD800) << 10) +
           (static_cast<char32_t>(low) - 0xDC00);
}

}  // namespace

ByteSpan RewriteMap::toPlain(ByteSpan span) const {
    if (unitOfByte.empty() || span.start >= unitOfByte.size()) {
        const std::size_t end = unitStart.empty() ? 0 : unitStart.back();
        return {end, end};
    }
    const uint32_t first = unitOfByte[span.start];
    if (span.end <= span.start) return {unitStart[first], unitStart[first]};
    const uint32_t last = unitOfByte[std::min(span.end, unitOfByte.size()) - 1];
    return {unitStart[first], unitStart[last + 1]};
}

Result<RewrittenText> jsonEscapeAscii(std::string_view text) {
    if (text.size() >= std::numeric_limits<uint32_t>::max()) {
        return Error{ErrorKind::Unsupported, "text of 4 GiB or more", {}, {}};
    }
    RewrittenText out;
    out.text.reserve(text.size() + text.size() / 8);
    out.map.unitOfByte.reserve(text.size() + text.size() / 8);
    std::size_t pos = 0;
    while (pos < text.size()) {
        char32_t cp = 0;
        const std::size_t length = data::utf8SequenceAt(text, pos, cp);
        if (length == 0) {
            return Error{ErrorKind::Format,
                         fmt::format("text is not valid UTF-8 at byte offset {}", pos),
                         {},
                         {}};
        }
        const std::size_t before = out.text.size();
        switch (cp) {
            case '"':
                out.text += "\\\"";
                break;
            case '\\':
                out.text += "\\\\";
                break;
            case '\b':
                out.text += "\\b";
                break;
            case '\f':
                out.text += "\\f";
                break;
            case '\n':
                out.text += "\\n";
                break;
            case '\r':
                out.text += "\\r";
                break;
            case '\t':
                out.text += "\\t";
                break;
            default:
                if (cp >= 0x20 && cp <= 0x7E) {
                    out.text += static_cast<char>(cp);
                } else if (cp < 0x10000) {
                    appendU16(out.text, cp);
                } else {
                    const char32_t v = cp - 0x10000;
                    appendU16(out.text, 0xD800 + (v >> 10));
                    appendU16(out.text, 0xDC00 + (v & 0x3FF));
                }
        }
        const auto unit = static_cast<uint32_t>(out.map.unitStart.size());
        out.map.unitStart.push_back(pos);
        out.map.unitOfByte.insert(out.map.unitOfByte.end(), out.text.size() - before, unit);
        pos += length;
    }
    out.map.unitStart.push_back(text.size());
    return out;
}

RewrittenText jsonUnescape(std::string_view s) {
    RewrittenText out;
    out.text.reserve(s.size());
    out.map.unitOfByte.reserve(s.size());
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t outBefore = out.text.size();
        std::size_t consumed = 1;
        if (s[pos] != '\\') {
            out.text += s[pos];
        } else if (pos + 1 >= s.size()) {
            out.text += '\\';  // cut-off escape: kept literally
        } else {
            const char e = s[pos + 1];
            consumed = 2;
            switch (e) {
                case '"':
                    out.text += '"';
                    break;
                case '\\':
                    out.text += '\\';
                    break;
                case '/':
                    out.text += '/';
                    break;
                case 'b':
                    out.text += '\b';
                    break;
                case 'f':
                    out.text += '\f';
                    break;
                case 'n':
                    out.text += '\n';
                    break;
                case 'r':
                    out.text += '\r';
                    break;
                case 't':
                    out.text += '\t';
                    break;
                case 'u': {
                    if (const char32_t pair = surrogatePairAt(s, pos)) {
                        data::appendUtf8(out.text, pair);
                        consumed = 12;
                    } else if (const int32_t unit = hex4(s, pos + 2); unit >= 0) {
                        data::appendUtf8(out.text,
                                         static_cast<char32_t>(unit));  // lone surrogate: FFFD
                        consumed = 6;
                    } else {
                        out.text += '\\';  // "\u" without four hex digits: literal backslash
                        consumed = 1;
                    }
                    break;
                }
                default:
                    out.text += '\\';  // unknown escape: literal backslash, next byte its own unit
                    consumed = 1;
            }
        }
        const auto unit = static_cast<uint32_t>(out.map.unitStart.size());
        out.map.unitStart.push_back(outBefore);
        out.map.unitOfByte.insert(out.map.unitOfByte.end(), consumed, unit);
        pos += consumed;
    }
    out.map.unitStart.push_back(out.text.size());
    return out;
}

}  // namespace gatescope::core
