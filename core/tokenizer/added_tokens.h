// Hugging Face added tokens (tokenizer.json "added_tokens": <s>, </s>, [INST], ...): matched in the
// text and split out of it before the rest of the pipeline runs, as the tokenizers library's
// AddedVocabulary does. Internal to core/tokenizer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gatescope::core {

/// One entry of "added_tokens".
struct AddedToken {
    std::string content;
    int32_t id = -1;
    bool singleWord = false;  ///< only where no word character is on either side
    bool lstrip = false;      ///< absorbs the white space on its left
    bool rstrip = false;      ///< absorbs the white space on its right
    bool normalized = false;  ///< matched in the normalized text (else in the raw text)
    bool special = false;
};

/// A piece of a text: an added token (tokenIndex >= 0, into the matcher's list) or text to
/// tokenize (tokenIndex == -1). Byte offsets into the text given to split().
struct TextPiece {
    std::size_t start = 0;
    std::size_t end = 0;
    int tokenIndex = -1;
};

/// Finds added tokens leftmost-longest (Aho-Corasick LeftmostLongest in the tokenizers library):
/// at the leftmost position where some token starts, the longest one; then on after it. A
/// single-word token with a word character (letter, number or '_') beside it is not a match
/// (and the search goes on after it, as there); lstrip / rstrip widen a match over Unicode white
/// space on that side (never into the previous match). Immutable; thread-safe.
class AddedTokenMatcher {
public:
    AddedTokenMatcher() = default;
    /// `patterns[i]` is the text to find for `tokens[i]` (its content, or its normalized form).
    AddedTokenMatcher(std::vector<AddedToken> tokens, std::vector<std::string> patterns);

    bool empty() const { return m_tokens.empty(); }
    const AddedToken& token(int index) const { return m_tokens[index]; }

    /// Pieces that tile `text` in order; empty text pieces are left out.
    std::vector<TextPiece> split(std::string_view text) const;

private:
    // The longest pattern starting at text[pos], or -1.
    int longestAt(std::string_view text, std::size_t pos) const;

    std::vector<AddedToken> m_tokens;
    std::vector<std::string> m_patterns;
    // Per first byte: indices of the patterns starting with it, longest first.
    std::vector<std::vector<int>> m_byFirstByte;
};

}  // namespace gatescope::core
