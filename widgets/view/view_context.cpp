#include "widgets/view/view_context.h"

#include <algorithm>

namespace gatescope::widgets {

ColorSettings ViewContext::initialColors() {
    ColorSettings c;
    c.scale = ScaleKind::Gamma;
    c.gamma = 0.5;
    return c;
}

void ViewContext::setLayerHead(int layer, int head) {
    if (layer == m_layer && head == m_head) return;
    m_layer = layer;
    m_head = head;
    changed();
}

void ViewContext::setMap(MapView map) {
    if (map == m_map) return;
    m_map = map;
    changed();
}

void ViewContext::setPool(data::Pool pool) {
    if (pool == m_pool) return;
    m_pool = pool;
    changed();
}

void ViewContext::setColors(const ColorSettings& colors) {
    if (colors == m_colors) return;
    m_colors = colors;
    changed();
}

void ViewContext::setCursor(int64_t token) {
    token = std::max<int64_t>(-1, token);
    if (token == m_cursor) return;
    m_cursor = token;
    m_selBegin = token;
    m_selEnd = token >= 0 ? token + 1 : token;
    changed();
}

void ViewContext::setSelection(int64_t begin, int64_t end) {
    if (end < begin) std::swap(begin, end);
    m_selBegin = begin;
    m_selEnd = end;
    changed();
}

void ViewContext::setHover(std::optional<HoverInfo> hover) {
    const bool same =
        hover.has_value() == m_hover.has_value() &&
        (!hover || (hover->query == m_hover->query && hover->key == m_hover->key &&
                    hover->value == m_hover->value && hover->exact == m_hover->exact &&
                    hover->level == m_hover->level));
    if (same) return;
    m_hover = hover;
    changed();
}

void ViewContext::focusOn(int64_t token) {
    m_cursor = std::max<int64_t>(0, token);
    m_selBegin = m_cursor;
    m_selEnd = m_cursor + 1;
    ++m_focusSerial;
    changed();
}

void ViewContext::setVisibleQueries(double begin, double end) {
    if (m_visibleQueries == std::pair(begin, end)) return;
    m_visibleQueries = {begin, end};
    changed();
}

void ViewContext::addBookmark(Bookmark bookmark) {
    m_bookmarks.push_back(std::move(bookmark));
    changed();
}

void ViewContext::removeBookmark(size_t index) {
    if (index >= m_bookmarks.size()) return;
    m_bookmarks.erase(m_bookmarks.begin() + static_cast<long>(index));
    changed();
}

int ViewContext::addListener(Listener listener) {
    m_listeners.emplace_back(m_nextListener, std::move(listener));
    return m_nextListener++;
}

void ViewContext::removeListener(int id) {
    std::erase_if(m_listeners, [id](const auto& l) { return l.first == id; });
}

void ViewContext::changed() {
    const auto listeners = m_listeners;  // a listener may add or remove listeners
    for (const auto& [id, listener] : listeners)
        listener();
}

}  // namespace gatescope::widgets
