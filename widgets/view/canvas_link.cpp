#include "widgets/view/canvas_link.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

bool rangeMoved(const ValueRange& from, const ValueRange& to) {
    const double span = std::max(1e-12, from.hi - from.lo);
    return std::abs(to.lo - from.lo) > 0.05 * span || std::abs(to.hi - from.hi) > 0.05 * span;
}

ValueRange unionRange(const std::vector<SeenValues>& seen, const ColorSettings& colors,
                      const ValueRange& current) {
    SeenValues all;
    for (const SeenValues& s : seen) {
        if (!s.any) continue;
        all.lo = all.any ? std::min(all.lo, s.lo) : s.lo;
        all.hi = all.any ? std::max(all.hi, s.hi) : s.hi;
        if (s.minPositive > 0)
            all.minPositive =
                all.minPositive > 0 ? std::min(all.minPositive, s.minPositive) : s.minPositive;
        all.any = true;
    }
    if (!all.any && colors.autoRange) return current;
    return resolveRange(colors, all.lo, all.hi, all.minPositive);
}

int CanvasLink::join() {
    m_seen.emplace_back();
    return static_cast<int>(m_seen.size()) - 1;
}

ValueRange CanvasLink::update(int slot, const SeenValues& values, const ColorSettings& colors) {
    if (slot < 0 || slot >= static_cast<int>(m_seen.size())) return m_range;
    m_seen[static_cast<size_t>(slot)] = values;
    const ValueRange next = unionRange(m_seen, colors, m_range);
    const bool colorsChanged = !m_colors || !(*m_colors == colors);
    if (colorsChanged || rangeMoved(m_range, next)) {
        m_colors = colors;
        if (next.lo != m_range.lo || next.hi != m_range.hi || colorsChanged) ++m_serial;
        m_range = next;
    }
    return m_range;
}

void CanvasLink::setPointer(std::optional<Pointer> pointer) {
    if (!m_linkPointer || pointer == m_pointer) return;
    m_pointer = pointer;
    ++m_pointerSerial;
}

void CanvasLink::clearPointer(int slot) {
    if (m_pointer && m_pointer->slot == slot) setPointer(std::nullopt);
}

}  // namespace gatescope::widgets
