// ViewerScript's commands that read what the canvas drew: the colour bar's labels (and whether
// they lie inside the panel). See viewer_script.h for the command list.
#include <fmt/core.h>
#include <QStringList>

#include "app/gui/viewer_script.h"
#include "widgets/gui/compare_panel.h"
#include "widgets/gui/compare_view.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/retention_panel.h"
#include "widgets/gui/viewer_session.h"

namespace gatescope::app {

using namespace widgets;

namespace {

/// "colorbar NAME labels=a|b|c inside=0|1 right= panel-right=" for one canvas.
void printColorBar(const std::string& name, const HeatmapCanvasPanel& canvas) {
    std::string labels;
    float right = 0, top = 1e9f, bottom = 0;
    for (const auto& t : canvas.colorBarLabels()) {
        labels += (labels.empty() ? "" : "|") + t.text;
        right = std::max(right, t.x1);
        top = std::min(top, t.y0);
        bottom = std::max(bottom, t.y1);
    }
    const bool inside = !canvas.colorBarLabels().empty() && right <= canvas.panelRight() &&
                        top >= canvas.canvasOrigin().y;
    fmt::print(
        "script: colorbar {} labels={} inside={} right={:.0f} panel-right={:.0f} "
        "range={:.6g}:{:.6g}\n",
        name, labels, inside ? 1 : 0, right, canvas.panelRight(), canvas.range().lo,
        canvas.range().hi);
}

}  // namespace

std::optional<bool> ViewerScript::executeView(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    auto arg = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
    if (cmd == "colorbar") {
        // Every canvas on screen: A (and in compare mode B).
        frames(2);
        if (!waitIdle()) return false;
        frames(2);
        HeatmapCanvasPanel* canvas = m_window.canvasPanel();
        if (!canvas) return false;
        printColorBar("a", *canvas);
        if (CompareView* compare = m_window.compareView())
            printColorBar("b", compare->canvasPanelB());
        return true;
    }
    if (cmd == "goto") {
        // Go to Position with the typed text: prints where the cursor went, or the hint shown.
        const QString hint = m_window.goToText(QString::fromStdString(arg(1)));
        frames(2);
        fmt::print("script: goto {} cursor={} hint={}\n", arg(1),
                   m_window.session() ? m_window.session()->context().cursor() : -1,
                   hint.toStdString());
        return true;
    }
    if (cmd == "gate-messages") {
        // What the Retention dock and (in compare mode) the Compare dock say instead of tracks.
        frames(2);
        if (!waitIdle()) return false;
        for (ImGuiHost* host : m_window.hosts()) {
            if (host->objectName() == "retention")
                fmt::print("script: gate-message retention: {}\n",
                           static_cast<RetentionPanel&>(host->panel()).message());
        }
        if (CompareView* compare = m_window.compareView())
            fmt::print("script: gate-message compare: {}\n",
                       compare->comparePanel().retentionMessage());
        return true;
    }
    if (cmd == "messages") {
        // The Messages dock's text, one output line per message line, and whether it is shown.
        frames(2);
        const QString text = m_window.messagesText();
        const auto* dock = m_window.findChild<QWidget*>("messagesDock");
        const QStringList lines = text.isEmpty() ? QStringList() : text.split('\n');
        fmt::print("script: messages lines={} shown={}\n", lines.size(),
                   dock && dock->isVisible() ? 1 : 0);
        for (const QString& line : lines)
            fmt::print("script: message {}\n", line.toStdString());
        return true;
    }
    return std::nullopt;
}

}  // namespace gatescope::app
