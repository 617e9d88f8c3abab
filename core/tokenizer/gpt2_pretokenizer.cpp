#include "core/tokenizer/gpt2_pretokenizer.h"

#if GATESCOPE_HAS_ICU
#include <unicode/uchar.h>
#else
#include <locale.h>
#include <wctype.h>
#endif

#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

struct Char {
    std::size_t start;  // byte offset
    CharClass cls;
    char32_t cp;
};

std::vector<Char> decodeChars(std::string_view text) {
    std::vector<Char> chars;
    chars.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        char32_t cp = 0;
        std::size_t length = data::utf8SequenceAt(text, pos, cp);
        CharClass cls = CharClass::Other;
        if (length == 0) {
            length = 1;
            cp = 0xFFFD;
        } else {
            cls = classifyCodePoint(cp);
        }
        chars.push_back({pos, cls, cp});
        pos += length;
    }
    return chars;
}

// The contractions 's 't 're 've 'm 'll 'd (lower case only, as in GPT-2's pattern): the number
// of characters matched at chars[i] (an apostrophe), or 0.
std::size_t contractionLength(const std::vector<Char>& chars, std::size_t i) {
    const std::size_t n = chars.size();
    auto at = [&](std::size_t k) -> char32_t { return i + k < n ? chars[i + k].cp : 0; };
    const char32_t a = at(1);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' || a == 'v') && at(2) == 'e') return 3;
    if (a == 'l' && at(2) == 'l') return 3;
    return 0;
}

// End (char index) of the run of characters of class `cls` starting at `i`.
std::size_t runEnd(const std::vector<Char>& chars, std::size_t i, CharClass cls) {
    while (i < chars.size() && chars[i].cls == cls)
        ++i;
    return i;
}

}  // namespace

bool unicodeClassesFromIcu() {
#if GATESCOPE_HAS_ICU
    return true;
#else
    return false;
#endif
}

CharClass classifyCodePoint(char32_t cp) {
    if (cp < 0x80) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return CharClass::Letter;
        if (cp >= '0' && cp <= '9') return CharClass::Number;
        if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return CharClass::Space;
        return CharClass::Other;
    }
#if GATESCOPE_HAS_ICU
    const auto c = static_cast<UChar32>(cp);
    if (u_isUWhiteSpace(c)) return CharClass::Space;
    const uint32_t mask = U_GET_GC_MASK(c);
    if (mask & U_GC_L_MASK) return CharClass::Letter;
    if (mask & U_GC_N_MASK) return CharClass::Number;
    return CharClass::Other;
#else
    // Builds without ICU (the GPU machine has none) use glibc's Unicode tables: the same classes
    // for letters and white space; glibc files non-ASCII digits under alpha, so they are letters.
    static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
    const auto c = static_cast<wint_t>(cp);
    if (utf8 && iswspace_l(c, utf8)) return CharClass::Space;
    if (utf8 && iswalpha_l(c, utf8)) return CharClass::Letter;
    if (utf8 && iswalnum_l(c, utf8)) return CharClass::Number;
    return CharClass::Other;
#endif
}

std::vector<ByteSpan> gpt2PreTokenize(std::string_view text) {
    const std::vector<Char> chars = decodeChars(text);
    const std::size_t n = chars.size();
    auto byteAt = [&](std::size_t i) { return i < n ? chars[i].start : text.size(); };
    std::vector<ByteSpan> pieces;
    std::size_t i = 0;
    while (i < n) {
        std::size_t end = 0;  // char index where the piece ends
        const Char& c = chars[i];
        const bool spaceThenWord = c.cp == ' ' && i + 1 < n && chars[i + 1].cls != CharClass::Space;
        if (c.cp == '\'' && contractionLength(chars, i) > 0) {
            end = i + contractionLength(chars, i);
        } else if (spaceThenWord) {
            // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": the space joins the run after it.
            end = runEnd(chars, i + 1, chars[i + 1].cls);
        } else if (c.cls != CharClass::Space) {
            end = runEnd(chars, i, c.cls);
        } else {
            // "\s+(?!\S)" backtracks to leave the last white-space character to the word after the
            // run; a run of one before a non-space falls through to "\s+" and is taken whole.
            const std::size_t runStop = runEnd(chars, i, CharClass::Space);
            end = (runStop == n || runStop - i == 1) ? runStop : runStop - 1;
        }
        pieces.push_back({byteAt(i), byteAt(end)});
        i = end;
    }
    return pieces;
}

}  // namespace gatescope::core
