// StatisticsPanel: statistics of the current layer. Gate statistics per head and channel
// (core::gateStats: mean retention, quantiles, timescale, horizon, kind) load on a worker as soon
// as the layer is shown; "Compute attention statistics" runs core::attentionStats for the layer on
// a worker (exact, O(N^2) per head), cancelled when the layer or trace changes or the panel goes.
// Clicking a row selects that head. GUI thread only.
#pragma once

#include <optional>
#include <vector>

#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/job_scope.h"
#include "widgets/view/layer_stats.h"

namespace gatescope::widgets {

class StatisticsPanel final : public Panel {
public:
    /// `session` must outlive the panel.
    explicit StatisticsPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Statistics"; }
    void draw(PanelFrame& frame) override;

    /// Starts the attention statistics of the current layer and shows their tab (the button;
    /// also for scripts).
    void computeAttention();
    /// Whether the attention statistics of the current layer are done (ok or not).
    bool attentionDone() const { return m_attention.has_value(); }
    /// Whether the gate statistics of the shown layer are done (ok or not); false before the
    /// panel's first frame, which starts them.
    bool gatesDone() const { return m_gates.has_value(); }
    /// Rows of the gate and attention tables (0 while computing or after an error).
    size_t gateRows() const;
    size_t attentionRows() const;

private:
    void drawGates();
    void drawAttention();
    void cancelAttention();
    /// Restarts the gate statistics (and drops attention's) when the shown layer changed.
    void followLayer();

    ViewerSession& m_session;
    JobScope m_jobs;
    int m_layer = -1;
    std::optional<Result<core::LayerGateStats>> m_gates;  // empty while computing
    std::optional<Result<std::vector<core::HeadAttentionStats>>> m_attention;
    bool m_selectAttentionTab = false;
};

}  // namespace gatescope::widgets
