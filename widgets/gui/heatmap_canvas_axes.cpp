// HeatmapCanvasPanel's axes: token labels on both axes once a cell is taller than a text line,
// position ticks above that (round positions, widgets/view/axis_ticks.h), and the legend that
// says which axis is which. Split from heatmap_canvas_overlays.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/view/axis_ticks.h"

namespace gatescope::widgets {

namespace {
constexpr ImU32 kTick = IM_COL32(200, 200, 200, 200);
/// Ticks at least this far apart (pixels), so their numbers never overlap.
constexpr double kTickSpacing = 90;
}  // namespace

void HeatmapCanvasPanel::drawLabels(ImDrawList* dl) {
    const double px = 1.0 / m_view->tokensPerPixel();  // pixels per token
    const float lineH = ImGui::GetTextLineHeight();
    if (px < lineH) {  // not legible: one label per row would overlap; position ticks instead
        drawTicks(dl);
        return;
    }
    const auto& text = m_session.document().tokens.text;
    const TokenRect r = m_view->visible();
    const int64_t q0 = static_cast<int64_t>(r.y0), q1 = static_cast<int64_t>(std::ceil(r.y1));
    const int64_t k0 = static_cast<int64_t>(r.x0), k1 = static_cast<int64_t>(std::ceil(r.x1));
    const float charW = ImGui::CalcTextSize("M").x;
    // Query labels down the left edge.
    for (int64_t q = q0; q < q1; ++q) {
        const std::string s =
            std::to_string(q) + " " + displayToken(text[static_cast<size_t>(q)], 14);
        const ImVec2 sz = ImGui::CalcTextSize(s.c_str());
        const float y = m_origin.y + float(m_view->screenY(q + 0.5)) - sz.y / 2;
        dl->AddRectFilled(ImVec2(m_origin.x, y), ImVec2(m_origin.x + sz.x + 6, y + sz.y),
                          kLabelBack);
        dl->AddText(ImVec2(m_origin.x + 3, y), kLabel, s.c_str());
    }
    // Key labels along the top, cut to the cell's width.
    const size_t chars = static_cast<size_t>(std::max(0.0, (px - 4) / charW));
    if (chars < 1) return;
    for (int64_t k = k0; k < k1; ++k) {
        const std::string s = displayToken(text[static_cast<size_t>(k)], chars);
        const float x = m_origin.x + float(m_view->screenX(k)) + 2;
        dl->AddRectFilled(ImVec2(x - 2, m_origin.y), ImVec2(x + float(px) - 2, m_origin.y + lineH),
                          kLabelBack);
        dl->AddText(ImVec2(x, m_origin.y), kLabel, s.c_str());
    }
}

void HeatmapCanvasPanel::drawTicks(ImDrawList* dl) {
    const TokenRect r = m_view->visible();
    const int64_t n = m_session.document().n();
    const double tpp = m_view->tokensPerPixel();
    const float lineH = ImGui::GetTextLineHeight();
    const float right = m_origin.x + m_size.x, bottom = m_origin.y + m_size.y;
    m_axisLabels.clear();
    // Key positions along the top edge.
    for (const AxisTick& t : axisTicks(r.x0, r.x1, n, tpp, kTickSpacing)) {
        const float x = m_origin.x + float(m_view->screenX(double(t.position)));
        const ImVec2 sz = ImGui::CalcTextSize(t.text.c_str());
        const float tx = std::clamp(x + 2, m_origin.x, right - sz.x);
        dl->AddLine(ImVec2(x, m_origin.y), ImVec2(x, m_origin.y + 5), kTick);
        dl->AddRectFilled(ImVec2(tx - 1, m_origin.y), ImVec2(tx + sz.x + 1, m_origin.y + lineH),
                          kLabelBack);
        dl->AddText(ImVec2(tx, m_origin.y), kLabel, t.text.c_str());
        m_axisLabels.push_back({"key " + t.text, tx, m_origin.y, tx + sz.x, m_origin.y + sz.y});
    }
    // Query positions down the left edge (below the key numbers).
    for (const AxisTick& t : axisTicks(r.y0, r.y1, n, tpp, kTickSpacing)) {
        const float y = m_origin.y + float(m_view->screenY(double(t.position)));
        if (y < m_origin.y + lineH + 2 || y > bottom - lineH) continue;
        const ImVec2 sz = ImGui::CalcTextSize(t.text.c_str());
        dl->AddLine(ImVec2(m_origin.x, y), ImVec2(m_origin.x + 5, y), kTick);
        dl->AddRectFilled(ImVec2(m_origin.x + 6, y - sz.y / 2),
                          ImVec2(m_origin.x + 8 + sz.x, y + sz.y / 2), kLabelBack);
        dl->AddText(ImVec2(m_origin.x + 7, y - sz.y / 2), kLabel, t.text.c_str());
        m_axisLabels.push_back(
            {"query " + t.text, m_origin.x + 7, y - sz.y / 2, m_origin.x + 7 + sz.x, y + sz.y / 2});
    }
}

void HeatmapCanvasPanel::drawLegend(ImDrawList* dl) {
    // Which axis is which, in the top-right corner: the masked future (key > query) lies there
    // whenever the diagonal is on screen, so the legend hides no weight.
    const char* lines =
        "columns: key j (the token read)\nrows: query i (the token reading)\n"
        "blank: j > i, the future";
    const ImVec2 sz = ImGui::CalcTextSize(lines);
    const float lineH = ImGui::GetTextLineHeight();
    const ImVec2 at(m_origin.x + m_size.x - sz.x - 10, m_origin.y + lineH + 6);
    if (at.x < m_origin.x + 60 || sz.y + 2 * lineH > m_size.y) return;  // no room
    // Only over the masked future or off the map: the box's lower-left corner decides (the
    // masked half lies above and right of the diagonal).
    const double key = m_view->keyAt(at.x - 4 - m_origin.x),
                 query = m_view->queryAt(at.y + sz.y + 3 - m_origin.y);
    const double n = double(m_session.document().n());
    const bool offMap = key >= n || query < 0 || key < 0 || query >= n;
    if (!offMap && std::floor(key) <= std::floor(query)) return;
    dl->AddRectFilled(ImVec2(at.x - 4, at.y - 3), ImVec2(at.x + sz.x + 4, at.y + sz.y + 3),
                      IM_COL32(30, 30, 36, 210), 3);
    dl->AddText(at, IM_COL32(190, 190, 190, 255), lines);
    m_legend = {lines, at.x, at.y, at.x + sz.x, at.y + sz.y};
}

void HeatmapCanvasPanel::drawMinimap(ImDrawList* dl) {
    // Zoomed in, a small whole map in the top-right corner (below the legend) with the region on
    // screen boxed: the past (on and below the diagonal) grey, the future dark. A click or drag
    // on it moves the view there (handleInput).
    m_minimap = minimapBox(m_view->visible(), m_session.document().n(), kMinimapSide);
    if (!m_minimap) return;
    const float side = kMinimapSide;
    const float top =
        m_legend.text.empty() ? m_origin.y + ImGui::GetTextLineHeight() + 6 : m_legend.y1 + 10;
    const ImVec2 p0(m_origin.x + m_size.x - side - 10, top);
    if (p0.x < m_origin.x + 60 || top + side > m_origin.y + m_size.y - 10) {
        m_minimap.reset();  // no room
        return;
    }
    m_minimapOrigin = p0;
    dl->AddRectFilled(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + side + 2, p0.y + side + 2),
                      IM_COL32(30, 30, 36, 220));
    dl->AddTriangleFilled(p0, ImVec2(p0.x, p0.y + side), ImVec2(p0.x + side, p0.y + side),
                          IM_COL32(90, 90, 100, 255));
    const MinimapBox& b = *m_minimap;
    dl->AddRect(ImVec2(p0.x + b.x0, p0.y + b.y0), ImVec2(p0.x + b.x1, p0.y + b.y1),
                IM_COL32(255, 80, 80, 255), 0, 0, 2);
}

}  // namespace gatescope::widgets
