// HeatmapCanvasPanel's overlays: hover read-out, token labels, the linked cursor, the colour bar
// and the status line (split from heatmap_canvas_panel.cpp by feature).
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_text.h"
#include "widgets/view/color_bar.h"

namespace gatescope::widgets {

namespace {
constexpr float kBarWidth = 14, kLabelGap = 3, kBarMargin = 6;
}  // namespace

std::string HeatmapCanvasPanel::valueName() const {
    return m_valuePrefix + toString(m_base.map);
}

void HeatmapCanvasPanel::drawHover(ImDrawList* dl) {
    ViewContext& ctx = m_session.context();
    const ImGuiIO& io = ImGui::GetIO();
    const float mx = io.MousePos.x - m_origin.x, my = io.MousePos.y - m_origin.y;
    const bool inside = mx >= 0 && my >= 0 && mx < m_size.x && my < m_size.y;
    auto cell = inside ? m_view->cellAt(mx, my) : std::nullopt;
    bool linked = false;
    if (m_link) {
        // Compare mode: the canvas under the mouse points at a cell; the others read that cell.
        if (inside && cell && cell->key <= cell->query)
            m_link->setPointer(CanvasLink::Pointer{m_linkSlot, cell->query, cell->key});
        else
            m_link->clearPointer(m_linkSlot);
        const auto& p = m_link->pointer();
        if (!inside && p && p->slot != m_linkSlot) {
            cell = Cell{p->query, p->key};
            linked = true;
        }
    }
    if (!cell || cell->key > cell->query || cell->query >= m_session.document().n()) {
        ctx.setHover(std::nullopt);
        return;
    }
    // The finest drawn tile holding the cell gives the value (exact when it is an exact tile).
    const TileData* best = nullptr;
    for (const TilePtr& t : m_drawn) {
        const int64_t r = cell->query / t->key.cellTokens() - t->key.row * kTile;
        const int64_t c = cell->key / t->key.cellTokens() - t->key.col * kTile;
        if (r < 0 || c < 0 || r >= t->rows || c >= t->cols) continue;
        if (!best || t->key.level < best->key.level || (t->key.exact && !best->key.exact))
            best = t.get();
    }
    if (!best) {
        ctx.setHover(std::nullopt);
        return;
    }
    const int64_t r = cell->query / best->key.cellTokens() - best->key.row * kTile;
    const int64_t c = cell->key / best->key.cellTokens() - best->key.col * kTile;
    HoverInfo info{cell->query, cell->key, best->at(r, c), best->key.exact || best->key.level == 0,
                   best->key.level};
    const double pooled = info.value;
    if (!info.exact && m_levels.canRecompute) {
        // Pooled on screen: the exact value comes from the one exact tile holding the cell,
        // loaded on its own channel (replaced as the mouse moves on).
        const TileKey exactKey{
            m_base.layer, m_base.head,         m_base.map,        data::Pool::Max, 0,
            true,         cell->query / kTile, cell->key / kTile, m_variant};
        if (TilePtr exact = m_session.tiles().find(exactKey)) {
            info.value = exact->at(cell->query % kTile, cell->key % kTile);
            info.exact = true;
        } else if (!(exactKey == m_hoverRequest)) {
            m_session.tiles().request(ViewerSession::kHoverChannel, {exactKey});
            m_hoverRequest = exactKey;
        }
    }
    ctx.setHover(info);

    // Outline the hovered cell (or pooled block).
    const double size = static_cast<double>(best->key.cellTokens());
    const double k0 = std::floor(cell->key / size) * size,
                 q0 = std::floor(cell->query / size) * size;
    dl->AddRect(
        ImVec2(m_origin.x + float(m_view->screenX(k0)), m_origin.y + float(m_view->screenY(q0))),
        ImVec2(m_origin.x + float(m_view->screenX(k0 + size)),
               m_origin.y + float(m_view->screenY(q0 + size))),
        IM_COL32(255, 255, 255, 220));
    const auto& text = m_session.document().tokens.text;
    const std::string block = fmt::format(
        "{} of a {}x{} block (level {})", m_base.pool == data::Pool::Max ? "max" : "mean",
        best->key.cellTokens(), best->key.cellTokens(), best->key.level);
    const std::string what = best->key.exact || best->key.level == 0
                                 ? "exact"
                                 : (info.exact ? fmt::format("exact; {} = {:.6g}", block, pooled)
                                               : block + ", exact value loading");
    const std::string readout = fmt::format(
        "query {} '{}'\nkey   {} '{}'\n{} = {:.6g}  ({})", cell->query,
        displayToken(text[static_cast<size_t>(cell->query)]), cell->key,
        displayToken(text[static_cast<size_t>(cell->key)]), valueName(), info.value, what);
    if (!linked) {
        wrappedTooltip(readout);
        return;
    }
    // The cell another canvas points at: the same read-out, in a box beside the cell that stays
    // inside this canvas.
    const ImVec2 sz = ImGui::CalcTextSize(readout.c_str());
    const float cx = m_origin.x + float(m_view->screenX(cell->key + 1.0)) + 12;
    const float cy = m_origin.y + float(m_view->screenY(cell->query + 1.0)) + 12;
    const float x =
        std::clamp(cx, m_origin.x, std::max(m_origin.x, m_origin.x + m_size.x - sz.x - 8));
    const float y =
        std::clamp(cy, m_origin.y, std::max(m_origin.y, m_origin.y + m_size.y - sz.y - 8));
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + sz.x + 8, y + sz.y + 8), IM_COL32(40, 40, 48, 235),
                      4);
    dl->AddRect(ImVec2(x, y), ImVec2(x + sz.x + 8, y + sz.y + 8), IM_COL32(255, 255, 255, 120), 4);
    dl->AddText(ImVec2(x + 4, y + 4), kLabel, readout.c_str());
}

