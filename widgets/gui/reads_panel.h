// ReadsPanel, the Reads dock: "what does this token read". For the cursor's token it paints its
// exact attention row over the text (each token's background by its weight, CircuitsVis style)
// and lists the strongest keys with weight, position and, for gated heads, the content part
// (scale q.k) and the forgetting part (the gate/decay penalty) of each score; or, switched to
// the column, who reads the token (its weight in every later query). Computed on the session's
// job pool from the head's stored factors (TokenReads), the newest request winning; clicking a
// listed or painted token moves the linked cursor there in every view. GUI thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/job_scope.h"
#include "widgets/view/token_reads.h"

namespace gatescope::widgets {

class ReadsPanel final : public Panel {
public:
    static constexpr int64_t kPage = 512;  ///< tokens of text painted at a time
    static constexpr int kTopK = 12;       ///< tokens listed

    /// `session` must outlive the panel.
    explicit ReadsPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Reads"; }
    void draw(PanelFrame& frame) override;

    ReadsMode mode() const { return m_mode; }
    /// Switches between the cursor's row and its column (the radio buttons; also for scripts).
    void setMode(ReadsMode mode);
    /// The reads of the current layer, head, cursor and mode once computed and drawn (null
    /// while computing, after an error, or without a cursor).
    const TokenReads* reads() const;
    /// The error of the last request, if it failed.
    const std::optional<Error>& error() const { return m_error; }
    /// Where the last frame drew listed row `rank` and painted token `position` (host pixels).
    std::optional<ImVec2> listedRowCenter(size_t rank) const;
    std::optional<ImVec4> paintedRect(int64_t position) const;

private:
    using Request = std::tuple<int, int, int64_t, ReadsMode>;  // layer, head, position, mode
    Request current() const;
    /// Starts the job for the current request when it changed.
    void follow();
    void drawList();
    void drawText();
    void moveTo(int64_t position);

    ViewerSession& m_session;
    JobScope m_jobs;
    ReadsMode m_mode = ReadsMode::Row;
    std::optional<Request> m_requested;
    std::optional<TokenReads> m_reads;  // of m_requested, when done
    std::optional<Error> m_error;
    int64_t m_page = 0;
    bool m_drawn = false;
    int m_scrollFrames = 0;  // a new result: frames left to bring the cursor's token into sight
    bool m_wantsFrame = false;
    std::map<size_t, ImVec2> m_rowCenters;
    std::map<int64_t, ImVec4> m_painted;  // listed tokens on the page: x0, y0, x1, y1
};

}  // namespace gatescope::widgets
