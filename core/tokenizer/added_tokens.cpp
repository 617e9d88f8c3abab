#include "core/tokenizer/added_tokens.h"

#include <algorithm>

#include "core/tokenizer/gpt2_pretokenizer.h"
#include "data/common/utf8.h"

namespace gatescope::core {
namespace {

// Decodes the character that ends at byte `end` (exclusive); false when none does (start of text
// or an invalid byte).
bool charBefore(std::string_view text, std::size_t end, char32_t& cp, std::size_t& length) {
    for (std::size_t back = 1; back <= 4 && back <= end; ++back) {
        if (data::utf8SequenceAt(text, end - back, cp) == back) {
            length = back;
            return true;
        }
    }
    return false;
}

// \s and \w of the Rust regex crate (Unicode): White_Space; letters, numbers and '_' (the
// crate's \w also counts combining marks and connector punctuation).
bool isSpace(char32_t cp) {
    return classifyCodePoint(cp) == CharClass::Space;
}
bool isWord(char32_t cp) {
    const CharClass cls = classifyCodePoint(cp);
    return cp == '_' || cls == CharClass::Letter || cls == CharClass::Number;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens,
                                     std::vector<std::string> patterns)
    : m_tokens(std::move(tokens)), m_patterns(std::move(patterns)), m_byFirstByte(256) {
    for (std::size_t i = 0; i < m_patterns.size(); ++i) {
        if (m_patterns[i].empty()) continue;
        m_byFirstByte[static_cast<uint8_t>(m_patterns[i][0])].push_back(static_cast<int>(i));
    }
    for (auto& list : m_byFirstByte) {
        std::stable_sort(list.begin(), list.end(),
                         [&](int a, int b) { return m_patterns[a].size() > m_patterns[b].size(); });
    }
}

int AddedTokenMatcher::longestAt(std::string_view text, std::size_t pos) const {
    for (int index : m_byFirstByte[static_cast<uint8_t>(text[pos])]) {
        if (text.compare(pos, m_patterns[index].size(), m_patterns[index]) == 0) return index;
    }
    return -1;
}

std::vector<TextPiece> AddedTokenMatcher::split(std::string_view text) const {
    std::vector<TextPiece> pieces;
    std::size_t taken = 0;  // end of the last piece pushed
    std::size_t pos = 0;
    char32_t cp = 0;
    std::size_t length = 0;
    while (pos < text.size()) {
        const int index = m_tokens.empty() ? -1 : longestAt(text, pos);
        if (index < 0) {
            ++pos;
            continue;
        }
        const AddedToken& token = m_tokens[index];
        std::size_t start = pos;
        std::size_t stop = pos + m_patterns[index].size();
        pos = stop;
        if (token.singleWord) {
            const bool wordBefore = charBefore(text, start, cp, length) && isWord(cp);
            const bool wordAfter =
                stop < text.size() && data::utf8SequenceAt(text, stop, cp) > 0 && isWord(cp);
            if (wordBefore || wordAfter) continue;
        }
        if (token.lstrip) {
            while (start > taken && charBefore(text, start, cp, length) && isSpace(cp) &&
                   start - length >= taken) {
                start -= length;
            }
        }
        if (token.rstrip) {
            while (stop < text.size() && (length = data::utf8SequenceAt(text, stop, cp)) > 0 &&
                   isSpace(cp)) {
                stop += length;
            }
            pos = stop;
        }
        if (taken < start) pieces.push_back({taken, start, -1});
        pieces.push_back({start, stop, index});
        taken = stop;
    }
    if (taken < text.size()) pieces.push_back({taken, text.size(), -1});
    return pieces;
}

}  // namespace gatescope::core
