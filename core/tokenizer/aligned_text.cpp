#include "core/tokenizer/aligned_text.h"

#include <algorithm>

namespace gatescope::core {

AlignedText::AlignedText(std::string_view original, std::size_t base) : m_text(original) {
    m_from.resize(original.size());
    m_to.resize(original.size());
    for (std::size_t i = 0; i < original.size(); ++i) {
        m_from[i] = static_cast<uint32_t>(base + i);
        m_to[i] = static_cast<uint32_t>(base + i + 1);
    }
}

void AlignedText::prepend(std::string_view prefix) {
    if (m_text.empty() || prefix.empty()) return;
    const uint32_t at = m_from.front();
    m_text.insert(0, prefix);
    m_from.insert(m_from.begin(), prefix.size(), at);
    m_to.insert(m_to.begin(), prefix.size(), at);
}

void AlignedText::replaceAll(std::string_view pattern, std::string_view with) {
    if (pattern.empty() || m_text.find(pattern) == std::string::npos) return;
    AlignedText out;
    out.m_text.reserve(m_text.size() + m_text.size() / 4);
    out.m_from.reserve(out.m_text.capacity());
    out.m_to.reserve(out.m_text.capacity());
    std::size_t pos = 0;
    while (pos < m_text.size()) {
        const std::size_t hit = m_text.find(pattern, pos);
        const std::size_t copyEnd = hit == std::string::npos ? m_text.size() : hit;
        out.m_text.append(m_text, pos, copyEnd - pos);
        out.m_from.insert(out.m_from.end(), m_from.begin() + pos, m_from.begin() + copyEnd);
        out.m_to.insert(out.m_to.end(), m_to.begin() + pos, m_to.begin() + copyEnd);
        if (hit == std::string::npos) break;
        const uint32_t from = m_from[hit];
        const uint32_t to = m_to[hit + pattern.size() - 1];
        out.m_text.append(with);
        out.m_from.insert(out.m_from.end(), with.size(), from);
        out.m_to.insert(out.m_to.end(), with.size(), std::max(from, to));
        pos = hit + pattern.size();
    }
    *this = std::move(out);
}

AlignedText AlignedText::slice(std::size_t start, std::size_t end) const {
    AlignedText out;
    out.m_text = m_text.substr(start, end - start);
    out.m_from.assign(m_from.begin() + start, m_from.begin() + end);
    out.m_to.assign(m_to.begin() + start, m_to.begin() + end);
    return out;
}

ByteSpan AlignedText::origin(std::size_t start, std::size_t end) const {
    if (start >= end || start >= m_text.size()) {
        const std::size_t at = start < m_from.size() ? m_from[start]
                               : m_to.empty()        ? 0
                                                     : m_to.back();
        return {at, at};
    }
    std::size_t from = m_from[start];
    std::size_t to = m_from[start];
    for (std::size_t i = start; i < end; ++i) {
        if (m_to[i] == m_from[i]) continue;  // inserted
        from = std::min<std::size_t>(from == to ? m_from[i] : from, m_from[i]);
        to = std::max<std::size_t>(to, m_to[i]);
    }
    return {from, std::max(from, to)};
}

}  // namespace gatescope::core
