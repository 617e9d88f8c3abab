#include "widgets/gui/diverging_strip.h"

#include <algorithm>
#include <cmath>

#include "widgets/gui/imgui_text.h"
#include "widgets/view/color_scale.h"
#include "widgets/view/series_binning.h"

namespace gatescope::widgets {

int64_t DivergingStrip::draw(const std::string& label, const std::vector<float>& values,
                             double begin, double end, ImVec2 origin, ImVec2 size, const char* unit,
                             float labelWidth) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0(origin.x + labelWidth, origin.y), p1(origin.x + size.x, origin.y + size.y);
    dl->AddRectFilled(p0, p1, IM_COL32(24, 24, 28, 255));
    if (&values != m_series || values.size() != m_seriesSize) {
        const auto [lo, hi] = finiteRange(values.data(), static_cast<int64_t>(values.size()));
        m_range = std::max({std::abs(double(lo)), std::abs(double(hi)), 1e-9});
        m_series = &values, m_seriesSize = values.size();
    }
    ColorSettings colors;
    colors.colormap = ColormapKind::Diverging;
    const ValueRange range{-m_range, m_range};
    const int columns = std::max(1, static_cast<int>(p1.x - p0.x));
    const auto bins =
        binSeries(values.data(), static_cast<int64_t>(values.size()), begin, end, columns);
    for (int x = 0; x < columns; ++x) {
        const Bin& b = bins[static_cast<size_t>(x)];
        if (b.empty) continue;
        dl->AddRectFilled(ImVec2(p0.x + x, p0.y), ImVec2(p0.x + x + 1, p1.y),
                          colorOf(b.mean, colors, range));
    }
    dl->AddRect(p0, p1, IM_COL32(90, 90, 90, 255));
    const ImVec2 text = labelWidth > 0 ? ImVec2(origin.x, origin.y + size.y / 2 - 7)
                                       : ImVec2(origin.x + 3, origin.y + 1);
    if (labelWidth == 0)
        dl->AddRectFilled(text,
                          ImVec2(text.x + ImGui::CalcTextSize(label.c_str()).x + 4, text.y + 15),
                          IM_COL32(20, 20, 24, 200));
    dl->AddText(text, IM_COL32(220, 220, 220, 255), label.c_str());
    if (!ImGui::IsMouseHoveringRect(p0, p1)) return -1;
    const float mx = ImGui::GetIO().MousePos.x - p0.x;
    const int64_t pos = static_cast<int64_t>(begin + (end - begin) * mx / (p1.x - p0.x));
    const Bin& b = bins[static_cast<size_t>(std::clamp(int(mx), 0, columns - 1))];
    if (pos >= 0 && pos < static_cast<int64_t>(values.size()) && !b.empty)
        wrappedTooltipf("position %lld: %.4g %s\nthis pixel: mean %.4g, min %.4g, max %.4g",
                        static_cast<long long>(pos), values[static_cast<size_t>(pos)], unit, b.mean,
                        b.min, b.max);
    return ImGui::IsMouseClicked(ImGuiMouseButton_Left) ? pos : -1;
}

}  // namespace gatescope::widgets
