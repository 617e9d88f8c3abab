// ComparePanel: the Compare dock of compare mode. A banner says how the traces align (identical
// tokens, or tokenizations that differ and were aligned by byte offsets); the difference mode
// (A - B or log-ratio); the per-token loss delta strip lossA - lossB (diverging: blue where A
// predicts better) and the retention difference of the current head, both over the keys on
// screen; and the loss gap by position bin (core::compareTraces). The numbers load on trace A's
// job pool (a JobScope); results arrive on the GUI thread. GUI thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "widgets/gui/diverging_strip.h"
#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/compare_model.h"
#include "widgets/view/job_scope.h"

namespace gatescope::widgets {

class ComparePanel final : public Panel {
public:
    /// `a` (trace A's session: its context gives layer, head and cursor) must outlive the
    /// panel. `visibleKeys` gives the key range on screen; `setMode` switches the difference
    /// view (null when there is none: the tokenizations differ).
    ComparePanel(ViewerSession& a, std::shared_ptr<const data::TraceReader> b,
                 std::function<TokenRect()> visibleKeys, std::function<void(DiffMode)> setMode);

    const char* title() const override { return "Compare"; }
    void draw(PanelFrame& frame) override;

    /// The summary once computed (null before, or after an error).
    const CompareSummary* summary() const;
    bool summaryDone() const { return m_summary.has_value(); }
    /// Whether the retention difference of the current head is loaded (or failed).
    bool retentionDone() const { return m_retention.has_value(); }
    /// The line drawn instead of the retention difference strip, empty when it is drawn.
    std::string retentionMessage() const {
        return m_retention && !*m_retention ? "retention A - B: " + m_retention->error().describe()
                                            : std::string();
    }
    DiffMode mode() const { return m_mode; }
    void setMode(DiffMode mode);

private:
    void drawBanner(const CompareSummary& s);
    void drawStrips(const CompareSummary& s, ImVec2 size);
    void drawBins(const CompareSummary& s);

    ViewerSession& m_a;
    std::shared_ptr<const data::TraceReader> m_b;
    std::function<TokenRect()> m_visibleKeys;
    std::function<void(DiffMode)> m_setMode;
    DiffMode m_mode = DiffMode::Difference;
    JobScope m_jobs;
    bool m_summaryRequested = false;
    std::optional<Result<CompareSummary>> m_summary;  // empty while computing
    std::optional<Result<std::vector<float>>> m_retention;
    int m_retentionLayer = -1, m_retentionHead = -1;
    DivergingStrip m_lossStrip, m_retentionStrip;
};

}  // namespace gatescope::widgets
