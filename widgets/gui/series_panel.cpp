#include "widgets/gui/series_panel.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "widgets/gui/imgui_text.h"

namespace gatescope::widgets {

namespace {

/// A value of the table: "-" where the quantity does not exist (NaN).
void valueCell(double v, const char* format) {
    ImGui::TableNextColumn();
    if (std::isnan(v))
        ImGui::TextDisabled("-");
    else
        ImGui::Text(format, v);
}

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

}  // namespace

void SeriesPanel::setPaths(std::vector<std::string> paths) {
    m_paths = std::move(paths);
    m_report.reset();
    requestRepaint();
}

void SeriesPanel::setReport(Result<core::SeriesReport> report) {
    m_report = std::move(report);
    requestRepaint();
}

const core::SeriesReport* SeriesPanel::report() const {
    return m_report && *m_report ? &**m_report : nullptr;
}

std::string SeriesPanel::message() const {
    return m_report && !*m_report ? m_report->error().describe() : std::string();
}

void SeriesPanel::open(size_t row) {
    if (const auto* r = report(); r && row < r->points.size() && m_open)
        m_open(r->points[row].path);
}

std::optional<ImVec2> SeriesPanel::rowCenter(size_t row) const {
    auto it = m_rowCenters.find(row);
    if (it == m_rowCenters.end()) return std::nullopt;
    return it->second;
}

void SeriesPanel::draw(PanelFrame&) {
    m_rowCenters.clear();
    if (const std::string why = message(); !why.empty()) {
        ImGui::TextWrapped("Could not compute the series: %s", why.c_str());
        return;
    }
    const core::SeriesReport* r = report();
    if (!r) {
        ImGui::TextDisabled("computing the series of %zu traces...", m_paths.size());
        return;
    }
    ImGui::TextWrapped(
        "%zu checkpoints of one text, by training step; click a row to open its "
        "trace. Medians over each layer's gates and heads.",
        r->points.size());
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##series", 9, flags)) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* name : {"step", "trace", "mean loss", "gate timescale", "gate horizon",
                             "always on", "sink mass", "attention horizon", "prunable"})
        ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    for (size_t row = 0; row < r->points.size(); ++row) {
        const core::SeriesPoint& p = r->points[row];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const std::string label = fmt::format("{}##s{}", p.step, row);
        if (ImGui::Selectable(label.c_str(), p.path == m_current,
                              ImGuiSelectableFlags_SpanAllColumns))
            open(row);
        m_rowCenters[row] = ImVec2(at.x + 10, at.y + ImGui::GetTextLineHeight() / 2);
        if (ImGui::IsItemHovered())
            wrappedTooltipf("%s\nstep %lld (from the %s)\nclick: open this trace", p.path.c_str(),
                            static_cast<long long>(p.step),
                            p.stepSource == "name"     ? "checkpoint folder's name"
                            : p.stepSource == "option" ? "--steps option"
                                                       : "order given");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fileName(p.path).c_str());
        valueCell(p.meanLoss, "%.4f");
        valueCell(p.overall.timescaleMedian, "%.1f");
        valueCell(p.overall.gateHorizonMedian, "%.0f");
        valueCell(p.overall.alwaysOnFraction, "%.3f");
        valueCell(p.overall.sinkMass, "%.3f");
        valueCell(p.overall.attentionHorizonMedian, "%.0f");
        valueCell(p.overall.prunableFraction, "%.3f");
    }
    ImGui::EndTable();
    if (!r->points.empty() && std::isnan(r->points[0].overall.sinkMass)) {
        ImGui::TextDisabled(
            "Sink mass, attention horizon and prunable fraction need attention "
            "statistics (exact, O(N^2) per head and trace).");
        ImGui::SameLine();
        if (ImGui::SmallButton("Compute attention statistics")) requestAttention();
    }
}

}  // namespace gatescope::widgets
