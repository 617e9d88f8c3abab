#include "widgets/gui/heatmap_canvas_panel.h"

#include <algorithm>
#include <cmath>

#include "widgets/view/map_keys.h"

namespace gatescope::widgets {

namespace {
constexpr float kLossStripHeight = 56;
constexpr float kStatusHeight = 20;
}  // namespace

void HeatmapCanvasPanel::draw(PanelFrame& frame) {
    const TraceDocument& doc = m_session.document();
    ViewContext& ctx = m_session.context();
    const ImVec2 win = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    m_origin = ImVec2(win.x, win.y + kStatusHeight);
    m_panelRight = win.x + avail.x;
    const float barWidth = colorBarWidth();
    m_size = ImVec2(std::max(16.f, avail.x - barWidth),
                    std::max(16.f, avail.y - kLossStripHeight - kStatusHeight - 4));
    // A follower of a shared viewport draws through it as sized by the leader.
    const bool resized =
        !m_follower && (m_view->width() != m_size.x || m_view->height() != m_size.y);
    if (!m_follower) m_view->setScreenSize(m_size.x, m_size.y);
    if (!m_initialized) {
        m_view->setSequenceLength(doc.n());
        m_initialized = true;
    } else if (resized && !m_userMoved) {
        m_view->fitAll();
    }
    if (ctx.focusSerial() != m_seenFocus) {
        m_seenFocus = ctx.focusSerial();
        m_userMoved = true;
        m_view->setTokensPerPixel(std::min(m_view->tokensPerPixel(), 1.0 / 16));
        // Not centred: most of the screen shows the past the cursor reads, not the masked future.
        placeDiagonal(*m_view, ctx.cursor() + 0.5);
    }
    if (m_fitRect) {
        const TokenRect& r = *m_fitRect;
        m_userMoved = true;
        m_view->setTokensPerPixel(std::max((r.x1 - r.x0) / std::max(1.0, m_view->width()),
                                           (r.y1 - r.y0) / std::max(1.0, m_view->height())) *
                                  1.1);
        m_view->centerOn((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
    }
    ImGui::SetCursorScreenPos(m_origin);
    ImGui::InvisibleButton("##canvas", m_size,
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    handleInput(m_size);

    // Plan: level, visible tiles, requests (only when the wanted set changed).
    const data::LayerInfo* layer = doc.summary().layer(ctx.layer());
    m_levels = layer ? levelRangeOf(*layer, ctx.map()) : LevelRange{0, 0, false, false};
    const TokenRect rect = m_view->visible();
    if (!m_follower) ctx.setVisibleQueries(rect.y0, rect.y1);
    m_choice = chooseLevel(m_view->tokensPerPixel(), m_levels, causalTileCount(rect, doc.n(), 0));
    m_base = TileKey{
        ctx.layer(),    ctx.head(),     ctx.map(), m_choice.exact ? data::Pool::Max : ctx.pool(),
        m_choice.level, m_choice.exact, 0,         0,
        m_variant};
    m_visible = layer ? visibleTiles(rect, doc.n(), m_base) : std::vector<TileKey>{};
    if (m_visible != m_lastRequest) {
        m_session.tiles().request(ViewerSession::kCanvasChannel, m_visible);
        m_lastRequest = m_visible;
    }
    updateRange(m_visible);

    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(m_origin, ImVec2(m_origin.x + m_size.x, m_origin.y + m_size.y), true);
    dl->AddRectFilled(m_origin, ImVec2(m_origin.x + m_size.x, m_origin.y + m_size.y),
                      IM_COL32(18, 18, 22, 255));
    drawTiles(dl, frame.textures);
    drawCursor(dl);
    m_axisLabels.clear();
    m_legend = {"", 0, 0, 0, 0};
    drawLabels(dl);
    drawLegend(dl);
    drawMinimap(dl);
    drawHover(dl);
    dl->PopClipRect();
    drawColorBar(dl, ImVec2(m_origin.x + m_size.x + 6, m_origin.y), ImVec2(barWidth, m_size.y));
    drawStatus(dl);
    const ImVec2 stripAt(m_origin.x, m_origin.y + m_size.y + 4),
        stripSize(m_size.x, kLossStripHeight);
    if (m_strip)
        m_strip(*m_view, stripAt, stripSize);
    else
        m_lossStrip.draw(doc, *m_view, ctx, stripAt, stripSize);
    if (m_textures.behind()) frame.wantsMoreFrames = true;
}

void HeatmapCanvasPanel::updateRange(const std::vector<TileKey>& keys) {
    const ColorSettings& colors = m_session.context().colors();
    SeenValues seen;
    for (const TileKey& key : keys) {
        TilePtr t = m_session.tiles().find(key);
        if (!t) continue;
        seen.lo = seen.any ? std::min(seen.lo, double(t->min)) : t->min;
        seen.hi = seen.any ? std::max(seen.hi, double(t->max)) : t->max;
        if (t->minPositive > 0)
            seen.minPositive = seen.minPositive > 0
                                   ? std::min(seen.minPositive, double(t->minPositive))
                                   : t->minPositive;
        seen.any = true;
    }
    const bool colorsChanged = !m_lastColors || !(*m_lastColors == colors);
    if (m_link && m_linkRange) {
        // Compare mode: one range for A and B, from what both canvases see.
        const ValueRange shared = m_link->update(m_linkSlot, seen, colors);
        if (colorsChanged || shared.lo != m_range.lo || shared.hi != m_range.hi) {
            m_range = shared;
            m_lastColors = colors;
            ++m_style;
        }
        return;
    }
    const ValueRange next = unionRange({seen}, colors, m_range);
    // Hysteresis: small changes of the automatic range do not recolour every texture.
    if (colorsChanged || rangeMoved(m_range, next)) {
        m_range = next;
        m_lastColors = colors;
        ++m_style;
    }
}

void HeatmapCanvasPanel::drawTiles(ImDrawList* dl, GlTextures& gl) {
    m_textures.beginFrame(m_style, m_session.context().colors(), m_range);
    m_drawn.clear();
    bool complete = true;
    // Stand-ins first (coarser tiles), then the target tiles on top.
    for (const TileKey& key : m_visible) {
        if (!m_session.tiles().find(key)) {
            // A tile that failed to load is settled: its error is in the Messages dock.
            if (!m_session.tiles().failed(key)) complete = false;
            drawFallback(dl, gl, key);
        }
    }
    for (const TileKey& key : m_visible) {
        TilePtr tile = m_session.tiles().find(key);
        if (!tile) continue;
        const uint32_t tex = m_textures.get(gl, *tile);
        if (tex) drawTile(dl, tex, *tile, key);
        m_drawn.push_back(tile);
    }
    m_complete = complete && !m_textures.behind();
    m_textures.endFrame(gl);
}

bool HeatmapCanvasPanel::drawFallback(ImDrawList* dl, GlTextures& gl, const TileKey& key) {
    if (!m_levels.hasPyramid) return false;
    const int64_t t0 = key.row * key.tileTokens(), c0 = key.col * key.tileTokens();
    for (int level = std::max(m_levels.finest, key.exact ? 0 : key.level + 1);
         level <= m_levels.coarsest; ++level) {
        TileKey up = key;
        up.exact = false;
        up.level = level;
        up.pool = m_session.context().pool();
        up.row = t0 / up.tileTokens();
        up.col = c0 / up.tileTokens();
        TilePtr tile = m_session.tiles().find(up);
        if (!tile) continue;
        if (const uint32_t tex = m_textures.get(gl, *tile)) drawTile(dl, tex, *tile, key);
        return true;
    }
    return false;
}

void HeatmapCanvasPanel::drawTile(ImDrawList* dl, uint32_t texture, const TileData& tile,
                                  const TileKey& target) {
    // Draw the part of `tile` that covers `target`'s token square (all of it when equal).
    const double cell = static_cast<double>(tile.key.cellTokens());
    const double tileK0 = tile.key.col * tile.key.tileTokens(),
                 tileQ0 = tile.key.row * tile.key.tileTokens();
    const double k0 = std::max(tileK0, double(target.col * target.tileTokens()));
    const double q0 = std::max(tileQ0, double(target.row * target.tileTokens()));
    const double k1 =
        std::min({tileK0 + tile.cols * cell, double((target.col + 1) * target.tileTokens()),
                  double(m_session.document().n())});
    const double q1 =
        std::min({tileQ0 + tile.rows * cell, double((target.row + 1) * target.tileTokens()),
                  double(m_session.document().n())});
    if (k1 <= k0 || q1 <= q0) return;
    const float side = static_cast<float>(kTile * cell);
    const ImVec2 uv0(static_cast<float>((k0 - tileK0) / side),
                     static_cast<float>((q0 - tileQ0) / side));
    const ImVec2 uv1(static_cast<float>((k1 - tileK0) / side),
                     static_cast<float>((q1 - tileQ0) / side));
    const ImVec2 p0(m_origin.x + static_cast<float>(m_view->screenX(k0)),
                    m_origin.y + static_cast<float>(m_view->screenY(q0)));
    const ImVec2 p1(m_origin.x + static_cast<float>(m_view->screenX(k1)),
                    m_origin.y + static_cast<float>(m_view->screenY(q1)));
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture)), p0, p1, uv0, uv1);
}

}  // namespace gatescope::widgets
