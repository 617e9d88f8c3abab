#include "core/tokenizer/byte_level.h"

#include <vector>

#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

struct Tables {
    std::array<std::string, 256> alphabet;
    std::array<int, 324> byteOfCodePoint;  // code points used are all below 256 + 68
};

// bytes_to_unicode() of GPT-2's encoder.py: printable Latin-1 bytes keep their code point, the
// other 68 bytes take 256, 257, ... in byte order.
Tables buildTables() {
    Tables t;
    t.byteOfCodePoint.fill(-1);
    auto keeps = [](int b) {
        return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    int next = 256;
    for (int b = 0; b < 256; ++b) {
        const int cp = keeps(b) ? b : next++;
        data::appendUtf8(t.alphabet[b], static_cast<char32_t>(cp));
        t.byteOfCodePoint[cp] = b;
    }
    return t;
}

const Tables& tables() {
    static const Tables kTables = buildTables();
    return kTables;
}

}  // namespace

const std::array<std::string, 256>& byteLevelAlphabet() {
    return tables().alphabet;
}

void appendByteLevel(std::string& out, std::string_view bytes) {
    const auto& alphabet = tables().alphabet;
    for (char c : bytes)
        out += alphabet[static_cast<uint8_t>(c)];
}

bool decodeByteLevel(std::string_view token, std::string& out) {
    const auto& byteOf = tables().byteOfCodePoint;
    std::size_t pos = 0;
    char32_t cp = 0;
    while (pos < token.size()) {
        const std::size_t length = data::utf8SequenceAt(token, pos, cp);
        if (length == 0 || cp >= byteOf.size() || byteOf[cp] < 0) return false;
        out += static_cast<char>(byteOf[cp]);
        pos += length;
    }
    return true;
}

}  // namespace gatescope::core
