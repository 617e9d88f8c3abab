// OverviewPanel: a layers x heads grid of small maps to spot the interesting heads: each cell is
// the coarsest stored pyramid tile of the attention or decay map, or (retention mode) the head's
// mean retention as one colour. Clicking a cell selects that layer and head. GUI thread only.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/gui/tile_textures.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

class OverviewPanel final : public Panel {
public:
    enum class Mode { Attention, Decay, Retention };

    /// `session` must outlive the panel.
    explicit OverviewPanel(ViewerSession& session) : m_session(session) {}
    ~OverviewPanel() override;

    const char* title() const override { return "Overview"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override { m_textures.releaseAll(textures); }

private:
    void drawCell(ImDrawList* dl, GlTextures& gl, int layer, int head, ImVec2 p0, float side);
    void startRetentionSummary();

    struct Summary {  // mean retention per [layer][head]; NaN where the layer has no gates
        std::vector<std::vector<float>> mean;
        std::atomic<bool> ready{false};
    };

    ViewerSession& m_session;
    Mode m_mode = Mode::Attention;
    TileTextures m_textures{512};
    std::shared_ptr<Summary> m_summary;
    std::vector<TileKey> m_lastRequest;
};

}  // namespace gatescope::widgets
