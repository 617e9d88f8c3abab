#include "widgets/view/map_keys.h"

#include <algorithm>
#include <cmath>

namespace gatescope::widgets {

void placeDiagonal(Viewport& view, double token) {
    // centerOn puts (key, query) at the centre: shift by a quarter screen each way.
    const double tpp = view.tokensPerPixel();
    view.centerOn(token - 0.25 * view.width() * tpp, token + 0.25 * view.height() * tpp);
}

bool diagonalVisible(const Viewport& view, double token) {
    const double x = view.screenX(token + 0.5), y = view.screenY(token + 0.5);
    return x >= 0 && y >= 0 && x < view.width() && y < view.height();
}

int64_t applyMapKey(Viewport& view, int64_t cursor, MapKey key, bool shift) {
    const int64_t n = view.sequenceLength();
    if (n <= 0) return -1;
    if (cursor < 0) cursor = std::clamp<int64_t>(static_cast<int64_t>(view.queryAt(0)), 0, n - 1);
    const int64_t step = shift ? 16 : 1;
    const int64_t page =
        std::max<int64_t>(1, static_cast<int64_t>(view.height() * view.tokensPerPixel()));
    int64_t next = cursor;
    switch (key) {
        case MapKey::Left:
        case MapKey::Up:
            next = cursor - step;
            break;
        case MapKey::Right:
        case MapKey::Down:
            next = cursor + step;
            break;
        case MapKey::PageUp:
        case MapKey::PageDown: {
            // A screen of rows, the view along the diagonal with the cursor.
            const int64_t delta = key == MapKey::PageDown ? page : -page;
            next = std::clamp<int64_t>(cursor + delta, 0, n - 1);
            const double moved = static_cast<double>(next - cursor) / view.tokensPerPixel();
            view.panPixels(-moved, -moved);
            return next;
        }
        case MapKey::Home:
            next = 0;
            break;
        case MapKey::End:
            next = n - 1;
            break;
        case MapKey::ZoomIn:
        case MapKey::ZoomOut: {
            const double factor = key == MapKey::ZoomIn ? 1.25 : 0.8;
            if (diagonalVisible(view, static_cast<double>(cursor)))
                view.zoomAt(view.screenX(cursor + 0.5), view.screenY(cursor + 0.5), factor);
            else
                view.zoomAt(view.width() / 2, view.height() / 2, factor);
            return cursor;
        }
    }
    next = std::clamp<int64_t>(next, 0, n - 1);
    if (!diagonalVisible(view, static_cast<double>(next)))
        placeDiagonal(view, static_cast<double>(next));
    return next;
}

const char* shortcutHelp() {
    return "On the map (click it first)\n"
           "Left / Up\tcursor one token back (Shift: 16)\n"
           "Right / Down\tcursor one token on (Shift: 16)\n"
           "Page Up / Page Down\ta screen of rows back / on, the view with it\n"
           "Home / End\tfirst / last token\n"
           "+ / -\tzoom in / out about the cursor\n"
           "Mouse wheel\tzoom about the pointer\n"
           "Drag\tpan\n"
           "Double-click\tzoom in\n"
           "Click\tcursor to that query row\n"
           "Right-click\tShow Whole Map, Export Figure...\n"
           "\n"
           "Window\n"
           "Ctrl+O\tOpen Trace\n"
           "Ctrl+G\tGo to Position\n"
           "Ctrl+F / F3\tFind / Find Next\n"
           "Ctrl+D\tAdd Bookmark\n"
           "Ctrl+E\tExport Figure\n"
           "Ctrl+Q\tQuit\n";
}

}  // namespace gatescope::widgets
