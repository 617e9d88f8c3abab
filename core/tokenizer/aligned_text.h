// A text rewritten by a tokenizer's normalizer (Hugging Face's NormalizedString, reduced to what
// SentencePiece-style tokenizers do: insert and replace), which remembers for every byte the bytes
// of the original text it came from. Internal to core/tokenizer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tokenizer/tokenizer.h"

namespace gatescope::core {

/// Plain value; its functions are pure (thread-safe on distinct objects).
class AlignedText {
public:
    /// `original` unchanged; its byte i maps to original byte `base` + i.
    AlignedText(std::string_view original, std::size_t base);

    const std::string& text() const { return m_text; }
    bool empty() const { return m_text.empty(); }
    std::size_t size() const { return m_text.size(); }

    /// Inserts `prefix` before the text (Hugging Face's Prepend normalizer and Metaspace's
    /// prefix). The inserted bytes come from no original byte (an empty span where the text
    /// starts). Nothing is inserted into an empty text.
    void prepend(std::string_view prefix);
    /// Replaces every occurrence of `pattern` (left to right, not overlapping) by `with`; the new
    /// bytes come from the original bytes of the occurrence (Replace normalizer, Metaspace).
    void replaceAll(std::string_view pattern, std::string_view with);
    /// Bytes [start, end) as their own AlignedText (same original offsets).
    AlignedText slice(std::size_t start, std::size_t end) const;

    /// The original bytes that bytes [start, end) of text() come from; an empty span (at the
    /// position where they were inserted) for inserted bytes only.
    ByteSpan origin(std::size_t start, std::size_t end) const;
    /// The original offset where byte `pos` comes from (its span's start).
    std::size_t originStart(std::size_t pos) const { return m_from[pos]; }

private:
    AlignedText() = default;
    std::string m_text;
    // Per byte of m_text: the original span [m_from, m_to); m_from == m_to for inserted bytes.
    // 32-bit: the caller refuses texts of 4 GiB or more.
    std::vector<uint32_t> m_from;
    std::vector<uint32_t> m_to;
};

}  // namespace gatescope::core
