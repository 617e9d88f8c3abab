// HeatmapCanvasPanel: the map of one layer and head (attention, decay or their product) from the
// whole sequence down to single cells. Tiles come from the session's TileService: stored pyramid
// levels when zoomed out, exact tiles recomputed from factors past the finest level; while a
// tile loads, the nearest coarser cached tile stands in. Draws token labels when legible, the
// hovered value, the linked cursor, a colour bar and the loss strip under the x-axis.
// GUI thread only (draw() runs inside the host's paintGL).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "widgets/gui/loss_strip.h"
#include "widgets/gui/panel.h"
#include "widgets/gui/tile_textures.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/canvas_link.h"
#include "widgets/view/minimap.h"
#include "widgets/view/tile_plan.h"
#include "widgets/view/viewport.h"

namespace gatescope::widgets {

/// Colours of the text the canvas draws over the map (axes, readouts): light on a dark box.
inline constexpr ImU32 kLabel = IM_COL32(230, 230, 230, 255);
inline constexpr ImU32 kLabelBack = IM_COL32(20, 20, 24, 200);

class HeatmapCanvasPanel final : public Panel {
public:
    /// `session` must outlive the panel.
    explicit HeatmapCanvasPanel(ViewerSession& session) : m_session(session) {}

    const char* title() const override { return "Heatmap"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override { m_textures.releaseAll(textures); }
    /// Arrows, Page Up/Down, Home/End, + and - (widgets/view/map_keys.h).
    bool keyPressed(int qtKey, bool shift) override;

    /// The viewport (changes apply at the next frame). Taking it for writing counts as the user
    /// moving the view: the map is no longer refitted when the canvas is resized.
    Viewport& viewport() {
        m_userMoved = true;
        m_fitRect.reset();
        return *m_view;
    }
    /// Shows `keys x queries` (token coordinates) as large as it fits, now and again whenever the
    /// canvas is resized, until the user zooms or pans (a needle grid cell's focus).
    void fitTokens(const TokenRect& rect) { m_fitRect = rect; }
    /// Called by the canvas's right-click menu item "Export Figure...".
    void setExportAction(std::function<void()> action) { m_onExport = std::move(action); }
    /// Right-click > What if...: runs `action` (the window's What if... dialog for the shown
    /// head); without one the item is disabled.
    void setWhatIfAction(std::function<void()> action) { m_onWhatIf = std::move(action); }
    /// The viewport, read only (does not count as the user moving the view).
    const Viewport& view() const { return *m_view; }
    /// Compare mode: draw through `shared` (already sized to this map's N), which other canvases
    /// use too, so that zoom and pan are locked (whoever moves it repaints the others). Only the
    /// leader sizes (and refits) it; followers should be as large as the leader's canvas.
    void shareViewport(std::shared_ptr<Viewport> shared, bool leader) {
        m_view = std::move(shared);
        m_initialized = true;
        m_follower = !leader;
    }
    /// Compare mode: share one colour range and the pointed cell with the other canvases of
    /// `link` (A and B). A canvas not under the mouse outlines the pointed cell and shows its
    /// read-out there.
    /// With `shareRange` false only the pointed cell is shared (the difference canvas keeps its
    /// own diverging range).
    void shareCanvasLink(std::shared_ptr<CanvasLink> link, bool shareRange = true) {
        m_link = std::move(link);
        m_linkSlot = m_link ? m_link->join() : -1;
        m_linkRange = shareRange;
        m_lastColors.reset();  // the next frame resolves its range afresh
    }
    /// Compare mode: the TileKey::variant of every tile this canvas asks for (the DiffMode).
    void setTileVariant(int variant) { m_variant = variant; }
    /// Compare mode: what the status line and tooltip call the value, before the map's name
    /// ("B: ", "A - B of ").
    void setValuePrefix(std::string prefix) { m_valuePrefix = std::move(prefix); }
    /// Replaces the loss strip under the map with `draw(viewport, origin, size)` (compare mode:
    /// the loss delta of the difference view).
    void setStrip(std::function<void(const Viewport&, ImVec2, ImVec2)> draw) {
        m_strip = std::move(draw);
    }
    /// Canvas rectangle in host pixels, as of the last frame.
    ImVec2 canvasOrigin() const { return m_origin; }
    /// The level drawn in the last frame.
    LevelChoice level() const { return m_choice; }
    /// Whether the last frame drew every visible tile at its target level in the current style.
    bool complete() const { return m_complete; }
    /// The colour range in force.
    ValueRange range() const { return m_range; }
    /// A text drawn by the last frame, with its rectangle in host pixels (x0, y0, x1, y1).
    struct DrawnText {
        std::string text;
        float x0, y0, x1, y1;
    };
    /// The colour bar's labels and caption as drawn in the last frame (tests check that they
    /// lie inside the panel).
    const std::vector<DrawnText>& colorBarLabels() const { return m_barLabels; }
    /// The position numbers on the axes drawn by the last frame ("key 1,000", "query 500"; none
    /// when token labels are shown instead), and the axis legend.
    const std::vector<DrawnText>& axisLabels() const { return m_axisLabels; }
    const DrawnText& legend() const { return m_legend; }
    /// The you-are-here box of the last frame, in minimap pixels (none when the whole map is on
    /// screen), and the minimap's side in pixels.
    const std::optional<MinimapBox>& minimap() const { return m_minimap; }
    /// The minimap's top-left corner in host pixels, as of the last frame that drew it.
    ImVec2 minimapOrigin() const { return m_minimapOrigin; }
    static constexpr float kMinimapSide = 96;
    /// The panel's right edge in host pixels, as of the last frame.
    float panelRight() const { return m_panelRight; }

private:
    void handleInput(ImVec2 size);
    void drawTiles(ImDrawList* dl, GlTextures& gl);
    bool drawFallback(ImDrawList* dl, GlTextures& gl, const TileKey& key);
    void drawTile(ImDrawList* dl, uint32_t texture, const TileData& tile, const TileKey& target);
    void updateRange(const std::vector<TileKey>& keys);
    void drawHover(ImDrawList* dl);
    void drawLabels(ImDrawList* dl);
    void drawTicks(ImDrawList* dl);
    void drawLegend(ImDrawList* dl);
    void drawMinimap(ImDrawList* dl);
    void drawCursor(ImDrawList* dl);
    void drawColorBar(ImDrawList* dl, ImVec2 origin, ImVec2 size);
    /// The width the colour bar and its labels take at the right of the map.
    float colorBarWidth() const;
    void drawStatus(ImDrawList* dl);
    std::string valueName() const;

    ViewerSession& m_session;
    std::function<void()> m_onExport;
    std::function<void()> m_onWhatIf;
    std::shared_ptr<Viewport> m_view = std::make_shared<Viewport>();
    int m_variant = 0;
    bool m_follower = false;
    std::string m_valuePrefix;
    TileTextures m_textures;
    LossStrip m_lossStrip;
    std::function<void(const Viewport&, ImVec2, ImVec2)> m_strip;
    bool m_initialized = false;
    bool m_userMoved = false;  // until then, the whole map is refitted on resize
    uint64_t m_seenFocus = 0;
    std::optional<TokenRect> m_fitRect;  // kept in view across resizes until the user moves
    ImVec2 m_origin{0, 0}, m_size{1, 1};
    LevelChoice m_choice;
    LevelRange m_levels;
    TileKey m_base;
    TileKey m_hoverRequest{-1};  // the exact tile last asked for the hovered cell
    std::vector<TileKey> m_visible, m_lastRequest;
    ValueRange m_range;
    std::optional<ColorSettings> m_lastColors;
    uint64_t m_style = 1;
    std::vector<TilePtr> m_drawn;  // tiles drawn this frame, for hover lookups
    bool m_complete = false;
    std::vector<DrawnText> m_barLabels;
    std::vector<DrawnText> m_axisLabels;
    DrawnText m_legend{"", 0, 0, 0, 0};
    std::optional<MinimapBox> m_minimap;
    ImVec2 m_minimapOrigin{0, 0};
    bool m_minimapDrag = false;  ///< the left button went down on the minimap: it steers the view
    std::shared_ptr<CanvasLink> m_link;
    int m_linkSlot = -1;
    bool m_linkRange = false;
    float m_panelRight = 0;
};

}  // namespace gatescope::widgets
