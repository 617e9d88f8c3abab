// ViewerScript's commands of the tables that lead to positions and traces: the Gate Events dock
// (print what it lists after a search, click a row) and the Checkpoint Series dock (print its
// rows, click one to open its trace). See viewer_script.h for the command list.
#include <filesystem>
#include <string>

#include <fmt/core.h>
#include <QDockWidget>

#include "app/gui/viewer_script.h"
#include "app/gui/viewer_script_docks.h"
#include "widgets/gui/context_panel.h"
#include "widgets/gui/gate_events_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/series_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::app {

using namespace widgets;

std::optional<bool> ViewerScript::executeEvents(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    if (cmd == "series" || cmd == "series-click") return executeSeriesCommand(w);
    if (cmd == "context" || cmd == "context-click") return executeContextCommand(w);
    if (cmd != "gate-events" && cmd != "gate-events-click") return std::nullopt;
    GateEventsPanel* panel = m_window.gateEventsPanel();
    ImGuiHost* host = showDock(m_window, "gateEvents");
    if (!panel || !host) return false;
    if (!waitFor([&] { return frames(1), panel->report() || !panel->message().empty(); }, 120000))
        return false;
    if (cmd == "gate-events") {
        panel->setSearch(w.size() > 1 ? w[1] : std::string());
        frames(3);
        const core::GateEventReport* r = panel->report();
        if (!r) {
            fmt::print("script: gate-events message={}\n", panel->message());
            return true;
        }
        std::string first;
        for (size_t i = 0; i < panel->rows().size() && i < 3; ++i) {
            const core::GateEvent& e = r->events[panel->rows()[i]];
            first += fmt::format("{}{}:{}:{}:{}:{:.9g}", first.empty() ? "" : ",", e.layer, e.head,
                                 e.channel, e.position, e.retention);
        }
        fmt::print("script: gate-events total={} kept={} shown={} first={}\n", r->total,
                   r->events.size(), panel->rows().size(), first);
        return true;
    }
    const size_t row = std::stoul(w.at(1));
    frames(2);
    const auto at = panel->rowCenter(row);
    if (!at || !panel->report() || row >= panel->rows().size()) return false;
    const core::GateEvent& e = panel->report()->events[panel->rows()[row]];
    sendClick(host, at->x, at->y);
    frames(3);
    const ViewContext& ctx = m_window.session()->context();
    fmt::print("script: gate-events-click row={} event={}:{}:{} layer={} head={} cursor={}\n", row,
               e.layer, e.head, e.position, ctx.layer(), ctx.head(), ctx.cursor());
    return ctx.layer() == e.layer && ctx.head() == e.head && ctx.cursor() == e.position;
}

bool ViewerScript::executeSeriesCommand(const std::vector<std::string>& w) {
    SeriesPanel* panel = m_window.seriesPanel();
    ImGuiHost* host = showDock(m_window, "series");
    if (!panel || !host) return false;
    if (!waitFor([&] { return frames(1), panel->report() || !panel->message().empty(); }, 120000))
        return false;
    const core::SeriesReport* r = panel->report();
    if (!r) {
        fmt::print("script: series message={}\n", panel->message());
        return w[0] == "series";
    }
    if (w[0] == "series" && w.size() > 1 && w[1] == "attention") {
        // As the dock's button does: the same traces again, with attention statistics.
        m_seriesOpened = false;
        panel->requestAttention();
        if (!waitFor(
                [&] {
                    return frames(1),
                           m_seriesOpened && (panel->report() || !panel->message().empty());
                },
                300000))
            return false;
        r = panel->report();
        if (!r) return false;
    }
    if (w[0] == "series") {
        std::string steps, losses;
        for (const core::SeriesPoint& p : r->points) {
            steps += fmt::format("{}{}", steps.empty() ? "" : ",", p.step);
            losses += fmt::format("{}{:.9g}", losses.empty() ? "" : ",", p.meanLoss);
        }
        std::string sinks;
        for (const core::SeriesPoint& p : r->points)
            sinks += fmt::format("{}{:.9g}", sinks.empty() ? "" : ",", p.overall.sinkMass);
        fmt::print("script: series points={} steps={} mean-loss={} sink-mass={}\n",
                   r->points.size(), steps, losses, sinks);
        return true;
    }
    const size_t row = std::stoul(w.at(1));
    frames(2);
    const auto at = panel->rowCenter(row);
    if (!at || row >= r->points.size()) return false;
    const std::string want = r->points[row].path;
    m_opened = false;
    sendClick(host, at->x, at->y);
    if (!waitFor([&] { return m_opened || m_openFailed; }, 60000) || m_openFailed) return false;
    if (!waitIdle()) return false;
    const std::string opened = m_window.session()->document().summary().path;
    fmt::print("script: series-click row={} step={} opened={}\n", row, r->points[row].step, opened);
    return std::filesystem::weakly_canonical(opened) == std::filesystem::weakly_canonical(want);
}

bool ViewerScript::executeContextCommand(const std::vector<std::string>& w) {
    ContextPanel* panel = m_window.contextPanel();
    ImGuiHost* host = showDock(m_window, "context");
    if (!panel || !host) return false;
    auto settled = [&] {
        return frames(1), !panel->computing() && (panel->map() || !panel->message().empty());
    };
    if (!waitFor(settled, 120000)) return false;
    if (w[0] == "context") {
        if (w.size() > 1 && w[1] == "attention") {
            panel->compute(true);
            frames(2);
            if (!waitFor(settled, 300000)) return false;
        }
        frames(2);
        const ContextMap* map = panel->map();
        if (!map) {
            fmt::print("script: context message={}\n", panel->message());
            return false;
        }
        std::string first;
        for (size_t b = 0; b < 3 && b < static_cast<size_t>(map->bins); ++b)
            first += fmt::format("{}{:.9g}", first.empty() ? "" : ",",
                                 map->horizon(panel->kind(), 0, b));
        fmt::print("script: context rows={} bins={} bin-width={} kind={} row0=L{}H{} first={}\n",
                   map->heads.size(), map->bins, map->binWidth,
                   panel->kind() == HorizonKind::Gate ? "gate" : "attention",
                   map->heads.empty() ? -1 : map->heads[0].first,
                   map->heads.empty() ? -1 : map->heads[0].second, first);
        return true;
    }
    const size_t row = std::stoul(w.at(1)), bin = std::stoul(w.at(2));
    frames(2);
    const auto at = panel->cellCenter(row, bin);
    const ContextMap* map = panel->map();
    if (!at || !map || row >= map->heads.size()) return false;
    sendClick(host, at->x, at->y);
    frames(3);
    const ViewContext& ctx = m_window.session()->context();
    fmt::print("script: context-click row={} bin={} layer={} head={} cursor={}\n", row, bin,
               ctx.layer(), ctx.head(), ctx.cursor());
    const int64_t begin = static_cast<int64_t>(bin) * map->binWidth;
    return ctx.layer() == map->heads[row].first && ctx.head() == map->heads[row].second &&
           ctx.cursor() >= begin && ctx.cursor() < begin + map->binWidth;
}

}  // namespace gatescope::app
