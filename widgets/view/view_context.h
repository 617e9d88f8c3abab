// ViewContext: the state every view shares (RenderDoc's CaptureContext): which layer, head and
// map are shown, the colour settings, the linked cursor and selection over token positions, the
// cell under the mouse and the bookmarks. Views read it every frame and change it through the
// setters, which notify listeners (e.g. to repaint every host). GUI thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/trace/trace_schema.h"
#include "widgets/view/color_scale.h"
#include "widgets/view/tile_key.h"

namespace gatescope::widgets {

struct Bookmark {
    std::string name;
    int64_t token = 0;
    int layer = 0;
    int head = 0;
};

/// The cell the mouse is over on the canvas, with its exact (or pooled) value.
struct HoverInfo {
    int64_t query = 0;
    int64_t key = 0;
    double value = 0;
    bool exact = false;  ///< value of one cell, not a pooled block
    int level = 0;
};

class ViewContext {
public:
    using Listener = std::function<void()>;

    int layer() const { return m_layer; }
    int head() const { return m_head; }
    MapView map() const { return m_map; }
    data::Pool pool() const { return m_pool; }
    const ColorSettings& colors() const { return m_colors; }
    /// The linked cursor: a token position, or -1 for none.
    int64_t cursor() const { return m_cursor; }
    /// Selection [begin, end) of token positions; empty when begin == end.
    std::pair<int64_t, int64_t> selection() const { return {m_selBegin, m_selEnd}; }
    const std::optional<HoverInfo>& hover() const { return m_hover; }
    const std::vector<Bookmark>& bookmarks() const { return m_bookmarks; }
    /// Bumped by focusOn(): views that follow focus requests compare it with the last seen.
    uint64_t focusSerial() const { return m_focusSerial; }
    /// The query positions [begin, end) the map shows now ({0, 0} before its first frame): the
    /// canvas sets it every frame, and listeners hear of it when it moved (docks that follow the
    /// map repaint).
    std::pair<double, double> visibleQueries() const { return m_visibleQueries; }
    void setVisibleQueries(double begin, double end);

    void setLayerHead(int layer, int head);
    void setMap(MapView map);
    void setPool(data::Pool pool);
    void setColors(const ColorSettings& colors);
    /// Moves the cursor (clamped to >= -1) and selects that one token.
    void setCursor(int64_t token);
    void setSelection(int64_t begin, int64_t end);
    void setHover(std::optional<HoverInfo> hover);
    /// Moves the cursor to `token` and asks views to bring it into sight.
    void focusOn(int64_t token);
    void addBookmark(Bookmark bookmark);
    void removeBookmark(size_t index);

    /// Called after every change; returns an id for removeListener().
    int addListener(Listener listener);
    void removeListener(int id);

    /// The colours a new view starts with: viridis, gamma 0.5 (attention is heavy-tailed), auto.
    static ColorSettings initialColors();

private:
    void changed();

    int m_layer = 0;
    int m_head = 0;
    MapView m_map = MapView::Attention;
    data::Pool m_pool = data::Pool::Max;
    ColorSettings m_colors = initialColors();
    int64_t m_cursor = -1;
    int64_t m_selBegin = 0, m_selEnd = 0;
    std::optional<HoverInfo> m_hover;
    std::vector<Bookmark> m_bookmarks;
    uint64_t m_focusSerial = 0;
    std::pair<double, double> m_visibleQueries{0, 0};
    std::vector<std::pair<int, Listener>> m_listeners;
    int m_nextListener = 1;
};

}  // namespace gatescope::widgets
