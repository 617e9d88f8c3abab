// The Qt -> ImGui 1.86 input bridge, with an ImGui context and no display or GL (Qt events are
// plain objects; ImGui frames run without a renderer once the font atlas is built).
#include <gtest/gtest.h>
#include <imgui.h>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include "widgets/gui/imgui_input_bridge.h"

using gatescope::widgets::ImGuiInputBridge;

namespace {

struct ImGuiFixture : ::testing::Test {
    ImGuiContext* ctx = nullptr;
    void SetUp() override {
        ctx = ImGui::CreateContext();
        ImGui::SetCurrentContext(ctx);
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(400, 300);
        io.IniFilename = nullptr;
        unsigned char* pixels;
        int w, h;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    void TearDown() override { ImGui::DestroyContext(ctx); }
    void frame() {
        ImGui::SetCurrentContext(ctx);
        ImGui::GetIO().DeltaTime = 1.f / 60;
        ImGui::NewFrame();
        ImGui::EndFrame();
    }
};

QMouseEvent mouse(QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons buttons) {
    return QMouseEvent(type, at, at, button, buttons, Qt::NoModifier);
}

}  // namespace

TEST_F(ImGuiFixture, QuickClickSurvivesUntilAFrameSawThePress) {
    ImGuiInputBridge bridge(ctx);
    bridge.mousePress(mouse(QEvent::MouseButtonPress, {10, 20}, Qt::LeftButton, Qt::LeftButton));
    bridge.mouseRelease(mouse(QEvent::MouseButtonRelease, {10, 20}, Qt::LeftButton, Qt::NoButton));
    ImGui::SetCurrentContext(ctx);
    EXPECT_TRUE(ImGui::GetIO().MouseDown[0]);  // held for the next frame
    frame();
    EXPECT_TRUE(ImGui::IsMouseClicked(ImGuiMouseButton_Left));
    EXPECT_TRUE(bridge.afterFrame());  // the deferred release: one more frame wanted
    frame();
    EXPECT_TRUE(ImGui::IsMouseReleased(ImGuiMouseButton_Left));
    EXPECT_FALSE(bridge.afterFrame());
    EXPECT_FLOAT_EQ(ImGui::GetIO().MousePos.x, 10.f);
    EXPECT_FLOAT_EQ(ImGui::GetIO().MousePos.y, 20.f);
}

TEST_F(ImGuiFixture, WheelNotchesKeysTextAndLeave) {
    ImGuiInputBridge bridge(ctx);
    QWheelEvent wheel({5, 5}, {5, 5}, {}, {0, 240}, Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    bridge.wheel(wheel);
    ImGui::SetCurrentContext(ctx);
    EXPECT_FLOAT_EQ(ImGui::GetIO().MouseWheel, 2.f);
    EXPECT_TRUE(ImGui::GetIO().KeyCtrl);
    QKeyEvent left(QEvent::KeyPress, Qt::Key_Left, Qt::NoModifier);
    bridge.key(left, true);
    const int index = ImGuiInputBridge::keyIndex(Qt::Key_Left);
    ASSERT_GE(index, 0);
    EXPECT_EQ(ImGui::GetIO().KeyMap[ImGuiKey_LeftArrow], index);
    EXPECT_TRUE(ImGui::GetIO().KeysDown[index]);
    bridge.key(QKeyEvent(QEvent::KeyRelease, Qt::Key_Left, Qt::NoModifier), false);
    EXPECT_FALSE(ImGui::GetIO().KeysDown[index]);
    EXPECT_EQ(ImGuiInputBridge::keyIndex(Qt::Key_F35), -1);
    bridge.key(QKeyEvent(QEvent::KeyPress, Qt::Key_A, Qt::NoModifier, "a"), true);
    EXPECT_EQ(ImGui::GetIO().InputQueueCharacters.Size, 1);
    frame();
    bridge.leave();
    EXPECT_LT(ImGui::GetIO().MousePos.x, -1e30f);
}
