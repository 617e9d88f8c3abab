// DivergingStrip: a per-position series around zero drawn as a strip on the diverging colormap
// (blue below 0, red above, symmetric range fixed per series so panning does not recolour), one
// bin of positions per pixel column (the mean; the extreme of the bin on hover), for compare
// mode's loss delta and retention difference. ImGui draw lists; GUI thread only.
#pragma once

#include <string>
#include <vector>

#include <imgui.h>

namespace gatescope::widgets {

class DivergingStrip {
public:
    /// Draws `values` (NaN: no value) over positions [begin, end) into [origin, origin + size)
    /// with `label` in the first `labelWidth` pixels (0: over the strip's top-left corner, so
    /// that the strip shares a canvas's x-axis). `unit` names the value in the hover tooltip.
    /// Returns the position under the mouse when the strip was clicked, else -1.
    int64_t draw(const std::string& label, const std::vector<float>& values, double begin,
                 double end, ImVec2 origin, ImVec2 size, const char* unit, float labelWidth = 160);
    /// The symmetric range in force (max |value| of the series).
    double range() const { return m_range; }

private:
    const std::vector<float>* m_series = nullptr;  // the series m_range belongs to
    size_t m_seriesSize = 0;
    double m_range = 1;
};

}  // namespace gatescope::widgets
