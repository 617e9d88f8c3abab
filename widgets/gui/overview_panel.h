// OverviewPanel: a layers x heads grid of small maps to spot the interesting heads: each cell is
// the coarsest stored pyramid tile of the attention or decay map, or (retention mode) the head's
// mean retention as one colour. Clicking a cell selects that layer and head. GUI thread only.
#pragma once

#include <map>

#include <functional>

#include <optional>
#include <vector>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/gui/tile_textures.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/job_scope.h"

namespace gatescope::widgets {

class OverviewPanel final : public Panel {
public:
    enum class Mode { Attention, Decay, Retention };

    /// `session` must outlive the panel.
    explicit OverviewPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Overview"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override { m_textures.releaseAll(textures); }
    /// Called by a cell's right-click menu item "What if..." (after the cell's head is shown).
    void setWhatIfAction(std::function<void()> action) { m_onWhatIf = std::move(action); }
    /// Centre of the cell of (layer, head) in host pixels as of the last frame (scripts).
    std::optional<ImVec2> cellCenter(int layer, int head) const;

private:
    void drawCell(ImDrawList* dl, GlTextures& gl, int layer, int head, ImVec2 p0, float side);
    void startRetentionSummary();

    ViewerSession& m_session;
    JobScope m_jobs;
    Mode m_mode = Mode::Attention;
    TileTextures m_textures{512};
    bool m_retentionRequested = false;
    /// Mean retention per [layer][head] (NaN where the layer has no gates), once computed.
    std::optional<std::vector<std::vector<float>>> m_meanRetention;
    std::vector<TileKey> m_lastRequest;
    std::function<void()> m_onWhatIf;
    std::map<std::pair<int, int>, ImVec2> m_cellCenters;
};

}  // namespace gatescope::widgets
