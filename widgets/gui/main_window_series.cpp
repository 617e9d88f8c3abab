// MainWindow and checkpoint series: File > Open Checkpoint Series (or `gatescope open --series`),
// the report computed on the window's job pool, the Checkpoint Series dock (kept across traces)
// and opening a row's trace.
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

#include "core/analysis/stats_report.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/series_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::widgets {

namespace {

/// The series of `paths` as `gatescope stats --series [--attention]` computes it (loss and gate
/// statistics, attention statistics when asked; steps from the checkpoint folders' names, else
/// the order given).
Result<core::SeriesReport> computeSeries(const std::vector<std::string>& paths, bool attention,
                                         const std::atomic<bool>& cancelled) {
    std::vector<std::shared_ptr<const data::TraceReader>> readers;
    for (const std::string& path : paths) {
        auto reader = data::TraceReader::open(path);
        if (!reader) return reader.error();
        readers.push_back(std::move(*reader));
    }
    core::StatsOptions options;
    options.series = true;
    options.attention = attention;
    options.attentionOptions.cancel = &cancelled;
    auto report = core::statsReport(readers, options);
    if (!report) return report.error();
    if (!report->series)
        return Error{ErrorKind::Internal, "the statistics report has no series", {}, {}};
    return std::move(*report->series);
}

}  // namespace

void MainWindow::openSeries(const QStringList& paths, bool attention) {
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(QFileInfo(p).absoluteFilePath().toStdString());
    if (files.size() < 2) {
        showError("Could not open checkpoint series", "A series needs at least two traces.");
        emit seriesOpened(false, "A series needs at least two traces.");
        return;
    }
    if (m_seriesPanel) {
        m_seriesPanel->setPaths(files);
    } else {
        auto panel = std::make_unique<SeriesPanel>(files, [this](const std::string& path) {
            // After this frame: opening replaces the docks' hosts. The series stays in front,
            // so that the next row is a click away.
            QTimer::singleShot(0, this, [this, path] {
                connect(
                    this, &MainWindow::traceOpened, this,
                    [this](bool ok) {
                        if (ok && m_seriesDock) m_seriesDock->raise();
                    },
                    Qt::SingleShotConnection);
                openTrace(QString::fromStdString(path));
            });
        });
        panel->setAttentionAction([this](std::vector<std::string> traces) {
            QStringList again;
            for (const std::string& t : traces)
                again.push_back(QString::fromStdString(t));
            QTimer::singleShot(0, this, [this, again] { openSeries(again, true); });
        });
        m_seriesPanel = panel.get();
        auto* host = new ImGuiHost(std::move(panel));
        host->setObjectName("series");
        m_seriesDock = new QDockWidget("Checkpoint Series", this);
        m_seriesDock->setObjectName("seriesDock");
        m_seriesDock->setWidget(host);
        addDockWidget(Qt::BottomDockWidgetArea, m_seriesDock);
        if (auto* retention = findChild<QDockWidget*>("retentionDock"))
            tabifyDockWidget(retention, m_seriesDock);
        rebuildViewMenu();
    }
    m_seriesDock->show();
    m_seriesDock->raise();
    statusBar()->showMessage(QString("Computing the series of %1 traces ...").arg(files.size()));
    m_jobs.start(
        "series",
        [files, attention](const std::atomic<bool>& cancelled) {
            return computeSeries(files, attention, cancelled);
        },
        [this](Result<core::SeriesReport> report) {
            const bool ok = static_cast<bool>(report);
            const QString error =
                ok ? QString() : QString::fromStdString(report.error().describe());
            if (!ok) showError("Could not compute the checkpoint series", error);
            if (m_seriesPanel) {
                m_seriesPanel->setReport(std::move(report));
                if (auto* host = qobject_cast<ImGuiHost*>(m_seriesDock->widget()))
                    host->requestFrames();
            }
            statusBar()->showMessage(ok ? "Checkpoint series ready: click a row to open its trace"
                                        : "Could not compute the checkpoint series",
                                     4000);
            emit seriesOpened(ok, error);
        });
}

}  // namespace gatescope::widgets
