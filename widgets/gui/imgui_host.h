// ImGuiHost: a QOpenGLWidget hosting one Dear ImGui context (1.86, stock OpenGL 3 renderer) that
// draws one Panel. Repaints only on demand: input events, requestFrames() (e.g. when a tile
// lands) and a couple of settle frames after input; never on a timer. GUI thread only.
#pragma once

#include <memory>
#include <string>

#include <QElapsedTimer>
#include <QOpenGLFunctions>
#include <QOpenGLWidget>

#include "widgets/gui/gl_textures.h"
#include "widgets/gui/imgui_input_bridge.h"
#include "widgets/gui/panel.h"

struct ImGuiContext;

namespace gatescope::widgets {

class ImGuiHost : public QOpenGLWidget, protected QOpenGLFunctions {
    Q_OBJECT
public:
    /// Takes ownership of `panel`.
    explicit ImGuiHost(std::unique_ptr<Panel> panel, QWidget* parent = nullptr);
    ~ImGuiHost() override;

    Panel& panel() { return *m_panel; }
    /// Schedules a repaint plus `extra` follow-up frames (ImGui settles layout in two).
    void requestFrames(int extra = 1);
    /// Frames painted so far (for tests and benchmarks).
    uint64_t frameCount() const { return m_frames; }
    /// Milliseconds the last paintGL took (CPU side, up to the render call).
    double lastFrameMs() const { return m_lastFrameMs; }
    /// GL_VENDOR / GL_RENDERER / GL_VERSION of the host's context (empty before the first paint).
    const std::string& glDescription() const { return m_glDescription; }

signals:
    void framePainted();

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    void releaseGl();

    std::unique_ptr<Panel> m_panel;
    ImGuiContext* m_context = nullptr;
    std::unique_ptr<ImGuiInputBridge> m_bridge;
    std::unique_ptr<GlTextures> m_textures;
    bool m_glReady = false;
    int m_extraFrames = 0;
    uint64_t m_frames = 0;
    double m_lastFrameMs = 0;
    double m_lastTime = 0;
    std::string m_glDescription;
    QElapsedTimer m_clock;
};

}  // namespace gatescope::widgets
