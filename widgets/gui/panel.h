// Panel: one ImGui view drawn inside an ImGuiHost (ImHex's View). A panel draws with ImGui calls
// into the current window, which fills the host; it owns its GL textures through the frame's
// GlTextures. GUI thread only; draw() runs inside the host's paintGL().
#pragma once

#include <functional>

namespace gatescope::widgets {

class GlTextures;

struct PanelFrame {
    GlTextures& textures;
    float width = 0;  ///< logical pixels
    float height = 0;
    bool wantsMoreFrames = false;  ///< set by the panel to get another frame (animations)
};

class Panel {
public:
    virtual ~Panel() = default;
    virtual const char* title() const = 0;
    /// Draws the panel's content. The host has begun a borderless ImGui window filling it.
    virtual void draw(PanelFrame& frame) = 0;
    /// The GL context is about to go: free every texture (the context is current).
    virtual void releaseGl(GlTextures& textures) {}
    /// A key pressed while the host has focus (`qtKey` a Qt::Key): true when the panel acted on
    /// it (the host then repaints and does not pass it to ImGui).
    virtual bool keyPressed(int qtKey, bool shift) { return false; }

    /// Set by the host: asks for a repaint. Safe to call from any thread (work finished on a
    /// worker calls it).
    void setRepaint(std::function<void()> repaint) { m_repaint = std::move(repaint); }

protected:
    /// A copy of the repaint callback, for work that may outlive the panel.
    std::function<void()> repaintCallback() const { return m_repaint; }
    void requestRepaint() const {
        if (m_repaint) m_repaint();
    }

private:
    std::function<void()> m_repaint;
};

}  // namespace gatescope::widgets
