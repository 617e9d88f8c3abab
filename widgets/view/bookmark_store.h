// Bookmarks kept across sessions: per trace, in the settings, as JSON. Display-free: the window
// reads and writes the text (QSettings), this file turns it into bookmarks and back, keeping
// only those that still fit the trace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "widgets/view/view_context.h"

namespace gatescope::widgets {

/// A JSON array of {"name", "token", "layer", "head"} objects, in order.
std::string bookmarksToJson(const std::vector<Bookmark>& bookmarks);

/// The bookmarks `text` holds that fit a trace of `n` tokens whose (layer, head) pairs
/// `exists` accepts, in order; at most 1000. Anything else (malformed JSON, another shape, a
/// mark past the trace or on a missing head) is dropped, never an error: the trace may have
/// been rewritten since.
std::vector<Bookmark> bookmarksFromJson(std::string_view text, int64_t n,
                                        const std::function<bool(int, int)>& exists);

/// The settings key of the bookmarks of the trace at `absolutePath`.
std::string bookmarksKey(std::string_view absolutePath);

}  // namespace gatescope::widgets
