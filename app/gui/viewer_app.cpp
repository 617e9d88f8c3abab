#include "app/gui/viewer_app.h"

#include <cstdio>

#include <QApplication>
#include <QSurfaceFormat>
#include <QTimer>

#include "app/engine_module.h"
#include "app/gui/viewer_script.h"
#include "widgets/gui/main_window.h"

namespace gatescope::app {

namespace {
std::chrono::steady_clock::time_point g_start = std::chrono::steady_clock::now();
}

std::chrono::steady_clock::time_point viewerStartTime() {
    return g_start;
}

int runViewer(int argc, char** argv, const ViewerOptions& options) {
    g_start = std::chrono::steady_clock::now();
    // ImGui's stock OpenGL 3 renderer: ask for a 3.3 core context everywhere (Mesa included).
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setSwapInterval(0);
    QSurfaceFormat::setDefaultFormat(format);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("gatescope");
    QCoreApplication::setApplicationName(options.script.empty() ? "gatescope"
                                                                : "gatescope-scripted");

    // The viewer's File > Run Model runs the engine's trace job (widgets/ links no model code).
    widgets::MainWindow window([](const core::TraceRequest& request,
                                  const core::TraceProgressFn& progress,
                                  const std::atomic<bool>* cancel) -> Result<core::TraceOutcome> {
        auto engine = loadEngine();
        if (!engine) return engine.error();
        return (*engine)->runTraceJob(request, progress, cancel, nullptr);
    });
    window.show();
    std::unique_ptr<ViewerScript> script;
    if (!options.script.empty()) {
        window.quietErrors = true;
        auto loaded = ViewerScript::load(options.script, window);
        if (!loaded) {
            std::fprintf(stderr, "gatescope: %s\n", loaded.error().describe().c_str());
            return 2;
        }
        script = std::move(*loaded);
        QTimer::singleShot(0, &window, [&] { QApplication::exit(script->run()); });
    }
    if (!options.compare.empty()) {
        if (script) script->expectCompare();
        const QString b = QString::fromStdString(options.compare);
        QObject::connect(
            &window, &widgets::MainWindow::traceOpened, &window,
            [&window, b](bool ok) {
                if (ok) window.openCompare(b);
            },
            Qt::SingleShotConnection);
    }
    if (!options.series.empty()) {
        QStringList paths;
        for (const std::string& path : options.series)
            paths.push_back(QString::fromStdString(path));
        window.openSeries(paths);
    }
    if (!options.trace.empty()) window.openTrace(QString::fromStdString(options.trace));
    return app.exec();
}

}  // namespace gatescope::app