void HeatmapCanvasPanel::drawCursor(ImDrawList* dl) {
    const int64_t cur = m_session.context().cursor();
    if (cur < 0) return;
    const float y = m_origin.y + float(m_view->screenY(cur + 0.5));
    const float x = m_origin.x + float(m_view->screenX(cur + 0.5));
    const ImU32 col = IM_COL32(255, 80, 80, 200);
    dl->AddLine(ImVec2(m_origin.x, y), ImVec2(m_origin.x + m_size.x, y), col);
    dl->AddLine(ImVec2(x, m_origin.y), ImVec2(x, m_origin.y + m_size.y), col);
}

float HeatmapCanvasPanel::colorBarWidth() const {
    // The bar, a gap and the widest label or caption, so that no label is cut at the panel edge.
    const ColorSettings& colors = m_session.context().colors();
    float text = ImGui::CalcTextSize(colorBarCaption(colors).c_str()).x - kBarWidth - kLabelGap;
    for (const ColorBarTick& tick : colorBarTicks(colors, m_range))
        text = std::max(text, ImGui::CalcTextSize(tick.text.c_str()).x);
    // In steps of 10 px (at least 70), so that the map does not resize with every new label.
    const float width = kBarMargin + kBarWidth + kLabelGap + text + kBarMargin;
    return std::max(70.f, std::ceil(width / 10) * 10);
}

void HeatmapCanvasPanel::drawColorBar(ImDrawList* dl, ImVec2 origin, ImVec2 size) {
    const ColorSettings& colors = m_session.context().colors();
    const int steps = std::max(2, static_cast<int>(size.y / 2));
    for (int i = 0; i < steps; ++i) {
        // Top is hi; sample the scale's value at this height so log/gamma bars are honest.
        const double v = colorBarValueAt(colors, m_range, 1.0 - (i + 0.5) / steps);
        const float y0 = origin.y + size.y * i / steps, y1 = origin.y + size.y * (i + 1) / steps;
        dl->AddRectFilled(ImVec2(origin.x, y0), ImVec2(origin.x + kBarWidth, y1),
                          colorOf(v, colors, m_range));
    }
    dl->AddRect(origin, ImVec2(origin.x + kBarWidth, origin.y + size.y),
                IM_COL32(120, 120, 120, 255));
    m_barLabels.clear();
    const float lineH = ImGui::GetTextLineHeight();
    for (const ColorBarTick& tick : colorBarTicks(colors, m_range)) {
        // Centred on its height, kept within the bar's extent.
        const float y = std::clamp(origin.y + size.y * float(1.0 - tick.at) - lineH / 2, origin.y,
                                   origin.y + size.y - lineH);
        const ImVec2 at(origin.x + kBarWidth + kLabelGap, y);
        dl->AddText(at, kLabel, tick.text.c_str());
        const ImVec2 sz = ImGui::CalcTextSize(tick.text.c_str());
        m_barLabels.push_back({tick.text, at.x, at.y, at.x + sz.x, at.y + sz.y});
    }
    const std::string caption = colorBarCaption(colors);
    const ImVec2 at(origin.x, origin.y + size.y + 4);
    dl->AddText(at, IM_COL32(180, 180, 180, 255), caption.c_str());
    const ImVec2 sz = ImGui::CalcTextSize(caption.c_str());
    m_barLabels.push_back({caption, at.x, at.y, at.x + sz.x, at.y + sz.y});
}

void HeatmapCanvasPanel::drawStatus(ImDrawList* dl) {
    const ViewContext& ctx = m_session.context();
    const TileService& tiles = m_session.tiles();
    std::string level =
        m_choice.exact ? std::string("exact tiles")
                       : fmt::format("level {} ({} pool, {} tok/cell)", m_choice.level,
                                     data::toString(m_base.pool), int64_t{1} << m_choice.level);
    if (ctx.map() == MapView::Product && !m_choice.exact) level += ", product of pooled maps";
    // An error is read in full in the window's Messages dock; here it is only flagged.
    const std::string s = fmt::format(
        "{}layer {}  head {}  {}  |  {}  |  {:.3g} tok/px  |  {} loading  |  cache {:.0f} MiB",
        tiles.lastError() ? "tile error (see Messages)  |  " : "", ctx.layer(), ctx.head(),
        valueName(), level, m_view->tokensPerPixel(), tiles.outstanding(),
        tiles.cache().bytes() / 1048576.0);
    // Cut to the panel's width; hovering a cut line shows all of it.
    drawElidedText(dl, ImVec2(m_origin.x, m_origin.y - 18), m_panelRight - m_origin.x,
                   tiles.lastError() ? IM_COL32(255, 150, 120, 255) : kLabel, s);
}

}  // namespace gatescope::widgets
