// GateEventsPanel, the Gate Events dock: the positions where a head (or one channel of a
// per-channel gate) forgets hard, retention exp(g) below a threshold, with the token that
// triggers it and the few before it (core/analysis/gate_events.h). A sortable table (click a
// header), a search over tokens and contexts, the threshold; clicking a row shows that layer and
// head and moves the linked cursor to the position in every view. Computed on the session's job
// pool when first shown and when the threshold changes. GUI thread only.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "core/analysis/gate_events.h"
#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/gate_event_table.h"
#include "widgets/view/job_scope.h"

namespace gatescope::widgets {

class GateEventsPanel final : public Panel {
public:
    static constexpr int64_t kLimit = 5000;  ///< events kept, strongest first

    /// `session` must outlive the panel.
    explicit GateEventsPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Gate Events"; }
    void draw(PanelFrame& frame) override;

    /// Starts computing (the first draw does it too) for `retention` in (0, 1).
    void compute(double retention);
    /// The report once computed (null while computing or after an error).
    const core::GateEventReport* report() const;
    /// The error, or what the dock says instead of a table (a trace without gates); else empty.
    std::string message() const;
    /// The events shown now, in order: indices into report()->events.
    const std::vector<size_t>& rows() const { return m_rows; }
    void setSearch(const std::string& text);
    void setSort(GateEventSort sort);
    /// Shows the event of shown row `row`: its layer and head, the cursor at its position.
    void open(size_t row);
    /// Where the last frame drew shown row `row` (host pixels); none when scrolled away.
    std::optional<ImVec2> rowCenter(size_t row) const;

private:
    void refreshRows();
    void drawTable(const core::GateEventReport& report);

    ViewerSession& m_session;
    JobScope m_jobs;
    double m_retention = 0.5;
    std::string m_search;
    char m_searchBuffer[128] = {};
    GateEventSort m_sort;
    bool m_started = false;
    std::optional<Result<core::GateEventReport>> m_report;  // empty while computing
    std::vector<size_t> m_rows;
    std::map<size_t, ImVec2> m_rowCenters;
};

}  // namespace gatescope::widgets
