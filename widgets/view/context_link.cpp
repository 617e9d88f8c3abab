#include "widgets/view/context_link.h"

namespace gatescope::widgets {

ContextLink::~ContextLink() {
    for (const Member& m : m_members)
        m.context->removeListener(m.listener);
}

void ContextLink::add(ViewContext& context, bool shareColors, bool linkCursor) {
    const size_t index = m_members.size();
    m_members.push_back(Member{&context, shareColors, linkCursor, 0, context.focusSerial()});
    m_members.back().listener = context.addListener([this, index] { propagate(index); });
    if (index > 0) {
        // Take the state of the first member: copy from it to the newcomer only.
        Member& first = m_members.front();
        m_busy = true;
        context.setLayerHead(first.context->layer(), first.context->head());
        context.setMap(first.context->map());
        context.setPool(first.context->pool());
        if (shareColors && first.shareColors) context.setColors(first.context->colors());
        if (linkCursor) context.setCursor(first.context->cursor());
        m_busy = false;
    }
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
        if (!src.linkCursor || !m.linkCursor)
            ;  // another tokenization: positions differ
        else if (focused)
            c.focusOn(s.cursor());
        else
            c.setCursor(s.cursor());
        m.focusSerial = c.focusSerial();
    }
    m_busy = false;
}

}  // namespace gatescope::widgets
