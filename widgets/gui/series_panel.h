// SeriesPanel, the Checkpoint Series dock: traces of one text from successive checkpoints of one
// run (`gatescope open --series A.h5 B.h5 ...`, File > Open Checkpoint Series...), one row per
// checkpoint: its step, mean loss, gate timescale and memory horizon, always-on share, and with
// attention statistics the sink mass, attention horizon and prunable fraction
// (core/analysis/checkpoint_series.h, the table `gatescope stats --series` prints). Clicking a
// row asks the window to open that trace. The window computes the report (on its job pool) and
// hands it over; the panel only draws. Needs no trace open (it outlives trace sessions). GUI
// thread only.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "core/analysis/checkpoint_series.h"
#include "widgets/gui/panel.h"

namespace gatescope::widgets {

class SeriesPanel final : public Panel {
public:
    using OpenTrace = std::function<void(const std::string& path)>;

    /// `paths`: the traces, as given (shown while the report is computed).
    SeriesPanel(std::vector<std::string> paths, OpenTrace open)
        : m_paths(std::move(paths)), m_open(std::move(open)) {}

    const char* title() const override { return "Checkpoint Series"; }
    void draw(PanelFrame& frame) override;

    /// A new set of traces (computing until setReport).
    void setPaths(std::vector<std::string> paths);
    void setReport(Result<core::SeriesReport> report);
    /// The report once computed (null while computing or after an error).
    const core::SeriesReport* report() const;
    /// The error of the last computation, else empty.
    std::string message() const;
    /// Called by the "Compute attention statistics" button with the series' traces.
    void setAttentionAction(std::function<void(std::vector<std::string>)> action) {
        m_onAttention = std::move(action);
    }
    /// What the button does: asks the window for the series again with attention statistics.
    void requestAttention() {
        if (m_onAttention) m_onAttention(m_paths);
    }
    /// The trace the window shows now (its row is highlighted).
    void setCurrentTrace(std::string path) { m_current = std::move(path); }
    /// Asks the window to open the trace of row `row` (rows in step order).
    void open(size_t row);
    /// Where the last frame drew row `row` (host pixels), for scripts.
    std::optional<ImVec2> rowCenter(size_t row) const;

private:
    std::vector<std::string> m_paths;
    OpenTrace m_open;
    std::function<void(std::vector<std::string>)> m_onAttention;
    std::optional<Result<core::SeriesReport>> m_report;  // empty while computing
    std::string m_current;
    std::map<size_t, ImVec2> m_rowCenters;
};

}  // namespace gatescope::widgets
