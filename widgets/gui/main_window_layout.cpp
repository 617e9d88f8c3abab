// MainWindow's dock layout: the default arrangement (also View > Reset Layout), restoring the
// saved one, and the guard that no layout, saved or dragged, ever hides the map: a restored or
// resized layout that leaves the central widget narrower than a side dock (or under a third of
// the window) is replaced by the default one, and such a layout is never saved.
#include <algorithm>

#include <QDockWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"

namespace gatescope::widgets {

namespace {
/// The smallest map a layout may leave (QMainWindow's layout honours minimum sizes).
constexpr int kMinMapWidth = 320, kMinMapHeight = 240;
}  // namespace

void MainWindow::resetLayout() {
    if (!m_session) return;
    placeDocks();
    sizeDocks();
    QTimer::singleShot(0, this, [this] { sizeDocks(); });
}

void MainWindow::placeDocks() {
    auto find = [this](const char* name) { return findChild<QDockWidget*>(name); };
    QDockWidget* overview = find("overviewDock");
    QDockWidget* text = find("textDock");
    QDockWidget* reads = find("readsDock");
    QDockWidget* retention = find("retentionDock");
    QDockWidget* statistics = find("statisticsDock");
    QDockWidget* events = find("gateEventsDock");
    QDockWidget* context = find("contextDock");
    auto place = [this](QDockWidget* d, Qt::DockWidgetArea area) {
        if (!d) return;
        d->setFloating(false);
        addDockWidget(area, d);
    };
    place(overview, Qt::LeftDockWidgetArea);
    place(text, Qt::RightDockWidgetArea);
    place(reads, Qt::BottomDockWidgetArea);
    place(retention, Qt::BottomDockWidgetArea);
    place(statistics, Qt::BottomDockWidgetArea);
    place(events, Qt::BottomDockWidgetArea);
    place(context, Qt::BottomDockWidgetArea);
    if (m_compareDock) place(m_compareDock, Qt::BottomDockWidgetArea);
    if (m_gridDock) place(m_gridDock, Qt::LeftDockWidgetArea);
    if (m_messagesDock) place(m_messagesDock, Qt::BottomDockWidgetArea);
    if (m_seriesDock) place(m_seriesDock, Qt::BottomDockWidgetArea);
    if (retention && statistics) tabifyDockWidget(retention, statistics);
    if (retention && reads) tabifyDockWidget(retention, reads);
    if (retention && events) tabifyDockWidget(retention, events);
    if (retention && context) tabifyDockWidget(retention, context);
    if (retention && m_compareDock) tabifyDockWidget(retention, m_compareDock);
    if (retention && m_messagesDock) tabifyDockWidget(retention, m_messagesDock);
    if (retention && m_seriesDock) tabifyDockWidget(retention, m_seriesDock);
    if (overview && m_gridDock) tabifyDockWidget(overview, m_gridDock);
    // Compare mode keeps the side docks out of the way (View menu brings them back).
    for (QDockWidget* d : {overview, text, reads, events, context})
        if (d) d->setVisible(!m_compare);
    for (QDockWidget* d : {retention, statistics, m_compareDock})
        if (d) d->show();
    if (m_gridDock) m_gridDock->setVisible(!m_compare);
    if (retention) retention->raise();
    if (m_compareDock) m_compareDock->raise();
    if (m_gridDock && !m_compare) m_gridDock->raise();
}

void MainWindow::sizeDocks() {
    // Side docks take about a fifth of the width each, the bottom a quarter of the height; the
    // map keeps the rest. Sizes given before the layout settles are not kept: resetLayout()
    // applies them again once it has.
    const int w = std::max(width(), 800), h = std::max(height(), 600);
    QList<QDockWidget*> side;
    QList<int> widths;
    for (const char* name : {"overviewDock", "needleGridDock", "textDock"}) {
        auto* d = findChild<QDockWidget*>(name);
        if (d && d->isVisible()) side.push_back(d), widths.push_back(w / 5);
    }
    if (!side.isEmpty()) resizeDocks(side, widths, Qt::Horizontal);
    if (auto* retention = findChild<QDockWidget*>("retentionDock"))
        resizeDocks({retention}, {h / 4}, Qt::Vertical);
}

bool MainWindow::layoutShowsMap() const {
    const QWidget* map = centralWidget();
    if (!map || !map->isVisible()) return false;
    if (map->width() < std::min(kMinMapWidth, width() / 3) ||
        map->height() < std::min(kMinMapHeight, height() / 3))
        return false;
    for (const QDockWidget* d : findChildren<QDockWidget*>()) {
        if (!d->isVisible() || d->isFloating()) continue;
        const Qt::DockWidgetArea area = dockWidgetArea(const_cast<QDockWidget*>(d));
        if ((area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) &&
            d->width() > map->width())
            return false;
    }
    return true;
}

void MainWindow::restoreLayout() {
    if (m_canvas) m_canvas->setMinimumSize(kMinMapWidth, kMinMapHeight);
    placeDocks();
    // The saved dock layout, by object name; without one, the default sizes. Restored now and
    // again once the new central widget is laid out: restored before that, Qt hands the side
    // docks the map's width (the map vanished on the second launch).
    const QByteArray saved = QSettings().value("window/state").toByteArray();
    const bool restored = restoreState(saved);
    if (!restored) sizeDocks();
    QTimer::singleShot(0, this, [this, saved, restored] {
        if (!m_session) return;
        if (restored)
            restoreState(saved);
        else
            sizeDocks();
        // An empty Messages dock saved while shown stays out of the way until an error.
        if (m_messagesDock && m_messages && m_messages->document()->isEmpty())
            m_messagesDock->hide();
        guardLayout();
    });
}

void MainWindow::guardLayout() {
    // Checked once the layout has settled (after this event and the resizes it causes), and
    // again a moment later before acting: a central widget that was just replaced (compare
    // mode's splitter) is not laid out yet.
    QWidget* central = centralWidget();
    QTimer::singleShot(0, this, [this, central] {
        if (!m_session || centralWidget() != central || layoutShowsMap()) return;
        QTimer::singleShot(250, this, [this, central] {
            if (!m_session || centralWidget() != central || layoutShowsMap()) return;
            resetLayout();
            statusBar()->showMessage(
                "The saved dock layout hid the map: the default layout is back", 6000);
        });
    });
}

void MainWindow::saveLayout() {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    // A layout that hides the map is not kept (the next launch would start without a map).
    if (m_session && layoutShowsMap()) settings.setValue("window/state", saveState());
}

}  // namespace gatescope::widgets
