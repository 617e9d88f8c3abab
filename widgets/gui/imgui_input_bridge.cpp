#include "widgets/gui/imgui_input_bridge.h"

#include <cfloat>

#include <imgui.h>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

namespace gatescope::widgets {

namespace {

struct KeyPair {
    int qt;
    ImGuiKey imgui;
};
// Qt keys ImGui 1.86 needs mapped; their KeysDown index is 256 + position in this table.
const KeyPair kKeys[] = {
    {Qt::Key_Tab, ImGuiKey_Tab},
    {Qt::Key_Left, ImGuiKey_LeftArrow},
    {Qt::Key_Right, ImGuiKey_RightArrow},
    {Qt::Key_Up, ImGuiKey_UpArrow},
    {Qt::Key_Down, ImGuiKey_DownArrow},
    {Qt::Key_PageUp, ImGuiKey_PageUp},
    {Qt::Key_PageDown, ImGuiKey_PageDown},
    {Qt::Key_Home, ImGuiKey_Home},
    {Qt::Key_End, ImGuiKey_End},
    {Qt::Key_Insert, ImGuiKey_Insert},
    {Qt::Key_Delete, ImGuiKey_Delete},
    {Qt::Key_Backspace, ImGuiKey_Backspace},
    {Qt::Key_Space, ImGuiKey_Space},
    {Qt::Key_Return, ImGuiKey_Enter},
    {Qt::Key_Escape, ImGuiKey_Escape},
    {Qt::Key_Enter, ImGuiKey_KeyPadEnter},
    {Qt::Key_A, ImGuiKey_A},
    {Qt::Key_C, ImGuiKey_C},
    {Qt::Key_V, ImGuiKey_V},
    {Qt::Key_X, ImGuiKey_X},
    {Qt::Key_Y, ImGuiKey_Y},
    {Qt::Key_Z, ImGuiKey_Z},
};

ImGuiIO& ioOf(ImGuiContext* context) {
    ImGui::SetCurrentContext(context);
    return ImGui::GetIO();
}

}  // namespace

ImGuiInputBridge::ImGuiInputBridge(ImGuiContext* context) : m_context(context) {
    ImGuiIO& io = ioOf(m_context);
    for (size_t i = 0; i < std::size(kKeys); ++i)
        io.KeyMap[kKeys[i].imgui] = 256 + static_cast<int>(i);
}

int ImGuiInputBridge::keyIndex(int qtKey) {
    for (size_t i = 0; i < std::size(kKeys); ++i) {
        if (kKeys[i].qt == qtKey) return 256 + static_cast<int>(i);
    }
    return -1;
}

int ImGuiInputBridge::button(int qtButton) {
    switch (qtButton) {
        case Qt::LeftButton:
            return 0;
        case Qt::RightButton:
            return 1;
        case Qt::MiddleButton:
            return 2;
        default:
            return -1;
    }
}

void ImGuiInputBridge::setModifiers(int m) {
    ImGuiIO& io = ioOf(m_context);
    io.KeyCtrl = m & Qt::ControlModifier;
    io.KeyShift = m & Qt::ShiftModifier;
    io.KeyAlt = m & Qt::AltModifier;
    io.KeySuper = m & Qt::MetaModifier;
}

void ImGuiInputBridge::mouseMove(const QMouseEvent& e) {
    ImGuiIO& io = ioOf(m_context);
    io.MousePos =
        ImVec2(static_cast<float>(e.position().x()), static_cast<float>(e.position().y()));
    setModifiers(e.modifiers());
}

void ImGuiInputBridge::mousePress(const QMouseEvent& e) {
    mouseMove(e);
    const int b = button(e.button());
    if (b < 0) return;
    ImGui::GetIO().MouseDown[b] = true;
    m_pressedSinceFrame[static_cast<size_t>(b)] = true;
    m_releaseAfterFrame[static_cast<size_t>(b)] = false;
}

void ImGuiInputBridge::mouseRelease(const QMouseEvent& e) {
    mouseMove(e);
    const int b = button(e.button());
    if (b < 0) return;
    if (m_pressedSinceFrame[static_cast<size_t>(b)]) {
        m_releaseAfterFrame[static_cast<size_t>(b)] = true;  // let one frame see the press
    } else {
        ImGui::GetIO().MouseDown[b] = false;
    }
}

void ImGuiInputBridge::wheel(const QWheelEvent& e) {
    ImGuiIO& io = ioOf(m_context);
    io.MousePos =
        ImVec2(static_cast<float>(e.position().x()), static_cast<float>(e.position().y()));
    // One notch is 120 units of angleDelta; ImGui counts notches.
    io.MouseWheel += static_cast<float>(e.angleDelta().y()) / 120.f;
    io.MouseWheelH += static_cast<float>(e.angleDelta().x()) / 120.f;
    setModifiers(e.modifiers());
}

void ImGuiInputBridge::key(const QKeyEvent& e, bool down) {
    ImGuiIO& io = ioOf(m_context);
    setModifiers(e.modifiers());
    const int index = keyIndex(e.key());
    if (index >= 0) io.KeysDown[index] = down;
    if (down && !e.text().isEmpty() && e.text().at(0).isPrint()) {
        io.AddInputCharactersUTF8(e.text().toUtf8().constData());
    }
}

void ImGuiInputBridge::leave() {
    ioOf(m_context).MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

void ImGuiInputBridge::focusOut() {
    ImGuiIO& io = ioOf(m_context);
    for (bool& k : io.KeysDown)
        k = false;
    io.KeyCtrl = io.KeyShift = io.KeyAlt = io.KeySuper = false;
}

bool ImGuiInputBridge::afterFrame() {
    ImGuiIO& io = ioOf(m_context);
    bool again = false;
    for (size_t b = 0; b < 3; ++b) {
        m_pressedSinceFrame[b] = false;
        if (m_releaseAfterFrame[b]) {
            io.MouseDown[b] = false;
            m_releaseAfterFrame[b] = false;
            again = true;
        }
    }
    return again;
}

}  // namespace gatescope::widgets
