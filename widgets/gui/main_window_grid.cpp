// MainWindow and needle grids: File > Open Needle Grid (or a .json path), the Needle Grid dock
// (kept across traces) and opening a cell's trace at its needle; the View menu of dock toggles.
#include <algorithm>

#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QOpenGLWidget>
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
    m_jobs.start(
        "needleGrid",
        [file = QFileInfo(path).absoluteFilePath().toStdString()](const std::atomic<bool>&) {
            return loadNeedleGrid(file);
        },
        [this, path](Result<NeedleGrid> grid) {
            if (!grid) {
                const QString error = QString::fromStdString(grid.error().describe());
                showError("Could not open needle grid", error);
                if (!quietErrors) showErrorBox("Could not open needle grid", error);
                emit needleGridOpened(false, error);
                return;
            }
            showNeedleGrid(std::make_shared<const NeedleGrid>(std::move(*grid)));
            rememberRecent(path);
            rebuildViewMenu();
            emit needleGridOpened(true, {});
        });
}

void MainWindow::showNeedleGrid(std::shared_ptr<const NeedleGrid> grid) {
    if (m_gridPanel) {
        m_gridPanel->setGrid(grid);
        if (auto* host = qobject_cast<ImGuiHost*>(m_gridDock->widget())) host->requestFrames();
    } else {
        auto panel = std::make_unique<NeedleGridPanel>(grid, [this](const NeedleGridCell& cell) {
            // After this frame: opening may replace the docks' hosts.
            QTimer::singleShot(0, this, [this, cell] { openNeedleCell(cell); });
        });
        m_gridPanel = panel.get();
        auto* host = new ImGuiHost(std::move(panel));
        host->setObjectName("needleGrid");
        m_gridDock = new QDockWidget("Needle Grid", this);
        m_gridDock->setObjectName("needleGridDock");
        m_gridDock->setWidget(host);
        addDockWidget(Qt::LeftDockWidgetArea, m_gridDock);
        // Wide enough for a few columns of readable cells (a new dock is narrow).
        resizeDocks({m_gridDock}, {420}, Qt::Horizontal);
    }
    m_gridDock->show();
    m_gridDock->raise();
    statusBar()->showMessage(QString("Needle grid: %1 cells").arg(grid->cells.size()), 4000);
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
    if (m_session) {
        m_viewMenu->addSeparator();
        m_viewMenu->addAction("&Reset Layout", this, [this] { resetLayout(); });
    }
    m_viewMenu->setEnabled(!m_viewMenu->isEmpty());
}

}  // namespace gatescope::widgets
