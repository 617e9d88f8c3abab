#include "app/gui/viewer_script.h"

#include "app/gui/viewer_app.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QMouseEvent>
#include <QPointer>
#include <QTimer>

#include "data/common/input_file.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/statistics_panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/token_search.h"
#include "widgets/view/token_summary.h"

namespace gatescope::app {

using namespace widgets;

Result<std::unique_ptr<ViewerScript>> ViewerScript::load(const std::string& path,
                                                         MainWindow& window) {
    auto text = data::readRegularFile(path, data::input_limits::kRecipe, "a viewer script");
    if (!text) return text.error();
    std::istringstream in(*text);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] != '#') lines.push_back(line);
    }
    auto script = std::unique_ptr<ViewerScript>(new ViewerScript(std::move(lines), window));
    QObject::connect(&window, &MainWindow::traceOpened, &window,
                     [s = script.get()](bool ok, QString error) {
                         s->m_opened = ok;
                         s->m_openFailed = !ok;
                         if (!ok) fmt::print("script: open failed: {}\n", error.toStdString());
                     });
    QObject::connect(&window, &MainWindow::seriesOpened, &window,
                     [s = script.get()](bool, QString) { s->m_seriesOpened = true; });
    QObject::connect(&window, &MainWindow::needleGridOpened, &window,
                     [s = script.get()](bool ok, QString error) {
                         s->m_gridOpened = ok;
                         s->m_openFailed = !ok;
                         if (!ok) fmt::print("script: grid failed: {}\n", error.toStdString());
                     });
    QObject::connect(&window, &MainWindow::compareOpened, &window,
                     [s = script.get()](bool ok, QString error) {
                         s->m_compareOpened = ok;
                         s->m_openFailed = !ok;
                         if (!ok) fmt::print("script: compare failed: {}\n", error.toStdString());
                     });
    return script;
}

bool ViewerScript::waitFor(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs) return false;
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

void ViewerScript::frames(int count) {
    // Every host on screen paints `count` more frames. Hidden ones (a dock behind a tab) and ones
    // with nothing on screen (a dock restored at zero height) never paint.
    QCoreApplication::processEvents();  // lay out what was just shown or raised
    // Guarded: a click that opens a trace replaces the docks' hosts while this waits.
    std::vector<std::pair<QPointer<ImGuiHost>, uint64_t>> targets;
    for (ImGuiHost* host : m_window.hosts()) {
        if (!host->isVisible() || host->visibleRegion().isEmpty()) continue;
        targets.emplace_back(host, host->frameCount() + static_cast<uint64_t>(count));
        host->requestFrames();
    }
    waitFor(
        [&] {
            bool all = true;
            for (auto& [host, target] : targets)
                if (host && host->frameCount() < target) all = false, host->update();
            return all;
        },
        10000);
}

bool ViewerScript::waitIdle(int timeoutMs) {
    if (!waitFor([&] { return m_opened || m_openFailed || m_gridOpened; }, timeoutMs) ||
        m_openFailed)
        return false;
    if (m_expectCompare &&
        (!waitFor([&] { return m_compareOpened || m_openFailed; }, timeoutMs) || m_openFailed))
        return false;
    return waitFor(
        [&] {
            frames(1);
            HeatmapCanvasPanel* canvas = m_window.canvasPanel();
            StatisticsPanel* stats = m_window.statisticsPanel();
            const bool statsShown =
                stats && m_window.findChild<QWidget*>("statistics")->isVisible();
            return (!canvas || canvas->complete()) &&
                   (!m_window.session() || m_window.session()->tiles().outstanding() == 0) &&
                   (!statsShown || stats->gatesDone()) && compareIdle();
        },
        timeoutMs);
}

bool ViewerScript::hoverCell(ImGuiHost* host, HeatmapCanvasPanel* canvas, ViewContext& ctx,
                             int64_t q, int64_t k, const std::string& name) {
    {  // bring the cell on screen when it is not
        Viewport& view = canvas->viewport();
        const double sx = view.screenX(k + 0.5), sy = view.screenY(q + 0.5);
        if (sx < 0 || sy < 0 || sx >= view.width() || sy >= view.height())
            view.centerOn(k + 0.5, q + 0.5);
    }
    if (!waitIdle()) return false;
    for (ImGuiHost* other : m_window.hosts()) {
        if (other == host) continue;
        QEvent leave(QEvent::Leave);  // the pointer is over one canvas only: no stale tooltips
        QApplication::sendEvent(other, &leave);
    }
    const Viewport& v = canvas->view();
    const QPointF at(canvas->canvasOrigin().x + v.screenX(k + 0.5),
                     canvas->canvasOrigin().y + v.screenY(q + 0.5));
    QMouseEvent move(QEvent::MouseMove, at, host->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(host, &move);
    frames(3);
    // At pooled levels the exact value follows when its tile lands (or never, without factors).
    waitFor(
        [&] {
            frames(1);
            return ctx.hover() && ctx.hover()->exact;
        },
        10000);
    const auto& hover = ctx.hover();
    if (!hover) return false;
    fmt::print("script: {} query={} key={} value={:.9g} exact={} level={}\n", name, hover->query,
               hover->key, hover->value, hover->exact ? 1 : 0, hover->level);
    return true;
}

int ViewerScript::run() {
    for (const std::string& line : m_lines) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string s; words >> s;)
            w.push_back(s);
        if (w.empty()) continue;
        fmt::print("script: > {}\n", line);
        std::fflush(stdout);
        if (w[0] == "quit") {
            // As File > Quit does: the window closes first, so it saves its layout.
            m_window.close();
            return w.size() > 1 ? std::stoi(w[1]) : 0;
        }
        if (!execute(w)) {
            fmt::print("script: FAILED: {}\n", line);
            return 1;
        }
    }
    return 0;
}

