// MainWindow: the viewer's Qt shell. Owns the menus (File, Go, View), the toolbar, the docks and
// the ImGui hosts (heatmap canvas in the centre; overview, retention, text and statistics docks;
// the needle grid dock, which outlives traces), recent
// files and window state (QSettings), drag and drop of traces. Opening a trace reads it on the
// window's job pool and installs a new ViewerSession when done. GUI thread only.
#pragma once

#include <optional>

#include <functional>
#include <memory>

#include <QMainWindow>
#include <QPointer>
#include <QString>

#include "core/trace/trace_request.h"
#include "widgets/view/job_pool.h"
#include "widgets/view/job_scope.h"
#include "widgets/view/needle_grid.h"

class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;

namespace gatescope::widgets {

class CompareView;
class HeatmapCanvasPanel;
class ImGuiHost;
class NeedleGridPanel;
class SeriesPanel;
class ReadsPanel;
class GateEventsPanel;
class ContextPanel;
class OverviewPanel;
class RetentionPanel;
class StatisticsPanel;
class ViewToolbar;
class ViewerSession;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `runTrace` runs File > Run Model on Text's jobs (app/ passes the engine's runTraceJob);
    /// empty: that action is disabled, as in a viewer built without models.
    explicit MainWindow(core::TraceJobFunction runTrace = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens `path` in the background; traceOpened() reports the outcome. A `.json` path is a
    /// needle grid: openNeedleGrid().
    void openTrace(const QString& path);
    /// Reads a `gatescope niah` grid.json in the background and shows it in the Needle Grid dock
    /// (which stays across traces); needleGridOpened() reports the outcome.
    void openNeedleGrid(const QString& path);
    /// Opens a grid cell's trace and, once open, moves the cursor to the needle and zooms the
    /// canvas to the answer rows x the columns around the needle.
    void openNeedleCell(const NeedleGridCell& cell);
    NeedleGridPanel* needleGridPanel() { return m_gridPanel; }
    /// Traces of one text from successive checkpoints of one run (File > Open Checkpoint
    /// Series..., `gatescope open --series`): computes their series in the background and shows
    /// it in the Checkpoint Series dock (kept across traces; a row opens its trace);
    /// seriesOpened() reports the outcome. `attention`: with attention statistics (sink mass,
    /// attention horizon, prunable fraction; exact, O(N^2) per head and trace).
    void openSeries(const QStringList& paths, bool attention = false);
    SeriesPanel* seriesPanel() { return m_seriesPanel; }
    /// Compare mode (File > Compare With..., `gatescope open A.h5 B.h5`): reads trace B in the
    /// background and shows it next to the open trace A, locked, with the difference view and
    /// the Compare dock; compareOpened() reports the outcome. A new trace ends compare mode.
    void openCompare(const QString& pathB);
    /// Compare mode's state, or null when it is off.
    CompareView* compareView() { return m_compare.get(); }
    StatisticsPanel* statisticsPanel();
    /// The Reads dock's panel (what the cursor's token reads), or null without a trace.
    ReadsPanel* readsPanel();
    /// The Gate Events dock's panel, or null without a trace.
    GateEventsPanel* gateEventsPanel();
    /// The Effective Context dock's panel, or null without a trace.
    ContextPanel* contextPanel();
    /// The Overview dock's panel, or null without a trace.
    OverviewPanel* overviewPanel() { return m_session ? m_overviewPanel : nullptr; }
    /// The Retention dock's panel, or null without a trace.
    RetentionPanel* retentionPanel() { return m_session ? m_retentionPanel : nullptr; }

    ViewerSession* session() { return m_session.get(); }
    ImGuiHost* canvasHost() { return m_canvas; }
    HeatmapCanvasPanel* canvasPanel();
    /// Every ImGui host (canvas first; the needle grid's last), for repaints and tests.
    QList<ImGuiHost*> hosts() const;

    /// Go menu actions, also used by scripts.
    void goToPosition(int64_t token);
    /// Bookmarks (the cursor's token, layer and head) are kept per trace in the settings and
    /// come back when the trace is opened again (widgets/view/bookmark_store.h).
    void addBookmark(const QString& name);
    void removeBookmark(size_t index);
    /// Go to Position with typed text: moves the cursor there, or (returned, and in the status
    /// bar) says which positions the trace has. Empty when it moved.
    QString goToText(const QString& text);
    /// Find (next = false) or Find Next: moves the cursor to the next match of `text` after it
    /// (wrapping) and returns the status line ("'x': match k of n, at token t" or "Not found").
    QString findText(const QString& text, bool next);
    /// File > Export Figure: the export dialog preset to the current layer, head, map, colormap
    /// and the keys on screen.
    void showExportDialog();
    /// Right-click on the map > What if...: the dialog for the shown layer and head (with
    /// `channel` chosen: the Retention dock's channel heatmap); when its trace is done, compare
    /// mode with it as B (main_window_what_if.cpp).
    void showWhatIf(std::optional<int> channel = std::nullopt);
    /// The open What if... dialog, or null.
    class WhatIfDialog* whatIfDialog();
    /// Help > Keyboard Shortcuts (F1): the map's keys and the window's shortcuts.
    void showShortcuts();
    /// Shows `message` in full in the Messages dock (selectable, wrapped, kept across traces)
    /// and points the status bar at it (main_window_messages.cpp).
    void showError(const QString& where, const QString& message);
    /// A warning box (window-modal, not blocking) whose text can be selected and copied.
    void showErrorBox(const QString& title, const QString& message);
    /// Everything the Messages dock holds.
    QString messagesText() const;
    /// View > Reset Layout: every dock back to its default place and size; the map keeps most
    /// of the window (main_window_layout.cpp).
    void resetLayout();
    /// Whether the central widget (the map, or compare mode's canvases) is shown at a usable
    /// size: at least a third of the window and no narrower than any side dock.
    bool layoutShowsMap() const;

signals:
    /// ok: the session is installed; otherwise `error` says why (also shown in a message box
    /// unless `quietErrors` is set).
    void traceOpened(bool ok, QString error);
    void needleGridOpened(bool ok, QString error);
    void seriesOpened(bool ok, QString error);
    void compareOpened(bool ok, QString error);

public:
    bool quietErrors = false;

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void buildMessages();
    /// A new tile error of the session goes to the Messages dock.
    void checkTileErrors();
    void install(std::shared_ptr<const class TraceDocument> document);
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void rebuildBookmarksMenu();
    void loadBookmarks();
    void saveBookmarks();
    void promptBookmark();
    void repaintAll();
    void showHover();
    void find(bool next);
    void rebuildViewMenu();
    /// The default layout, then the saved one over it, then guardLayout().
    void restoreLayout();
    /// Every dock in its default area (tabs, visibility), and its default size.
    void placeDocks();
    void sizeDocks();
    /// Once the layout settles: back to the default layout if it hides the map.
    void guardLayout();
    /// Window geometry and (when it shows the map) the dock layout, to QSettings.
    void saveLayout();
    void applyPendingFocus(const QString& path);
    /// Shows `grid` in the Needle Grid dock, creating the dock the first time.
    void showNeedleGrid(std::shared_ptr<const NeedleGrid> grid);
    /// Reads `path` on a worker as job `job` (a newer one under that key supersedes it);
    /// `done(document or null, error)` runs on the GUI thread unless the window is gone (errors
    /// also go to a message box titled `failureTitle`).
    void openDocument(
        const std::string& job, const QString& path, const QString& failureTitle,
        std::function<void(std::shared_ptr<const class TraceDocument>, const QString&)> done);
    void startCompare(std::shared_ptr<const class TraceDocument> b);
    void closeCompare();

    core::TraceJobFunction m_runTrace;
    std::unique_ptr<ViewerSession> m_session;
    ImGuiHost* m_canvas = nullptr;
    QList<ImGuiHost*> m_hosts;
    ViewToolbar* m_toolbar;
    QMenu* m_recentMenu;
    QMenu* m_bookmarksMenu;
    QMenu* m_viewMenu;
    QDockWidget* m_gridDock = nullptr;
    QDockWidget* m_messagesDock = nullptr;
    QPlainTextEdit* m_messages = nullptr;
    std::string m_lastTileError;
    NeedleGridPanel* m_gridPanel = nullptr;
    QDockWidget* m_seriesDock = nullptr;
    OverviewPanel* m_overviewPanel = nullptr;    ///< owned by its dock's host, of the session
    RetentionPanel* m_retentionPanel = nullptr;  ///< likewise
    SeriesPanel* m_seriesPanel = nullptr;
    /// A grid cell whose trace is being opened: its focus applies when that trace is installed.
    std::unique_ptr<NeedleGridCell> m_pendingCell;
    QLabel* m_hoverLabel;
    std::unique_ptr<CompareView> m_compare;  // after m_session: destroyed before it
    QDockWidget* m_compareDock = nullptr;
    QPointer<class WhatIfDialog> m_whatIf;
    QString m_lastSearch;
    int64_t m_lastMatch = -1;
    JobPool m_jobPool;  // opening traces and needle grids; joined when the window goes
    JobScope m_jobs{m_jobPool};
};

}  // namespace gatescope::widgets
