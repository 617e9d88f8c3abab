// ContextLink: locks several ViewContexts together (compare mode: trace A's, trace B's and the
// difference view's). A change of layer, head, map, pooling or cursor in any one is copied to
// the others; colour settings are copied only among the contexts linked with `shareColors` (the
// difference view keeps its diverging map). Hover and bookmarks stay per context. A focus
// request (focusOn) is passed on as one. Display-free; GUI thread only, like the contexts.
#pragma once

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

    /// Adds `context` (not owned) and brings it to the state of the first linked context. With
    /// `linkCursor` false its cursor is neither copied nor passed on (positions of another
    /// tokenization).
    void add(ViewContext& context, bool shareColors, bool linkCursor = true);

private:
    struct Member {
        ViewContext* context;
        bool shareColors;
        bool linkCursor;
        int listener;
        uint64_t focusSerial;
    };
    void propagate(size_t from);

    std::vector<Member> m_members;
    bool m_busy = false;  // copying: ignore the notifications that causes
};

}  // namespace gatescope::widgets
