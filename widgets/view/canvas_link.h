// CanvasLink: what compare mode's canvases share beyond the shared viewport. (1) One colour
// range for A and B: each canvas reports the values it sees, the link resolves one range from
// all of them (as the CLI's compare figure does), so equal colours are equal values. (2) The
// pointed cell: the canvas under the mouse sets it, the others show their read-out at that cell.
// Display-free; GUI thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "widgets/view/color_scale.h"

namespace gatescope::widgets {

/// The finite values a canvas sees: min, max and smallest positive (none when `any` is false).
struct SeenValues {
    bool any = false;
    double lo = 0, hi = 0, minPositive = 0;
};

/// Whether the automatic range moved enough to recolour every texture (5% of its span); small
/// moves are ignored so that panning does not flicker.
bool rangeMoved(const ValueRange& from, const ValueRange& to);

/// The range of all `seen` under `colors` (resolveRange of their union); `current` when none has
/// values and the range is automatic.
ValueRange unionRange(const std::vector<SeenValues>& seen, const ColorSettings& colors,
                      const ValueRange& current);

class CanvasLink {
public:
    /// `linkPointer` false: members never share the pointed cell (another tokenization: the
    /// same cell is not the same pair of tokens).
    explicit CanvasLink(bool linkPointer = true) : m_linkPointer(linkPointer) {}
    /// A new member; returns its slot. A member that never calls update() has no say in the
    /// range (the difference canvas shares the pointer only).
    int join();
    /// Member `slot` now sees `values`; the shared range follows (with rangeMoved's hysteresis,
    /// or at once when the colour settings changed). Returns the range in force.
    ValueRange update(int slot, const SeenValues& values, const ColorSettings& colors);
    ValueRange range() const { return m_range; }
    /// Bumped whenever the range in force changes (members recolour and repaint).
    uint64_t serial() const { return m_serial; }

    /// The cell (query, key) under the mouse on member `slot`'s canvas, or none.
    struct Pointer {
        int slot = -1;
        int64_t query = 0, key = 0;
        bool operator==(const Pointer&) const = default;
    };
    void setPointer(std::optional<Pointer> pointer);
    /// Clears the pointer only if member `slot` set it (the mouse left that canvas).
    void clearPointer(int slot);
    const std::optional<Pointer>& pointer() const { return m_pointer; }
    uint64_t pointerSerial() const { return m_pointerSerial; }

private:
    bool m_linkPointer = true;
    std::vector<SeenValues> m_seen;
    std::optional<ColorSettings> m_colors;
    ValueRange m_range;
    uint64_t m_serial = 0;
    std::optional<Pointer> m_pointer;
    uint64_t m_pointerSerial = 0;
};

}  // namespace gatescope::widgets
