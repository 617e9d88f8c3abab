#include "widgets/gui/imgui_host.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <QApplication>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QPointer>
#include <QTimer>

namespace gatescope::widgets {

ImGuiHost::ImGuiHost(std::unique_ptr<Panel> panel, QWidget* parent)
    : QOpenGLWidget(parent), m_panel(std::move(panel)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // Qt's QSettings keeps the layout
    io.ConfigWindowsMoveFromTitleBarOnly = true;
    ImGui::StyleColorsDark();
    m_bridge = std::make_unique<ImGuiInputBridge>(m_context);
    ImGui::SetCurrentContext(previous);
    m_clock.start();
    QPointer<ImGuiHost> self(this);
    m_panel->setRepaint([self] {
        QMetaObject::invokeMethod(
            qApp,
            [self] {
                if (self) self->requestFrames();
            },
            Qt::QueuedConnection);
    });
}

ImGuiHost::~ImGuiHost() {
    releaseGl();
    ImGui::DestroyContext(m_context);
}

void ImGuiHost::releaseGl() {
    if (!m_glReady) return;
    makeCurrent();
    ImGui::SetCurrentContext(m_context);
    m_panel->releaseGl(*m_textures);
    ImGui_ImplOpenGL3_Shutdown();
    doneCurrent();
    m_glReady = false;
}

void ImGuiHost::initializeGL() {
    initializeOpenGLFunctions();
    ImGui::SetCurrentContext(m_context);
    const bool core = context()->format().profile() == QSurfaceFormat::CoreProfile;
    ImGui_ImplOpenGL3_Init(core ? "#version 330 core" : "#version 130");
    m_textures = std::make_unique<GlTextures>(static_cast<QOpenGLFunctions*>(this));
    auto str = [this](GLenum name) {
        const GLubyte* v = glGetString(name);
        return v ? std::string(reinterpret_cast<const char*>(v)) : std::string("?");
    };
    m_glDescription = str(GL_VENDOR) + " / " + str(GL_RENDERER) + " / " + str(GL_VERSION);
    m_glReady = true;
    // The context goes with the widget's top level (re-parenting, docking): free GL objects.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] { releaseGl(); });
}

void ImGuiHost::requestFrames(int extra) {
    m_extraFrames = std::max(m_extraFrames, extra);
    update();
}

void ImGuiHost::paintGL() {
    if (!m_glReady) return;
    QElapsedTimer timer;
    timer.start();
    ImGui::SetCurrentContext(m_context);
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width()), static_cast<float>(height()));
    const float dpr = static_cast<float>(devicePixelRatioF());
    io.DisplayFramebufferScale = ImVec2(dpr, dpr);
    const double now = m_clock.nsecsElapsed() / 1e9;
    io.DeltaTime = static_cast<float>(std::clamp(now - m_lastTime, 1e-4, 0.1));
    m_lastTime = now;

    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(4, 4));
    ImGui::Begin(m_panel->title(), nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings);
    PanelFrame frame{*m_textures, io.DisplaySize.x, io.DisplaySize.y};
    m_panel->draw(frame);
    ImGui::End();
    ImGui::PopStyleVar(2);
    ImGui::Render();

    glViewport(0, 0, static_cast<int>(width() * dpr), static_cast<int>(height() * dpr));
    glClearColor(0.09f, 0.09f, 0.1f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++m_frames;
    m_lastFrameMs = timer.nsecsElapsed() / 1e6;

    const bool release = m_bridge->afterFrame();
    if (release || frame.wantsMoreFrames || m_extraFrames > 0) {
        if (m_extraFrames > 0) --m_extraFrames;
        QTimer::singleShot(0, this, [this] { update(); });
    }
    emit framePainted();
}

void ImGuiHost::mouseMoveEvent(QMouseEvent* e) {
    m_bridge->mouseMove(*e);
    requestFrames();
}

void ImGuiHost::mousePressEvent(QMouseEvent* e) {
    m_bridge->mousePress(*e);
    requestFrames();
}

void ImGuiHost::mouseReleaseEvent(QMouseEvent* e) {
    m_bridge->mouseRelease(*e);
    requestFrames();
}

void ImGuiHost::mouseDoubleClickEvent(QMouseEvent* e) {
    m_bridge->mousePress(*e);
    requestFrames();
}

void ImGuiHost::wheelEvent(QWheelEvent* e) {
    m_bridge->wheel(*e);
    e->accept();
    requestFrames();
}

void ImGuiHost::keyPressEvent(QKeyEvent* e) {
    if (m_panel->keyPressed(e->key(), e->modifiers() & Qt::ShiftModifier)) {
        e->accept();
        requestFrames();
        return;
    }
    m_bridge->key(*e, true);
    requestFrames();
}

void ImGuiHost::keyReleaseEvent(QKeyEvent* e) {
    m_bridge->key(*e, false);
    requestFrames();
}

void ImGuiHost::leaveEvent(QEvent*) {
    m_bridge->leave();
    requestFrames();
}

void ImGuiHost::focusOutEvent(QFocusEvent*) {
    m_bridge->focusOut();
    requestFrames();
}

}  // namespace gatescope::widgets
