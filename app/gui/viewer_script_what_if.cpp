// ViewerScript's ways into What if... besides the map's: overview-what-if (right-click a head's
// cell in the Overview) and retention-what-if (a head's track or a channel's row in the Retention
// dock), each then picking the menu's first item. See viewer_script.h for the command list.
#include <string>

#include <fmt/core.h>

#include "app/gui/viewer_script.h"
#include "app/gui/viewer_script_docks.h"
#include "widgets/gui/overview_panel.h"
#include "widgets/gui/retention_panel.h"
#include "widgets/gui/what_if_dialog.h"

namespace gatescope::app {

using namespace widgets;

std::optional<bool> ViewerScript::executeWhatIfEntry(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    if (cmd != "overview-what-if" && cmd != "retention-what-if") return std::nullopt;
    // Right-click a head's cell in the Overview, or a head's track (scalar gates) or a
    // channel's row (per-channel gates) in the Retention dock, then the menu's first item.
    const bool overview = cmd == "overview-what-if";
    ImGuiHost* host = showDock(m_window, overview ? "overview" : "retention");
    RetentionPanel* retention = m_window.retentionPanel();
    if (!host || (overview ? !m_window.overviewPanel() : !retention)) return false;
    if (!overview && !waitFor([&] { return frames(1), retention->loaded(); }, 60000)) return false;
    frames(2);
    const int first = std::stoi(w.at(1));
    const auto at = overview ? m_window.overviewPanel()->cellCenter(first, std::stoi(w.at(2)))
                             : retention->rowCenter(first);
    if (!at) return false;
    sendClick(host, at->x, at->y, true);
    frames(2);
    // The menu opens at the pointer; its first item is the first line below it.
    sendClick(host, at->x + 24, at->y + 12);
    frames(2);
    WhatIfDialog* dialog = m_window.whatIfDialog();
    // Formatted here, not from a copied optional (GCC 12 warns it may be read uninitialized).
    std::string channel = "all";
    if (dialog && dialog->choice().channel) channel = std::to_string(*dialog->choice().channel);
    const std::string where =
        overview ? fmt::format("layer={} head={}", first, w.at(2)) : fmt::format("row={}", first);
    fmt::print("script: {} {} dialog={} channel={}\n", cmd, where,
               dialog ? dialog->windowTitle().toStdString() : std::string("none"), channel);
    return dialog != nullptr;
}

}  // namespace gatescope::app
