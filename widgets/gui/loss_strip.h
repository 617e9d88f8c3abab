// LossStrip: the per-token loss drawn as a bar strip under the heatmap, sharing the canvas's
// x-axis (key positions), with the linked cursor. Binned with min/max so spikes survive at any
// zoom. Drawn with ImGui draw lists; GUI thread only.
#pragma once

#include <imgui.h>

#include "widgets/view/trace_document.h"
#include "widgets/view/view_context.h"
#include "widgets/view/viewport.h"

namespace gatescope::widgets {

class LossStrip {
public:
    /// Draws into [origin, origin + size) of the current window: x follows `view` (key axis).
    /// Clicking sets the cursor; hovering shows the token and its loss.
    void draw(const TraceDocument& doc, const Viewport& view, ViewContext& context, ImVec2 origin,
              ImVec2 size);

private:
    // Fixed per document so that the strip's scale does not jump while panning.
    float m_minLoss = 0, m_maxLoss = -1;
};

}  // namespace gatescope::widgets
