// ContextLink: locks several ViewContexts together (compare mode: trace A's, trace B's and the
// difference view's). A change of layer, head, map, pooling or cursor in any one is copied to
// the others; colour settings are copied only among the contexts linked with `shareColors` (the
// difference view keeps its diverging map). Hover and bookmarks stay per context. A focus
// request (focusOn) is passed on as one. Display-free; GUI thread only, like the contexts.
#pragma once

#include <functional>
#include <vector>

#include "widgets/view/view_context.h"

namespace gatescope::widgets {

class ContextLink {
public:
    ContextLink() = default;
    ContextLink(const ContextLink&) = delete;
    ContextLink& operator=(const ContextLink&) = delete;
    /// Stops listening. The contexts must still exist (destroy the link first).
    ~ContextLink();

    /// Maps a token position of one context to another's (another tokenization of the same
    /// text); returns -1 when the position has no counterpart.
    using PositionMap = std::function<int64_t(int64_t)>;

    /// Adds `context` (not owned) and brings it to the state of the first linked context. With
    /// `linkCursor` false its cursor is neither copied nor passed on. `fromFirst` / `toFirst`
    /// map positions between the first context's tokens and this one's (empty: the same
    /// tokens).
    void add(ViewContext& context, bool shareColors, bool linkCursor = true,
             PositionMap fromFirst = {}, PositionMap toFirst = {});

private:
    struct Member {
        ViewContext* context;
        bool shareColors;
        bool linkCursor;
        PositionMap fromFirst, toFirst;
        int listener;
        uint64_t focusSerial;
    };
    void propagate(size_t from);
    static int64_t mapped(const Member& from, const Member& to, int64_t position);

    std::vector<Member> m_members;
    bool m_busy = false;  // copying: ignore the notifications that causes
};

}  // namespace gatescope::widgets
