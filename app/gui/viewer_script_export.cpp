// ViewerScript's export command: File > Export Figure of the view on screen, written as the
// dialog writes it, with the geometry a test needs to compare the PNG's cells with the window's
// pixels. See viewer_script.h for the command list.
#include <fmt/core.h>
#include <QLineEdit>
#include <QSpinBox>

#include "app/gui/viewer_script.h"
#include "widgets/gui/export_dialog.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/gui/main_window.h"

namespace gatescope::app {

using namespace widgets;

std::optional<bool> ViewerScript::executeExport(const std::vector<std::string>& w) {
    if (w[0] != "export-view") return std::nullopt;
    if (w.size() < 2 || !m_window.session() || !waitIdle()) return false;
    m_window.showExportDialog();  // as File > Export Figure... does
    frames(1);
    auto* dialog = m_window.findChild<ExportDialog*>();
    if (!dialog) return false;
    auto text = [&](const char* name) {
        auto* edit = dialog->findChild<QLineEdit*>(name);
        return edit ? edit->text().toStdString() : std::string();
    };
    dialog->findChild<QLineEdit*>("path")->setText(QString::fromStdString(w[1]));
    if (w.size() > 2) dialog->findChild<QSpinBox*>("dpi")->setValue(std::stoi(w[2]));
    const bool ok = dialog->exportNow();
    const auto rect = dialog->exportedMapRect();
    fmt::print(
        "script: export-view {} ok={} keys={} queries={} png-map={:.3f},{:.3f},{:.3f},{:.3f}\n",
        w[1], ok ? 1 : 0, text("range"), text("queries"), rect ? rect->x() : -1.0,
        rect ? rect->y() : -1.0, rect ? rect->width() : -1.0, rect ? rect->height() : -1.0);
    // Where the canvas draws token (query, key): window pixel x = x0 + (key - key0) / tpp.
    HeatmapCanvasPanel* canvas = m_window.canvasPanel();
    const Viewport& v = canvas->view();
    const QPointF origin = QPointF(m_window.canvasHost()->mapTo(&m_window, QPoint(0, 0))) +
                           QPointF(canvas->canvasOrigin().x, canvas->canvasOrigin().y);
    fmt::print(
        "script: export-view screen x0={:.3f} y0={:.3f} key0={:.6f} query0={:.6f} "
        "tpp={:.9g} w={:.1f} h={:.1f}\n",
        origin.x(), origin.y(), v.keyAt(0), v.queryAt(0), v.tokensPerPixel(), v.width(),
        v.height());
    dialog->close();
    frames(2);
    return ok && rect.has_value();
}

}  // namespace gatescope::app
