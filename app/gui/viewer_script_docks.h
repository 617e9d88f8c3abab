// Private to app/gui's ViewerScript files: showing a dock the script is about to drive.
#pragma once

#include <QDockWidget>
#include <QString>

#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"

namespace gatescope::app {

/// The host of the dock whose panel is named `name` ("gateEvents": dock "gateEventsDock"),
/// shown and raised; null when the window has no such dock.
inline widgets::ImGuiHost* showDock(widgets::MainWindow& window, const QString& name) {
    auto* dock = window.findChild<QDockWidget*>(name + "Dock");
    widgets::ImGuiHost* host = nullptr;
    for (widgets::ImGuiHost* h : window.hosts())
        if (h->objectName() == name) host = h;
    if (!dock || !host) return nullptr;
    dock->show();
    dock->raise();
    return host;
}

}  // namespace gatescope::app
