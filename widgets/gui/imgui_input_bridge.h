// ImGuiInputBridge: feeds Qt input events to a Dear ImGui 1.86 context (which predates the
// event-queue API: it reads io.MousePos, io.MouseDown[], io.MouseWheel, io.KeysDown[] and
// io.KeyMap[]). Holds no Qt widget: the host calls it from its event handlers; tests call it
// without a display. GUI thread only; the ImGui context must outlive the bridge.
#pragma once

#include <array>

struct ImGuiContext;
class QMouseEvent;
class QWheelEvent;
class QKeyEvent;

namespace gatescope::widgets {

class ImGuiInputBridge {
public:
    /// Sets `context`'s io.KeyMap to this bridge's key indices.
    explicit ImGuiInputBridge(ImGuiContext* context);

    void mouseMove(const QMouseEvent& event);
    void mousePress(const QMouseEvent& event);
    void mouseRelease(const QMouseEvent& event);
    void wheel(const QWheelEvent& event);
    void key(const QKeyEvent& event, bool down);
    /// The mouse left the widget: position becomes "unknown" (-FLT_MAX).
    void leave();
    void focusOut();

    /// Call after each ImGui frame: applies releases that arrived before the frame saw the
    /// press (so quick clicks are not lost). Returns true when another frame is needed.
    bool afterFrame();

    /// The io.KeysDown index used for a Qt key code, or -1 when the key is not mapped.
    static int keyIndex(int qtKey);

private:
    void setModifiers(int qtModifiers);
    static int button(int qtButton);

    ImGuiContext* m_context;
    std::array<bool, 3> m_pressedSinceFrame{};
    std::array<bool, 3> m_releaseAfterFrame{};
};

}  // namespace gatescope::widgets
