// ContextPanel, the Effective Context dock: a layers x heads by position map of each head's
// horizon, the gate's memory horizon or the attention horizon (the distance that holds 90% of a
// query's attention mass), coloured by log2(1 + tokens), with the trace's own loss per position
// bin drawn under it on the same x-axis (widgets/view/context_map.h, the `stats` report's
// effective context). Gate horizons are computed on the session's job pool when the dock is
// first shown; attention horizons (exact, O(N^2) per head) when asked for, cancellable. Hover a
// cell for its values; click it to show that layer and head with the cursor in that bin. GUI
// thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <imgui.h>

#include "widgets/gui/panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/context_map.h"
#include "widgets/view/job_scope.h"

namespace gatescope::widgets {

class ContextPanel final : public Panel {
public:
    /// `session` must outlive the panel.
    explicit ContextPanel(ViewerSession& session) : m_session(session), m_jobs(session.jobs()) {}

    const char* title() const override { return "Effective Context"; }
    void draw(PanelFrame& frame) override;
    void releaseGl(GlTextures& textures) override;

    /// Computes the map (attention horizons too when `attention`); the first draw asks for gates.
    void compute(bool attention);
    /// The map once computed (null while computing or after an error).
    const ContextMap* map() const { return m_map ? &*m_map : nullptr; }
    /// The error of the last computation, else empty.
    const std::string& message() const { return m_message; }
    bool computing() const;
    HorizonKind kind() const { return m_kind; }
    void setKind(HorizonKind kind);
    /// Shows row `row`'s layer and head and puts the cursor in the middle of bin `bin`.
    void open(size_t row, size_t bin);
    /// Where the last frame drew cell (row, bin) (host pixels); none before it was drawn.
    std::optional<ImVec2> cellCenter(size_t row, size_t bin) const;

private:
    void drawMap(GlTextures& gl);
    void drawLoss(ImVec2 origin, float width, float height);

    ViewerSession& m_session;
    JobScope m_jobs;
    bool m_started = false;
    std::optional<ContextMap> m_map;
    std::string m_message;
    HorizonKind m_kind = HorizonKind::Gate;
    uint32_t m_texture = 0;
    const ContextMap* m_texMap = nullptr;
    HorizonKind m_texKind = HorizonKind::Gate;
    std::optional<ImVec2> m_origin;  // the map's top-left in the last frame
    ImVec2 m_cell{0, 0};             // one cell's size in the last frame
};

}  // namespace gatescope::widgets
