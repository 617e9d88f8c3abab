// DiffCanvasPanel: compare mode's difference view. A HeatmapCanvasPanel over the difference
// session (tiles A - B or log pA - log pB, loaded through differenceLoader, diverging colours)
// with, at its right edge, a track of the per-row divergences of attention for the rows on
// screen: KL(A||B) as bars, Jensen-Shannon as a line, computed exactly on the difference
// session's job pool (at most 256 sampled rows; one job at a time, the latest visible rows win).
// GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/view/compare_model.h"
#include "widgets/view/job_scope.h"

namespace gatescope::widgets {

class DiffCanvasPanel final : public Panel {
public:
    /// `diff` must outlive the panel; `a` and `b` are the two traces (same tokens).
    DiffCanvasPanel(ViewerSession& diff, std::shared_ptr<const data::TraceReader> a,
                    std::shared_ptr<const data::TraceReader> b);

    const char* title() const override { return "Difference"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override { m_canvas.releaseGl(textures); }
    bool keyPressed(int qtKey, bool shift) override { return m_canvas.keyPressed(qtKey, shift); }

    HeatmapCanvasPanel& canvas() { return m_canvas; }
    /// The divergences of the rows last requested, once computed (null while computing).
    std::shared_ptr<const std::vector<RowDivergence>> divergences() const;
    /// Whether the rows on screen have their divergences (or failed).
    bool divergencesCurrent() const;

    static constexpr int kMaxRows = 256;
    /// Width of the divergence track right of the map (pixels).
    static constexpr int kTrackWidth = 130;

private:
    struct Request {
        int layer = -1, head = -1;
        std::vector<int64_t> rows;
        bool operator==(const Request&) const = default;
    };
    void updateRequest();
    void drawTrack(ImVec2 origin, ImVec2 size);

    ViewerSession& m_diff;
    HeatmapCanvasPanel m_canvas;
    std::shared_ptr<const data::TraceReader> m_a, m_b;
    JobScope m_jobs;
    Request m_wanted;
    std::shared_ptr<const std::vector<RowDivergence>> m_result;
    Request m_resultFor;
    std::string m_error;
};

}  // namespace gatescope::widgets
