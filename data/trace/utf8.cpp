#include "data/trace/utf8.h"

namespace gatescope::data {
namespace {

// Length of the valid sequence starting at `i`, or 0 when it is invalid (RFC 3629: no overlongs,
// no surrogates, nothing above U+10FFFF) or a NUL byte.
size_t validSequence(std::string_view s, size_t i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = byte(i);
    if (c == 0) return 0;
    if (c < 0x80) return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (i + need >= s.size()) return 0;  // truncated at the end
    for (size_t k = 1; k <= need; ++k) {
        unsigned char b = byte(i + k);
        unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xbf;
        if (b < min || b > max) return 0;
    }
    return need + 1;
}

}  // namespace

size_t firstInvalidUtf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        size_t length = validSequence(text, i);
        if (length == 0) return i;
        i += length;
    }
    return std::string_view::npos;
}

std::string sanitizeUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        size_t length = validSequence(text, i);
        if (length == 0) {
            out += "\xef\xbf\xbd";
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

}  // namespace gatescope::data
