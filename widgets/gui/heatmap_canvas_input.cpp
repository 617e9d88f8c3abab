// HeatmapCanvasPanel's input: mouse (wheel zoom, drag pan, double-click, click for the cursor,
// the right-click menu) and keys (widgets/view/map_keys.h). Split from heatmap_canvas_panel.cpp.
#include <cmath>
#include <optional>

#include <Qt>

#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/view/map_keys.h"

namespace gatescope::widgets {

bool HeatmapCanvasPanel::keyPressed(int qtKey, bool shift) {
    std::optional<MapKey> key;
    switch (qtKey) {
        case Qt::Key_Left:
            key = MapKey::Left;
            break;
        case Qt::Key_Right:
            key = MapKey::Right;
            break;
        case Qt::Key_Up:
            key = MapKey::Up;
            break;
        case Qt::Key_Down:
            key = MapKey::Down;
            break;
        case Qt::Key_PageUp:
            key = MapKey::PageUp;
            break;
        case Qt::Key_PageDown:
            key = MapKey::PageDown;
            break;
        case Qt::Key_Home:
            key = MapKey::Home;
            break;
        case Qt::Key_End:
            key = MapKey::End;
            break;
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            key = MapKey::ZoomIn;
            break;
        case Qt::Key_Minus:
        case Qt::Key_Underscore:
            key = MapKey::ZoomOut;
            break;
        default:
            return false;
    }
    if (!m_initialized) return false;
    m_userMoved = true;
    m_fitRect.reset();
    ViewContext& ctx = m_session.context();
    const int64_t next = applyMapKey(*m_view, ctx.cursor(), *key, shift);
    if (next != ctx.cursor()) ctx.setCursor(next);
    return true;
}

void HeatmapCanvasPanel::handleInput(ImVec2 size) {
    const ImGuiIO& io = ImGui::GetIO();
    const float mx = io.MousePos.x - m_origin.x, my = io.MousePos.y - m_origin.y;
    if (ImGui::IsItemActive() || (ImGui::IsItemHovered() && io.MouseWheel != 0)) {
        m_userMoved = true;
        m_fitRect.reset();
    }
    if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
        m_view->zoomAt(mx, my, std::pow(1.25, static_cast<double>(io.MouseWheel)));
    }
    // A press on the minimap (as drawn last frame) steers the view: the view centres on the map
    // point under the pointer until the button is released; no pan, no cursor move.
    const float side = kMinimapSide;
    const ImVec2 onMinimap(io.MousePos.x - m_minimapOrigin.x, io.MousePos.y - m_minimapOrigin.y);
    if (ImGui::IsItemActivated() && ImGui::IsMouseDown(ImGuiMouseButton_Left) && m_minimap &&
        onMinimap.x >= 0 && onMinimap.y >= 0 && onMinimap.x < side && onMinimap.y < side)
        m_minimapDrag = true;
    const bool steering = m_minimapDrag;
    if (steering && ImGui::IsItemActive()) {
        const MapPoint p = minimapPoint(onMinimap.x, onMinimap.y, m_session.document().n(), side);
        m_view->centerOn(p.key, p.query);
    }
    if (!ImGui::IsItemActive()) m_minimapDrag = false;
    if (!steering && ImGui::IsItemActive() && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0) &&
        ImGui::IsMouseDragging(ImGuiMouseButton_Left, 1.f)) {
        m_view->panPixels(io.MouseDelta.x, io.MouseDelta.y);
    }
    if (!steering && ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        m_view->zoomAt(mx, my, 2.0);
    }
    const ImVec2 drag = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 3.f);  // 0: a click
    if (!steering && ImGui::IsItemDeactivated() && drag.x == 0 && drag.y == 0) {
        if (auto cell = m_view->cellAt(mx, my)) m_session.context().setCursor(cell->query);
    }
    // Right-click: a small menu (the whole map; export this view through File > Export's dialog).
    if (ImGui::IsItemHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right))
        ImGui::OpenPopup("##canvas_menu");
    if (ImGui::BeginPopup("##canvas_menu")) {
        if (ImGui::MenuItem("Show Whole Map")) m_view->fitAll();
        if (ImGui::MenuItem("Export Figure...", nullptr, false, static_cast<bool>(m_onExport)))
            m_onExport();
        if (ImGui::MenuItem("What if... (this head)", nullptr, false,
                            static_cast<bool>(m_onWhatIf)))
            m_onWhatIf();
        ImGui::EndPopup();
    }
    (void)size;
}

}  // namespace gatescope::widgets
