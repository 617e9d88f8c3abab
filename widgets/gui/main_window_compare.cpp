// MainWindow and compare mode: trace B read in the background, the canvases A | B | A - B side
// by side in a splitter (the central widget), the Compare dock, and going back to one trace.
#include <QDockWidget>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>

#include "widgets/gui/compare_view.h"
#include "widgets/gui/diff_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

void MainWindow::openCompare(const QString& pathB) {
    if (!m_session) {
        emit compareOpened(false, "open trace A before comparing it with B");
        return;
    }
    openDocument("compare", pathB, "Could not open trace B",
                 [this](auto doc, const QString& error) {
                     if (!doc || !m_session) {
                         emit compareOpened(false, doc ? "trace A was closed" : error);
                         return;
                     }
                     startCompare(doc);
                     emit compareOpened(true, {});
                 });
}

void MainWindow::startCompare(std::shared_ptr<const TraceDocument> b) {
    closeCompare();
    m_compare = std::make_unique<CompareView>(*m_session, *m_canvas, b);
    takeCentralWidget();  // A's canvas moves into the splitter
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName("compareSplitter");
    splitter->setChildrenCollapsible(false);
    for (QWidget* w : {static_cast<QWidget*>(m_canvas), static_cast<QWidget*>(m_compare->canvasB()),
                       static_cast<QWidget*>(m_compare->diffHost())})
        if (w) splitter->addWidget(w);
    setCentralWidget(splitter);
    m_compareDock = new QDockWidget("Compare", this);
    m_compareDock->setObjectName("compareDock");
    m_compareDock->setWidget(m_compare->compareHost());
    addDockWidget(Qt::BottomDockWidgetArea, m_compareDock);
    if (auto* retention = findChild<QDockWidget*>("retentionDock"))
        tabifyDockWidget(retention, m_compareDock);
    m_compareDock->show();
    m_compareDock->raise();
    // Once laid out (sizes given before that are not kept): the maps keep most of the height.
    QTimer::singleShot(0, this, [this, splitter] {
        if (!m_compareDock || centralWidget() != splitter) return;
        resizeDocks({m_compareDock}, {250}, Qt::Vertical);
        // Equal canvases: the difference host also holds the divergence track, and followers
        // of the shared viewport draw what A's canvas sizes.
        const int n = splitter->count(),
                  track = m_compare->diffHost() ? DiffCanvasPanel::kTrackWidth : 0;
        const int base = (splitter->width() - (n - 1) * splitter->handleWidth() - track) / n;
        QList<int> sizes(n, base);
        sizes.back() += track;
        splitter->setSizes(sizes);
    });
    // Room for three maps: the side docks step aside (View menu brings them back).
    for (const char* name : {"overviewDock", "textDock", "readsDock"})
        if (auto* d = findChild<QDockWidget*>(name)) d->hide();
    if (m_gridDock) m_gridDock->hide();
    rebuildViewMenu();
    setWindowTitle(QString("gatescope - compare %1 (A) with %2 (B)%3")
                       .arg(QString::fromStdString(m_session->document().summary().path))
                       .arg(QString::fromStdString(b->summary().path))
                       .arg(m_compare->identical() ? "" : " - tokenizations differ"));
    statusBar()->showMessage(m_compare->identical()
                                 ? "Compare mode: A | B | difference, locked"
                                 : "Compare mode: the tokenizations differ (see the Compare dock)",
                             6000);
    repaintAll();
}

void MainWindow::closeCompare() {
    if (!m_compare) return;
    QWidget* splitter = takeCentralWidget();
    m_canvas->setParent(this);  // out of the splitter, before it goes
    m_compare.reset();          // deletes B's, the difference and the Compare dock's hosts
    delete splitter;
    delete m_compareDock;
    m_compareDock = nullptr;
    setCentralWidget(m_canvas);
    for (const char* name : {"overviewDock", "textDock", "readsDock"})
        if (auto* d = findChild<QDockWidget*>(name)) d->show();
    rebuildViewMenu();
}

}  // namespace gatescope::widgets
