// ViewerScript's commands that read what the canvas drew: the colour bar's labels (and whether
// they lie inside the panel). See viewer_script.h for the command list.
#include <map>

#include <fmt/core.h>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStringList>

#include "app/gui/viewer_script.h"
#include "widgets/gui/compare_panel.h"
#include "widgets/gui/compare_view.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/retention_panel.h"
#include "widgets/gui/viewer_session.h"
#include "widgets/view/map_keys.h"

namespace gatescope::app {

using namespace widgets;

namespace {

/// The share of the canvas's pixels (sampled) that show the masked future, key > query, of the
/// map's cells on screen.
double maskedShare(const Viewport& v) {
    int masked = 0, cells = 0;
    const int64_t n = v.sequenceLength();
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 40; ++x) {
            const double key = v.keyAt((x + 0.5) * v.width() / 40);
            const double query = v.queryAt((y + 0.5) * v.height() / 40);
            if (key < 0 || query < 0 || key >= double(n) || query >= double(n)) continue;
            ++cells;
            masked += std::floor(key) > std::floor(query) ? 1 : 0;
        }
    return cells ? double(masked) / cells : 0;
}

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
        frames(3);  // the canvas applies the focus in its next frame
        fmt::print("script: goto {} cursor={} masked={:.3f} hint={}\n", arg(1),
                   m_window.session() ? m_window.session()->context().cursor() : -1,
                   m_window.canvasPanel() ? maskedShare(m_window.canvasPanel()->view()) : 0.0,
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
    if (cmd == "minimap") {
        // The map's you-are-here box as drawn in the last frame.
        frames(2);
        const auto* canvas = m_window.canvasPanel();
        if (!canvas) return false;
        if (const auto& box = canvas->minimap())
            fmt::print("script: minimap box={:.1f},{:.1f},{:.1f},{:.1f} side={}\n", box->x0,
                       box->y0, box->x1, box->y1, HeatmapCanvasPanel::kMinimapSide);
        else
            fmt::print("script: minimap none\n");
        return true;
    }
    if (cmd == "minimap-click") {
        // A click at minimap pixel (X, Y); prints where the view's centre went.
        frames(2);
        HeatmapCanvasPanel* canvas = m_window.canvasPanel();
        if (!canvas || !canvas->minimap()) return false;
        const ImVec2 at = canvas->minimapOrigin();
        sendClick(m_window.canvasHost(), at.x + std::stod(w[1]), at.y + std::stod(w[2]));
        frames(3);
        const TokenRect r = canvas->view().visible();
        fmt::print("script: minimap-click center-key={:.1f} center-query={:.1f} cursor={}\n",
                   (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, m_window.session()->context().cursor());
        return true;
    }
    if (cmd == "retention-window") {
        // The positions the Retention dock's tracks show (it follows the map's queries).
        frames(3);
        if (!waitIdle()) return false;
        for (ImGuiHost* host : m_window.hosts()) {
            if (host->objectName() != "retention") continue;
            const auto& w = static_cast<RetentionPanel&>(host->panel()).window();
            const auto [q0, q1] = m_window.session()->context().visibleQueries();
            fmt::print(
                "script: retention-window begin={:.1f} end={:.1f} follow={} map={:.1f}:{:.1f}\n",
                w.begin, w.end, w.follow ? 1 : 0, q0, q1);
        }
        return true;
    }
    if (cmd == "key") {
        // A real key press on the canvas (as typed with the map focused): NAME is left, right,
        // up, down, pageup, pagedown, home, end, plus or minus; "shift" as a third word.
        static const std::map<std::string, int> keys{
            {"left", Qt::Key_Left},         {"right", Qt::Key_Right},   {"up", Qt::Key_Up},
            {"down", Qt::Key_Down},         {"pageup", Qt::Key_PageUp}, {"home", Qt::Key_Home},
            {"pagedown", Qt::Key_PageDown}, {"end", Qt::Key_End},       {"plus", Qt::Key_Plus},
            {"minus", Qt::Key_Minus}};
        const auto it = keys.find(arg(1));
        ImGuiHost* host = m_window.canvasHost();
        if (it == keys.end() || !host || !m_window.session()) return false;
        const auto mods = arg(2) == "shift" ? Qt::ShiftModifier : Qt::NoModifier;
        QKeyEvent press(QEvent::KeyPress, it->second, mods);
        QApplication::sendEvent(host, &press);
        QKeyEvent release(QEvent::KeyRelease, it->second, mods);
        QApplication::sendEvent(host, &release);
        frames(2);
        const Viewport& v = m_window.canvasPanel()->view();
        const TokenRect r = v.visible();
        const int64_t cursor = m_window.session()->context().cursor();
        fmt::print(
            "script: key {} cursor={} tpp={:.6g} keys={:.1f}:{:.1f} queries={:.1f}:{:.1f} "
            "diagonal-on-screen={} masked={:.3f}\n",
            arg(1), cursor, v.tokensPerPixel(), r.x0, r.x1, r.y0, r.y1,
            diagonalVisible(v, double(cursor)) ? 1 : 0, maskedShare(v));
        return true;
    }
    if (cmd == "help") {
        // Help > Keyboard Shortcuts, as the menu does; prints the dialog's rows, then closes it.
        auto* action = m_window.findChild<QAction*>("helpShortcuts");
        if (!action) return false;
        action->trigger();
        frames(2);
        auto* box = m_window.findChild<QMessageBox*>("shortcutsDialog");
        if (!box) return false;
        QString text = box->text();
        text.replace("</td><td>", " : ");
        text.replace("</tr>", "\n");
        text.remove(QRegularExpression("<[^>]*>"));
        for (const QString& line : text.split('\n', Qt::SkipEmptyParts))
            fmt::print("script: help {}\n", line.toStdString());
        box->close();
        return true;
    }
    if (cmd == "axes") {
        // The canvas's axis numbers and legend: "axes keys=a|b|.. queries=..|.. inside=0|1
        // legend=0|1".
        frames(2);
        if (!waitIdle()) return false;
        frames(2);
        HeatmapCanvasPanel* canvas = m_window.canvasPanel();
        if (!canvas) return false;
        std::string keys, queries;
        bool inside = true;
        const float x0 = canvas->canvasOrigin().x, y0 = canvas->canvasOrigin().y;
        const Viewport& v = canvas->view();
        for (const auto& t : canvas->axisLabels()) {
            std::string& list = t.text.rfind("key ", 0) == 0 ? keys : queries;
            list += (list.empty() ? "" : "|") + t.text.substr(t.text.find(' ') + 1);
            inside = inside && t.x0 >= x0 && t.y0 >= y0 && t.x1 <= x0 + float(v.width()) &&
                     t.y1 <= y0 + float(v.height());
        }
        fmt::print("script: axes keys={} queries={} inside={} legend={}\n", keys, queries,
                   inside ? 1 : 0, canvas->legend().text.empty() ? 0 : 1);
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
