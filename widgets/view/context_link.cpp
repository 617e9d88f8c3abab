#include "widgets/view/context_link.h"

namespace gatescope::widgets {

ContextLink::~ContextLink() {
    for (const Member& m : m_members)
        m.context->removeListener(m.listener);
}

void ContextLink::add(ViewContext& context, bool shareColors, bool linkCursor,
                      PositionMap fromFirst, PositionMap toFirst) {
    const size_t index = m_members.size();
    m_members.push_back(Member{&context, shareColors, linkCursor, std::move(fromFirst),
                               std::move(toFirst), 0, context.focusSerial()});
    m_members.back().listener = context.addListener([this, index] { propagate(index); });
    if (index > 0) {
        // Take the state of the first member: copy from it to the newcomer only.
        Member& first = m_members.front();
        m_busy = true;
        context.setLayerHead(first.context->layer(), first.context->head());
        context.setMap(first.context->map());
        context.setPool(first.context->pool());
        if (shareColors && first.shareColors) context.setColors(first.context->colors());
        const Member& added = m_members.back();
        if (linkCursor && first.context->cursor() >= 0)
            context.setCursor(added.fromFirst ? added.fromFirst(first.context->cursor())
                                              : first.context->cursor());
        m_busy = false;
    }
}

int64_t ContextLink::mapped(const Member& from, const Member& to, int64_t position) {
    if (position < 0) return position;
    if (from.toFirst) position = from.toFirst(position);
    if (position >= 0 && to.fromFirst) position = to.fromFirst(position);
    return position;
}

void ContextLink::propagate(size_t from) {
    if (m_busy) return;
    m_busy = true;
    Member& src = m_members[from];
    const ViewContext& s = *src.context;
    const bool focused = s.focusSerial() != src.focusSerial;
    src.focusSerial = s.focusSerial();
    for (size_t i = 0; i < m_members.size(); ++i) {
        if (i == from) continue;
        Member& m = m_members[i];
        ViewContext& c = *m.context;
        c.setLayerHead(s.layer(), s.head());
        c.setMap(s.map());
        c.setPool(s.pool());
        if (src.shareColors && m.shareColors) c.setColors(s.colors());
        const int64_t cursor = mapped(src, m, s.cursor());
        if (!src.linkCursor || !m.linkCursor || (s.cursor() >= 0 && cursor < 0))
            ;  // not linked, or no counterpart in that tokenization
        else if (focused)
            c.focusOn(cursor);
        else
            c.setCursor(cursor);
        m.focusSerial = c.focusSerial();
    }
    m_busy = false;
}

}  // namespace gatescope::widgets
