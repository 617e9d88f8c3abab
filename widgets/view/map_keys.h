// Keyboard navigation of the map, display-free: the keys the canvas answers and what each does
// to the linked cursor and the viewport. Arrows step the cursor a token (Shift: 16), Page Up /
// Page Down move it and the view by a screen of rows along the diagonal, Home / End go to the
// first / last token, + / - zoom about the cursor. The view follows the cursor so that its
// diagonal cell stays on screen, placed where little of the screen is the masked future.
#pragma once

#include <cstdint>

#include "widgets/view/viewport.h"

namespace gatescope::widgets {

enum class MapKey { Left, Right, Up, Down, PageUp, PageDown, Home, End, ZoomIn, ZoomOut };

/// The cursor after `key` (from `cursor`, -1 for none: it starts at the first row on screen),
/// in [0, n); moves or zooms `view` as described above.
int64_t applyMapKey(Viewport& view, int64_t cursor, MapKey key, bool shift);

/// Moves `view` (zoom unchanged) so that the diagonal cell (token, token) is at three quarters
/// of the width and a quarter of the height: the unmasked past (keys <= query) fills most of the
/// screen, the masked future about an eighth. Go to Position and the keys use it.
void placeDiagonal(Viewport& view, double token);

/// Whether the diagonal cell (token, token) is on screen.
bool diagonalVisible(const Viewport& view, double token);

/// The shortcuts of the map and the window, for Help > Keyboard Shortcuts: lines of
/// "keys<TAB>what they do".
const char* shortcutHelp();

}  // namespace gatescope::widgets
