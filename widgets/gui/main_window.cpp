#include "widgets/gui/main_window.h"

#include <fmt/format.h>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include "widgets/gui/compare_view.h"
#include "widgets/gui/context_panel.h"
#include "widgets/gui/gate_events_panel.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/needle_grid_panel.h"
#include "widgets/gui/overview_panel.h"
#include "widgets/gui/post_to_thread.h"
#include "widgets/gui/reads_panel.h"
#include "widgets/gui/retention_panel.h"
#include "widgets/gui/series_panel.h"
#include "widgets/gui/statistics_panel.h"
#include "widgets/gui/text_panel.h"
#include "widgets/gui/view_toolbar.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

namespace {
/// Reading traces and needle grids: short jobs, one per kind at a time.
constexpr int kOpenThreads = 2;
}  // namespace

MainWindow::MainWindow(core::TraceJobFunction runTrace, QWidget* parent)
    : QMainWindow(parent),
      m_runTrace(std::move(runTrace)),
      m_jobPool(kOpenThreads, postToThreadOf(*this)) {
    setWindowTitle("gatescope");
    setAcceptDrops(true);
    resize(1400, 900);
    m_toolbar = new ViewToolbar(this);
    addToolBar(m_toolbar);
    m_hoverLabel = new QLabel(this);
    m_hoverLabel->setObjectName("hoverLabel");
    statusBar()->addWidget(m_hoverLabel, 1);
    auto* hint =
        new QLabel("Open a trace: File > Open, drop a file here, or `gatescope FILE`", this);
    hint->setAlignment(Qt::AlignCenter);
    setCentralWidget(hint);
    buildMessages();
    buildMenus();
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
}

MainWindow::~MainWindow() {
    m_compare.reset();  // its hosts and sessions, before A's
    // Hosts (children) go first so that their panels never see a dead session.
    for (ImGuiHost* host : m_hosts)
        delete host;
    m_hosts.clear();
}

HeatmapCanvasPanel* MainWindow::canvasPanel() {
    return m_canvas ? static_cast<HeatmapCanvasPanel*>(&m_canvas->panel()) : nullptr;
}

QList<ImGuiHost*> MainWindow::hosts() const {
    QList<ImGuiHost*> all = m_hosts;
    if (m_compare)
        for (ImGuiHost* host :
             {m_compare->canvasB(), m_compare->diffHost(), m_compare->compareHost()})
            if (host) all.push_back(host);
    for (QDockWidget* kept : {m_gridDock, m_seriesDock})
        if (kept)
            if (auto* host = qobject_cast<ImGuiHost*>(kept->widget())) all.push_back(host);
    return all;
}

StatisticsPanel* MainWindow::statisticsPanel() {
    for (ImGuiHost* host : m_hosts)
        if (host->objectName() == "statistics")
            return static_cast<StatisticsPanel*>(&host->panel());
    return nullptr;
}

ContextPanel* MainWindow::contextPanel() {
    for (ImGuiHost* host : m_hosts)
        if (host->objectName() == "context") return static_cast<ContextPanel*>(&host->panel());
    return nullptr;
}

GateEventsPanel* MainWindow::gateEventsPanel() {
    for (ImGuiHost* host : m_hosts)
        if (host->objectName() == "gateEvents")
            return static_cast<GateEventsPanel*>(&host->panel());
    return nullptr;
}

ReadsPanel* MainWindow::readsPanel() {
    for (ImGuiHost* host : m_hosts)
        if (host->objectName() == "reads") return static_cast<ReadsPanel*>(&host->panel());
    return nullptr;
}

void MainWindow::openTrace(const QString& path) {
    if (path.endsWith(".json", Qt::CaseInsensitive)) {
        openNeedleGrid(path);
        return;
    }
    openDocument(
        "trace", path, "Could not open trace", [this, path](auto doc, const QString& error) {
            if (!doc) {
                emit traceOpened(false, error);
                return;
            }
            install(doc);
            if (m_seriesPanel)
                m_seriesPanel->setCurrentTrace(QFileInfo(path).absoluteFilePath().toStdString());
            rememberRecent(path);
            applyPendingFocus(path);
            emit traceOpened(true, {});
        });
}

void MainWindow::openDocument(
    const std::string& job, const QString& path, const QString& failureTitle,
    std::function<void(std::shared_ptr<const TraceDocument>, const QString&)> done) {
    statusBar()->showMessage("Opening " + path + " ...");
    m_jobs.start(
        job,
        [file = path.toStdString()](const std::atomic<bool>&) { return TraceDocument::open(file); },
        [this, path, failureTitle, done](Result<std::shared_ptr<const TraceDocument>> doc) {
            if (!doc) {
                const QString error = QString::fromStdString(doc.error().describe());
                showError(failureTitle, error);
                if (!quietErrors) showErrorBox(failureTitle, error);
                done(nullptr, error);
                return;
            }
            done(*doc, {});
        });
}

