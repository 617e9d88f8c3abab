// TextPanel: the input text as tokens, each on a background coloured by its loss (darker red =
// higher loss). Clicking a token moves the linked cursor; the page follows the cursor. Shows one
// page of tokens at a time so 64k-token inputs cost one page per frame. GUI thread only.
#pragma once

#include <cstdint>

#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

class TextPanel final : public Panel {
public:
    static constexpr int64_t kPage = 1024;  ///< tokens per page

    /// `session` must outlive the panel.
    explicit TextPanel(ViewerSession& session) : m_session(session) {}

    const char* title() const override { return "Text"; }
    void draw(PanelFrame& frame) override;

private:
    ViewerSession& m_session;
    int64_t m_page = 0;
    int64_t m_lastCursor = -2;
    float m_minLoss = 0, m_maxLoss = -1;
    bool m_scrollToCursor = false;
};

}  // namespace gatescope::widgets
