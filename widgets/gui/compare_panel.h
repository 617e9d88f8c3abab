// ComparePanel: the Compare dock of compare mode. A banner says how the traces align (identical
// tokens, or tokenizations that differ and were aligned by byte offsets); the difference mode
// (A - B or log-ratio); the per-token loss delta strip lossA - lossB (diverging: blue where A
// predicts better) and the retention difference of the current head, both over the keys on
// screen; and the loss gap by position bin (core::compareTraces). The numbers load on workers
// (runInSlot); the panel only polls. GUI thread only.
#pragma once

#include <functional>
#include <memory>

#include "widgets/gui/diverging_strip.h"
#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/background_slot.h"
#include "widgets/view/compare_model.h"

namespace gatescope::widgets {

class ComparePanel final : public Panel {
public:
    /// `a` (trace A's session: its context gives layer, head and cursor) must outlive the
    /// panel. `visibleKeys` gives the key range on screen; `setMode` switches the difference
    /// view (null when there is none: the tokenizations differ).
    ComparePanel(ViewerSession& a, std::shared_ptr<const data::TraceReader> b,
                 std::function<TokenRect()> visibleKeys, std::function<void(DiffMode)> setMode);
    ~ComparePanel() override;

    const char* title() const override { return "Compare"; }
    void draw(PanelFrame& frame) override;

    /// The summary once computed (null before, or after an error).
    const CompareSummary* summary() const;
    bool summaryDone() const { return m_summary && m_summary->done; }
    /// Whether the retention difference of the current head is loaded (or failed).
    bool retentionDone() const { return m_retention && m_retention->done; }
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
    std::shared_ptr<StatsSlot<CompareSummary>> m_summary;
    std::shared_ptr<StatsSlot<std::vector<float>>> m_retention;
    int m_retentionLayer = -1, m_retentionHead = -1;
    DivergingStrip m_lossStrip, m_retentionStrip;
};

}  // namespace gatescope::widgets
