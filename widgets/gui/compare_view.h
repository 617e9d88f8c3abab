// CompareView: compare mode's state next to trace A's session: trace B's session and canvas, the
// difference session (tiles through differenceLoader) and its canvas with the divergence track,
// the Compare dock's panel, the ContextLink that locks layer, head, map, pooling and cursor, and
// the one Viewport all canvases draw through (zoom and pan locked; whoever moves it repaints the
// others). With differing tokenizations there is no difference view and B keeps its own
// viewport; the cursor is mapped through the byte-offset alignment (core::alignTokens) when the
// traces share their source text, else not linked; layer, head, map and colours stay locked.
// Owns its hosts (the window places them) and deletes them before the sessions they draw.
// GUI thread only.
#pragma once

#include <memory>

#include <QObject>

#include "widgets/gui/viewer_session.h"
#include "widgets/view/canvas_link.h"
#include "widgets/view/compare_tiles.h"
#include "widgets/view/context_link.h"

namespace gatescope::widgets {

class ComparePanel;
class DiffCanvasPanel;
class HeatmapCanvasPanel;
class ImGuiHost;

class CompareView : public QObject {
    Q_OBJECT
public:
    /// `a` and `canvasA` (trace A's session and its canvas host) must outlive this object.
    CompareView(ViewerSession& a, ImGuiHost& canvasA, std::shared_ptr<const TraceDocument> b);
    ~CompareView() override;

    bool identical() const { return m_identical; }
    ViewerSession& sessionB() { return *m_b; }
    /// The difference session, or null when the tokenizations differ.
    ViewerSession* diffSession() { return m_diff.get(); }
    ImGuiHost* canvasB() { return m_hostB; }
    ImGuiHost* diffHost() { return m_hostDiff; }
    ImGuiHost* compareHost() { return m_hostPanel; }
    HeatmapCanvasPanel& canvasPanelB();
    DiffCanvasPanel* diffPanel();
    ComparePanel& comparePanel();

    /// The colour range and pointed cell A, B (and the difference canvas) share.
    const CanvasLink& canvasLink() const { return *m_canvasLink; }
    /// Switches the difference view (tiles are keyed by mode, so switching back is instant).
    void setMode(DiffMode mode);

private:
    void repaintAll();
    void syncViewport();

    ViewerSession& m_a;
    ImGuiHost& m_canvasA;
    bool m_identical = false;
    std::unique_ptr<ViewerSession> m_b;
    std::unique_ptr<ViewerSession> m_diff;
    std::unique_ptr<ContextLink> m_link;
    std::shared_ptr<class Viewport> m_viewport;
    std::shared_ptr<CanvasLink> m_canvasLink;  // A's and B's range; the pointed cell
    uint64_t m_lastRangeSerial = 0;
    double m_lastTpp = 0, m_lastKey = 0, m_lastQuery = 0;  // the viewport as last broadcast
    ImGuiHost* m_hostB = nullptr;
    ImGuiHost* m_hostDiff = nullptr;
    ImGuiHost* m_hostPanel = nullptr;
};

}  // namespace gatescope::widgets
