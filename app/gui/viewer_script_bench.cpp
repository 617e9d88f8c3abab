// ViewerScript's benchmark command: frame times while panning, tile latencies, resident memory.
#include <unistd.h>
#include <algorithm>
#include <fstream>
#include <string>

#include <fmt/core.h>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include "app/gui/viewer_script.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::app {

namespace {

double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

bool ViewerScript::benchPan(int frames, double dx, double dy) {
    widgets::ImGuiHost* host = m_window.canvasHost();
    widgets::HeatmapCanvasPanel* canvas = m_window.canvasPanel();
    const size_t latenciesBefore = m_window.session()->tiles().latencies().size();
    std::vector<double> wall, cpu;
    double rssMax = 0, rssFirst = residentMiB();
    QElapsedTimer timer;
    for (int f = 0; f < frames; ++f) {
        timer.restart();
        canvas->viewport().panPixels(dx, dy);
        // Wait for exactly the next frame (no polling granularity in the measurement).
        QEventLoop loop;
        QObject::connect(host, &widgets::ImGuiHost::framePainted, &loop, &QEventLoop::quit);
        QTimer::singleShot(10000, &loop, &QEventLoop::quit);
        const uint64_t target = host->frameCount() + 1;
        host->requestFrames(0);
        loop.exec();
        if (host->frameCount() < target) return false;
        wall.push_back(timer.nsecsElapsed() / 1e6);
        cpu.push_back(host->lastFrameMs());
        if (f % 25 == 0) rssMax = std::max(rssMax, residentMiB());
        if ((f + 1) % std::max(1, frames / 8) == 0) {
            fmt::print("script: rss-mib at frame {}: {:.0f} (tile cache {:.0f} MiB)\n", f + 1,
                       residentMiB(), m_window.session()->tiles().cache().bytes() / 1048576.0);
        }
    }
    const double rssEnd = residentMiB();
    rssMax = std::max(rssMax, rssEnd);
    auto all = m_window.session()->tiles().latencies();
    std::vector<double> lat(all.begin() + static_cast<long>(latenciesBefore), all.end());
    for (double& l : lat)
        l *= 1000;
    fmt::print(
        "script: pan frames={} wall-ms p50={:.2f} p90={:.2f} p99={:.2f} max={:.2f}; "
        "paint-cpu-ms p50={:.2f} p99={:.2f}\n",
        frames, percentile(wall, 0.5), percentile(wall, 0.9), percentile(wall, 0.99),
        percentile(wall, 1.0), percentile(cpu, 0.5), percentile(cpu, 0.99));
    fmt::print("script: tiles loaded={} latency-ms p50={:.1f} p90={:.1f} p99={:.1f} max={:.1f}\n",
               lat.size(), percentile(lat, 0.5), percentile(lat, 0.9), percentile(lat, 0.99),
               percentile(lat, 1.0));
    fmt::print(
        "script: rss-mib start={:.0f} max={:.0f} end={:.0f}; tile cache {:.0f} MiB ({} tiles)\n",
        rssFirst, rssMax, rssEnd, m_window.session()->tiles().cache().bytes() / 1048576.0,
        m_window.session()->tiles().cache().size());
    return true;
}

void ViewerScript::benchTiles() {
    std::vector<double> lat = m_window.session()->tiles().latencies();
    for (double& l : lat)
        l *= 1000;
    fmt::print(
        "script: all tiles loaded={} latency-ms p50={:.1f} p90={:.1f} p99={:.1f} max={:.1f}\n",
        lat.size(), percentile(lat, 0.5), percentile(lat, 0.9), percentile(lat, 0.99),
        percentile(lat, 1.0));
}

}  // namespace gatescope::app