void MainWindow::install(std::shared_ptr<const TraceDocument> document) {
    closeCompare();
    for (ImGuiHost* host : m_hosts)
        host->deleteLater();
    m_hosts.clear();
    for (QDockWidget* old : findChildren<QDockWidget*>()) {
        // These outlive traces.
        if (old == m_gridDock || old == m_messagesDock || old == m_seriesDock) continue;
        removeDockWidget(old);
        old->setObjectName({});  // placeDocks() finds docks by name: only the new ones
        old->deleteLater();
    }
    m_toolbar->bind(nullptr);
    auto old = std::move(m_session);  // hosts die later; keep their session alive until then
    if (old) {
        ViewerSession* raw = old.release();
        raw->deleteLater();
    }
    m_session = std::make_unique<ViewerSession>(document, TileService::Options{});
    ViewerSession& s = *m_session;
    m_canvas = new ImGuiHost(std::make_unique<HeatmapCanvasPanel>(s), this);
    m_canvas->setObjectName("canvas");
    // Right-click > Export Figure... on the canvas: the File > Export dialog, after this frame.
    canvasPanel()->setExportAction(
        [this] { QTimer::singleShot(0, this, [this] { showExportDialog(); }); });
    if (m_runTrace)
        canvasPanel()->setWhatIfAction(
            [this] { QTimer::singleShot(0, this, [this] { showWhatIf(); }); });
    setCentralWidget(m_canvas);
    m_canvas->setFocus();  // the map's keys work without a click first
    m_hosts = {m_canvas};
    QList<QDockWidget*> docks;
    auto dock = [&](const char* name, const char* title, std::unique_ptr<Panel> panel,
                    Qt::DockWidgetArea area) {
        auto* host = new ImGuiHost(std::move(panel));
        host->setObjectName(name);
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QString(name) + "Dock");
        d->setWidget(host);
        addDockWidget(area, d);
        docks.push_back(d);
        m_hosts.push_back(host);
    };
    auto overview = std::make_unique<OverviewPanel>(s);
    if (m_runTrace)
        overview->setWhatIfAction(
            [this] { QTimer::singleShot(0, this, [this] { showWhatIf(); }); });
    m_overviewPanel = overview.get();
    dock("overview", "Overview", std::move(overview), Qt::LeftDockWidgetArea);
    dock("text", "Text", std::make_unique<TextPanel>(s), Qt::RightDockWidgetArea);
    dock("reads", "Reads", std::make_unique<ReadsPanel>(s), Qt::BottomDockWidgetArea);
    auto retention = std::make_unique<RetentionPanel>(s);
    if (m_runTrace)
        retention->setWhatIfAction([this](std::optional<int> channel) {
            QTimer::singleShot(0, this, [this, channel] { showWhatIf(channel); });
        });
    m_retentionPanel = retention.get();
    dock("retention", "Retention", std::move(retention), Qt::BottomDockWidgetArea);
    dock("statistics", "Statistics", std::make_unique<StatisticsPanel>(s),
         Qt::BottomDockWidgetArea);
    dock("gateEvents", "Gate Events", std::make_unique<GateEventsPanel>(s),
         Qt::BottomDockWidgetArea);
    dock("context", "Effective Context", std::make_unique<ContextPanel>(s),
         Qt::BottomDockWidgetArea);
    restoreLayout();
    if (m_gridDock) {
        // A needle grid stays in sight, on the left with the Overview, so other cells are a
        // click away; the map keeps the centre.
        tabifyDockWidget(docks[0], m_gridDock);
        m_gridDock->show();
        m_gridDock->raise();
        // Once the new central widget is laid out (sizes given before that are not kept).
        QTimer::singleShot(0, this, [this] {
            if (m_gridDock) resizeDocks({m_gridDock}, {360}, Qt::Horizontal);
        });
    }
    m_toolbar->bind(&s);
    rebuildViewMenu();
    connect(&s, &ViewerSession::tilesArrived, this, [this] {
        repaintAll();
        checkTileErrors();
    });
    m_lastTileError.clear();
    connect(&s, &ViewerSession::contextChanged, this, [this] {
        repaintAll();
        showHover();
        rebuildBookmarksMenu();
    });
    loadBookmarks();
    setWindowTitle(QString("gatescope - %1 (%2 tokens, %3)")
                       .arg(QString::fromStdString(document->summary().path))
                       .arg(document->n())
                       .arg(QString::fromStdString(document->summary().modelType)));
    statusBar()->showMessage(
        QString("Opened in %1 ms").arg(document->openSeconds * 1000, 0, 'f', 1), 4000);
}

void MainWindow::repaintAll() {
    for (ImGuiHost* host : m_hosts)
        host->requestFrames();
}

void MainWindow::showHover() {
    if (!m_session) return;
    const auto& hover = m_session->context().hover();
    if (!hover) {
        m_hoverLabel->clear();
        return;
    }
    m_hoverLabel->setText(QString::fromStdString(fmt::format(
        "query {}  key {}  value {:.6g}{}", hover->query, hover->key, hover->value,
        hover->exact ? "  (exact)" : fmt::format("  (pooled, level {})", hover->level))));
}

void MainWindow::goToPosition(int64_t token) {
    if (m_session) m_session->context().focusOn(token);
}

void MainWindow::addBookmark(const QString& name) {
    if (!m_session) return;
    ViewContext& ctx = m_session->context();
    ctx.addBookmark(
        Bookmark{name.toStdString(), std::max<int64_t>(0, ctx.cursor()), ctx.layer(), ctx.head()});
    saveBookmarks();
}

void MainWindow::removeBookmark(size_t index) {
    if (!m_session) return;
    m_session->context().removeBookmark(index);
    saveBookmarks();
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > 10)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile()) openTrace(urls.front().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveLayout();
    QMainWindow::closeEvent(event);
}

}  // namespace gatescope::widgets