bool ViewerScript::execute(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    auto arg = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
    auto num = [&](size_t i) { return std::stod(arg(i)); };
    if (cmd == "wait") return waitIdle();
    if (cmd == "bench-first-frame") {
        // From process start (QApplication creation is close enough) to the first complete frame.
        if (!waitIdle()) return false;
        const double ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - viewerStartTime())
                              .count();
        fmt::print("script: first-complete-frame-ms {:.1f} open-ms {:.1f}\n", ms,
                   m_window.session()->document().openSeconds * 1000);
        fmt::print("script: gl {}\n", m_window.canvasHost()->glDescription());
        return true;
    }
    if (cmd == "screenshot") {
        frames(2);
        const bool ok = m_window.grab().save(QString::fromStdString(arg(1)));
        fmt::print("script: screenshot {} {}\n", arg(1), ok ? "saved" : "FAILED");
        return ok;
    }
    if (std::optional<bool> done = executeWindow(w)) return *done;
    if (std::optional<bool> done = executeCompare(w)) return *done;
    if (std::optional<bool> done = executeExport(w)) return *done;
    if (std::optional<bool> done = executeEvents(w)) return *done;
    if (std::optional<bool> done = executeWhatIfEntry(w)) return *done;
    if (std::optional<bool> done = executeReads(w)) return *done;
    if (std::optional<bool> done = executeView(w)) return *done;
    if (!m_window.session()) return false;
    ViewContext& ctx = m_window.session()->context();
    HeatmapCanvasPanel* canvas = m_window.canvasPanel();
    if (cmd == "fit")
        canvas->viewport().fitAll();
    else if (cmd == "zoom-cells") {
        canvas->viewport().setTokensPerPixel(1.0 / num(3));
        canvas->viewport().centerOn(num(2) + 0.5, num(1) + 0.5);
    } else if (cmd == "layer")
        ctx.setLayerHead(std::stoi(arg(1)), ctx.head());
    else if (cmd == "head")
        ctx.setLayerHead(ctx.layer(), std::stoi(arg(1)));
    else if (cmd == "map") {
        const auto map = parseMapView(arg(1));
        if (!map) return false;  // a misspelt map fails the script, not a silent attention map
        ctx.setMap(*map);
    } else if (cmd == "pool")
        ctx.setPool(arg(1) == "mean" ? data::Pool::Mean : data::Pool::Max);
    else if (cmd == "colormap" || cmd == "scale") {
        ColorSettings c = ctx.colors();
        if (cmd == "colormap") {
            auto k = parseColormap(arg(1));
            if (!k) return false;
            c.colormap = *k;
        } else {
            auto k = parseScale(arg(1));
            if (!k) return false;
            c.scale = *k;
        }
        ctx.setColors(c);
    } else if (cmd == "cursor")
        m_window.goToPosition(std::stoll(arg(1)));
    else if (cmd == "find" || cmd == "find-next") {
        // Find and Find Next of the Go menu: the status line they show.
        const QString status =
            m_window.findText(QString::fromStdString(arg(1)), cmd == "find-next");
        fmt::print("{} {} -> cursor={} status={}\n", cmd, arg(1), ctx.cursor(),
                   status.toStdString());
        if (status.startsWith("Not found")) return false;
    } else if (cmd == "bookmark")
        m_window.addBookmark(QString::fromStdString(arg(1)));
    else if (cmd == "token-summary")
        fmt::print("token-summary {}\n",
                   tokenSummary(m_window.session()->document(), ctx.cursor()));
    else if (cmd == "bookmark-remove")
        m_window.removeBookmark(static_cast<size_t>(std::stoul(arg(1))));
    else if (cmd == "bookmarks") {
        std::string list;
        for (const auto& b : ctx.bookmarks())
            list += fmt::format("{}{}@{}:L{}h{}", list.empty() ? "" : ",", b.name, b.token, b.layer,
                                b.head);
        fmt::print("bookmarks count={} list={}\n", ctx.bookmarks().size(), list);
    } else if (cmd == "hover") {
        return hoverCell(m_window.canvasHost(), canvas, ctx, std::stoll(arg(1)), std::stoll(arg(2)),
                         "hover");
    } else if (cmd == "idle-frames") {
        frames(2);  // let the settle frames after the last input pass
        uint64_t before = 0, after = 0;
        for (ImGuiHost* host : m_window.hosts())
            before += host->frameCount();
        waitFor([] { return false; }, static_cast<int>(num(1)));
        for (ImGuiHost* host : m_window.hosts())
            after += host->frameCount();
        fmt::print("script: idle-frames {} in {} ms\n", after - before, arg(1));
        return true;
    } else if (cmd == "bench-tiles") {
        benchTiles();
        return true;
    } else if (cmd == "bench-pan") {
        return benchPan(std::stoi(arg(1)), num(2), num(3));
    } else {
        fmt::print("script: unknown command {}\n", cmd);
        return false;
    }
    frames(2);
    return true;
}

}  // namespace gatescope::app
