// ViewerScript's Reads dock commands: show the cursor's row or column and print what the dock
// lists and paints; click a listed token. See viewer_script.h for the command list.
#include <cmath>
#include <string>

#include <fmt/core.h>
#include <QDockWidget>

#include "app/gui/viewer_script.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/reads_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::app {

using namespace widgets;

namespace {

ImGuiHost* readsHost(MainWindow& window) {
    for (ImGuiHost* host : window.hosts())
        if (host->objectName() == "reads") return host;
    return nullptr;
}

void printReads(const TokenReads& r, MainWindow& window, ImGuiHost* host, const ReadsPanel& panel) {
    double sum = 0;
    for (float w : r.weights)
        sum += w;
    std::string top;
    for (const ReadsEntry& e : r.top)
        top += fmt::format("{}{}:{:.9g}:{:.9g}:{:.9g}", top.empty() ? "" : ",", e.position,
                           e.weight, e.content, e.forget);
    fmt::print("script: reads mode={} layer={} head={} position={} sum={:.9g} split={} top={}\n",
               readsModeName(r.mode), r.layer, r.head, r.position, sum, r.split ? 1 : 0, top);
    if (r.top.empty()) return;
    const int64_t strongest = r.top[0].position;
    const auto rect = panel.paintedRect(strongest);
    if (!rect) return;
    const QPoint at = host->mapTo(&window, QPoint(int(std::lround(rect->x)), int(rect->y)));
    const uint32_t argb = readsColor(readsHeat(r.top[0].weight, r.maxWeight));
    fmt::print("script: reads-painted position={} x={} y={} w={} h={} color={:06x}\n", strongest,
               at.x(), at.y(), int(rect->z - rect->x), int(rect->w - rect->y), argb & 0xFFFFFF);
}

}  // namespace

std::optional<bool> ViewerScript::executeReads(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    auto arg = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
    if (cmd != "reads" && cmd != "reads-click") return std::nullopt;
    ReadsPanel* panel = m_window.readsPanel();
    ImGuiHost* host = readsHost(m_window);
    auto* dock = m_window.findChild<QDockWidget*>("readsDock");
    if (!panel || !host || !dock) return false;
    dock->show();
    dock->raise();
    if (cmd == "reads") {
        if (arg(1) != "row" && arg(1) != "column") return false;
        panel->setMode(arg(1) == "row" ? ReadsMode::Row : ReadsMode::Column);
    } else {
        frames(2);
        const size_t rank = std::stoul(arg(1));
        const auto at = panel->listedRowCenter(rank);
        const TokenReads* r = panel->reads();
        if (!at || !r || rank >= r->top.size()) return false;
        const int64_t position = r->top[rank].position;
        sendClick(host, at->x, at->y);
        const int64_t cursor = m_window.session()->context().cursor();
        fmt::print("script: reads-click rank={} position={} cursor={}\n", rank, position, cursor);
        if (cursor != position) return false;
    }
    if (!waitFor([&] { return frames(1), panel->reads() || panel->error(); }, 120000)) return false;
    frames(3);
    if (!waitIdle()) return false;
    if (panel->error()) {
        fmt::print("script: reads error={}\n", panel->error()->describe());
        return false;
    }
    printReads(*panel->reads(), m_window, host, *panel);
    return true;
}

}  // namespace gatescope::app
