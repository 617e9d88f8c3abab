// MainWindow and needle grids: File > Open Needle Grid (or a .json path), the Needle Grid dock
// (kept across traces) and opening a cell's trace at its needle; the View menu of dock toggles.
#include <algorithm>
#include <thread>

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QOpenGLWidget>
#include <QPointer>
#include <QStatusBar>
#include <QTimer>

#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/needle_grid_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

void MainWindow::openNeedleGrid(const QString& path) {
    statusBar()->showMessage("Opening needle grid " + path + " ...");
    QPointer<MainWindow> self(this);
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    std::thread([self, file, path] {
        auto grid = loadNeedleGrid(file);
        QMetaObject::invokeMethod(
            qApp,
            [self, grid = std::move(grid), path]() mutable {
                if (!self) return;
                if (!grid) {
                    const QString error = QString::fromStdString(grid.error().describe());
                    self->statusBar()->showMessage("Could not open " + path);
                    if (!self->quietErrors)
                        QMessageBox::warning(self, "Could not open needle grid", error);
                    emit self->needleGridOpened(false, error);
                    return;
                }
                auto shared = std::make_shared<const NeedleGrid>(std::move(*grid));
                if (self->m_gridPanel) {
                    self->m_gridPanel->setGrid(shared);
                    if (auto* host = qobject_cast<ImGuiHost*>(self->m_gridDock->widget()))
                        host->requestFrames();
                } else {
                    MainWindow* w = self;
                    auto panel =
                        std::make_unique<NeedleGridPanel>(shared, [w](const NeedleGridCell& cell) {
                            // After this frame: opening may replace the docks' hosts.
                            QTimer::singleShot(0, w, [w, cell] { w->openNeedleCell(cell); });
                        });
                    w->m_gridPanel = panel.get();
                    auto* host = new ImGuiHost(std::move(panel));
                    host->setObjectName("needleGrid");
                    w->m_gridDock = new QDockWidget("Needle Grid", w);
                    w->m_gridDock->setObjectName("needleGridDock");
                    w->m_gridDock->setWidget(host);
                    w->addDockWidget(Qt::LeftDockWidgetArea, w->m_gridDock);
                    // Wide enough for a few columns of readable cells (a new dock is narrow).
                    w->resizeDocks({w->m_gridDock}, {420}, Qt::Horizontal);
                }
                self->m_gridDock->show();
                self->m_gridDock->raise();
                self->rememberRecent(path);
                self->rebuildViewMenu();
                self->statusBar()->showMessage(
                    QString("Needle grid: %1 cells").arg(shared->cells.size()), 4000);
                emit self->needleGridOpened(true, {});
            },
            Qt::QueuedConnection);
    }).detach();
}

void MainWindow::openNeedleCell(const NeedleGridCell& cell) {
    if (cell.trace.empty()) {
        statusBar()->showMessage("This cell has no trace", 4000);
        return;
    }
    m_pendingCell = std::make_unique<NeedleGridCell>(cell);
    openTrace(QString::fromStdString(cell.trace.string()));
}

void MainWindow::applyPendingFocus(const QString& path) {
    if (!m_pendingCell || !m_session) return;
    const NeedleGridCell cell = *m_pendingCell;
    m_pendingCell.reset();
    if (QFileInfo(path).absoluteFilePath() !=
        QFileInfo(QString::fromStdString(cell.trace.string())).absoluteFilePath())
        return;
    const NeedleFocus focus = needleFocus(cell, m_session->document().n());
    m_session->context().focusOn(focus.cursor);
    if (HeatmapCanvasPanel* canvas = canvasPanel()) {
        canvas->fitTokens(TokenRect{double(focus.colBegin), double(focus.rowBegin),
                                    double(focus.colEnd), double(focus.rowEnd)});
        m_canvas->requestFrames();
    }
    statusBar()->showMessage(QString("Needle at tokens [%1, %2); answer from token %3")
                                 .arg(cell.needleBegin)
                                 .arg(cell.needleEnd)
                                 .arg(cell.answerStart()),
                             6000);
}

void MainWindow::rebuildViewMenu() {
    m_viewMenu->clear();
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        if (d->parent() != this) continue;
        m_viewMenu->addAction(d->toggleViewAction());
    }
    m_viewMenu->setEnabled(!m_viewMenu->isEmpty());
}

}  // namespace gatescope::widgets
