// ViewerScript's window-level commands: docks (show, raise), the Statistics dock's attention
// statistics, needle grids (open, click a cell). See viewer_script.h for the command list.
#include <algorithm>

#include <fmt/core.h>
#include <QApplication>
#include <QDockWidget>
#include <QMouseEvent>

#include "app/gui/viewer_script.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/needle_grid_panel.h"
#include "widgets/gui/statistics_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::app {

using namespace widgets;

namespace {

QDockWidget* findDock(MainWindow& window, const QString& name) {
    for (QDockWidget* d : window.findChildren<QDockWidget*>()) {
        if (d->objectName().compare(name + "Dock", Qt::CaseInsensitive) == 0 ||
            d->windowTitle().compare(name, Qt::CaseInsensitive) == 0)
            return d;
    }
    return nullptr;
}

}  // namespace

void ViewerScript::sendClick(QWidget* host, double x, double y, bool right) {
    // Move, press, release with frames between, as ImGui needs to see each state.
    const QPointF at(x, y);
    const Qt::MouseButton button = right ? Qt::RightButton : Qt::LeftButton;
    const QPointF global = host->mapToGlobal(at);
    QMouseEvent move(QEvent::MouseMove, at, global, Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(host, &move);
    frames(2);
    QMouseEvent press(QEvent::MouseButtonPress, at, global, button, button, Qt::NoModifier);
    QApplication::sendEvent(host, &press);
    frames(2);
    QMouseEvent release(QEvent::MouseButtonRelease, at, global, button, Qt::NoButton,
                        Qt::NoModifier);
    QApplication::sendEvent(host, &release);
    frames(2);
}

std::optional<bool> ViewerScript::executeWindow(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    auto arg = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
    if (cmd == "dock") {
        // The rest of the line is the name ("Needle Grid" has a space).
        std::string name = arg(1);
        for (size_t i = 2; i < w.size(); ++i)
            name += " " + w[i];
        QDockWidget* dock = findDock(m_window, QString::fromStdString(name));
        if (!dock) return false;
        dock->show();
        dock->raise();
        frames(2);
        if (!waitIdle()) return false;
        const QRect r(dock->mapTo(&m_window, QPoint(0, 0)), dock->size());
        fmt::print("script: dock {} x={} y={} w={} h={}\n", name, r.x(), r.y(), r.width(),
                   r.height());
        return dock->isVisible();
    }
    if (cmd == "layout" || cmd == "reset-layout") {
        if (cmd == "reset-layout") m_window.resetLayout();
        frames(2);
        if (!waitIdle()) return false;
        frames(2);
        // The central widget against the side docks (left and right areas, shown, docked).
        const QWidget* map = m_window.centralWidget();
        int sideMax = 0;
        for (QDockWidget* d : m_window.findChildren<QDockWidget*>()) {
            const Qt::DockWidgetArea area = m_window.dockWidgetArea(d);
            if (d->isVisible() && !d->isFloating() &&
                (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea))
                sideMax = std::max(sideMax, d->width());
        }
        fmt::print("script: layout window={}x{} map={}x{} side-dock-max={} shows-map={}\n",
                   m_window.width(), m_window.height(), map ? map->width() : 0,
                   map ? map->height() : 0, sideMax, m_window.layoutShowsMap() ? 1 : 0);
        return true;
    }
    if (cmd == "resize-dock") {
        // Drags a dock's separator as a user would: NAME to W pixels wide.
        QDockWidget* dock = findDock(m_window, QString::fromStdString(arg(1)));
        if (!dock) return false;
        m_window.resizeDocks({dock}, {std::stoi(arg(2))}, Qt::Horizontal);
        frames(2);
        return true;
    }
    if (cmd == "stats-attention") {
        StatisticsPanel* stats = m_window.statisticsPanel();
        if (!stats) return false;
        stats->computeAttention();
        if (!waitFor([&] { return frames(1), stats->attentionDone(); }, 120000)) return false;
        frames(3);
        fmt::print("script: stats gate-rows={} attention-rows={}\n", stats->gateRows(),
                   stats->attentionRows());
        return stats->attentionRows() > 0;
    }
    if (cmd == "open-grid") {
        m_gridOpened = false;
        m_window.openNeedleGrid(QString::fromStdString(arg(1)));
        return waitIdle();
    }
    if (cmd == "grid-click") {
        NeedleGridPanel* grid = m_window.needleGridPanel();
        if (!grid) return false;
        frames(2);
        const auto at = grid->cellCenter(std::stoll(arg(1)), std::stoi(arg(2)));
        if (!at) return false;
        m_opened = false;
        ImGuiHost* host = m_window.hosts().back();
        const QPoint inWindow = host->mapTo(&m_window, QPoint(int(at->x), int(at->y)));
        fmt::print("script: grid-click at x={} y={}\n", inWindow.x(), inWindow.y());
        sendClick(host, at->x, at->y);
        QEvent leave(QEvent::Leave);  // the pointer moves on to the map: no tooltip left over
        QApplication::sendEvent(host, &leave);
        if (!waitFor([&] { return m_opened || m_openFailed; }, 60000) || m_openFailed) return false;
        frames(3);  // the focus zoom applies after the canvas's first frame
        if (!waitIdle()) return false;
        ViewerSession& s = *m_window.session();
        const TokenRect v = m_window.canvasPanel()->view().visible();
        fmt::print(
            "script: opened {} tokens={} cursor={} keys={:.1f}:{:.1f} queries={:.1f}:{:.1f}\n",
            s.document().summary().path, s.document().n(), s.context().cursor(), v.x0, v.x1, v.y0,
            v.y1);
        return true;
    }
    return std::nullopt;
}

}  // namespace gatescope::app
