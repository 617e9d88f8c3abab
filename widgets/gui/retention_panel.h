// RetentionPanel: what the gates keep. Scalar gates (FoX, GatedFWA, power): one track per head of
// the retention f over positions. Per-channel gates (Wall, GSA): (A) a channels x positions
// heatmap of the retention, (B) the timeline of the chosen channel, (C) the cumulative product
// from the cursor: how much of the cursor token survives later on. The tracks show the map's
// queries (the canvas's rows) until the wheel zooms them here, down to 8 positions across;
// hovers give the position, its token and the value. Right-click on a head's track or a channel's
// row: What if... for that head (and channel). Gates load on a worker. GUI thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/job_scope.h"
#include "widgets/view/position_window.h"
#include "widgets/view/retention_model.h"

namespace gatescope::widgets {

class RetentionPanel final : public Panel {
public:
    /// `session` must outlive the panel.
    explicit RetentionPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Retention"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override;
    /// The message drawn instead of tracks (e.g. "this model has no forget gates ..."), empty
    /// while loading or when tracks are drawn.
    std::string message() const {
        return m_data && !*m_data ? m_data->error().describe() : std::string();
    }
    /// The positions the tracks show now (scripts and tests).
    const PositionWindow& window() const { return m_window; }
    /// Right-click > What if...: called with the chosen channel (none: all of the head's), the
    /// shown layer and head already set. Without it the menu item is disabled.
    void setWhatIfAction(std::function<void(std::optional<int> channel)> action) {
        m_onWhatIf = std::move(action);
    }
    /// Where channel `channel`'s row of the heatmap was last drawn (its middle, in the host's
    /// pixels), or of head `channel`'s track for scalar gates; none before it was drawn.
    std::optional<ImVec2> rowCenter(int channel) const;
    /// Whether the gates are loaded (or failed to).
    bool loaded() const { return m_data.has_value(); }

private:
    void load(int layer, int head);
    void drawScalar(const RetentionData& data);
    void drawChannels(const RetentionData& data, GlTextures& gl);
    struct Track {
        ImVec2 center;
        bool rightClicked = false;
    };
    Track drawSeries(const char* id, const std::vector<float>& values, ImVec2 size, float lo,
                     float hi, ImU32 color);
    /// The mouse wheel over a track spanning [x0, x0 + width): zooms the window about the mouse.
    void zoomOnWheel(float x0, float width, int64_t n);
    /// The What if... menu, opened by a right-click this frame (`channel`: none for all).
    void whatIfMenu(bool open, std::optional<int> channel);

    ViewerSession& m_session;
    JobScope m_jobs;
    std::optional<Result<std::shared_ptr<const RetentionData>>> m_data;  // empty while loading
    int m_layer = -1, m_head = -1;
    int m_channel = 0;
    uint32_t m_texture = 0;
    int m_texWidth = 0;
    const RetentionData* m_texData = nullptr;
    PositionWindow m_texWindow;
    PositionWindow m_window;
    std::vector<float> m_cumulative;
    int64_t m_cumulativeFrom = -2;
    int m_cumulativeChannel = -1;
    std::function<void(std::optional<int>)> m_onWhatIf;
    std::optional<int> m_menuChannel;
    std::vector<ImVec2> m_rowCenters;  ///< per channel (or head), as last drawn
};

}  // namespace gatescope::widgets
