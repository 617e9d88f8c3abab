#include "widgets/gui/statistics_panel.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <fmt/format.h>
#include <imgui.h>

#include "widgets/gui/imgui_text.h"
#include "widgets/gui/job_outcome.h"

namespace gatescope::widgets {

namespace {
constexpr const char* kGatesJob = "gates";
constexpr const char* kAttentionJob = "attention";
}  // namespace

void StatisticsPanel::cancelAttention() {
    m_jobs.cancel(kAttentionJob);
    m_attention.reset();
}

void StatisticsPanel::followLayer() {
    if (m_session.context().layer() == m_layer) return;
    m_layer = m_session.context().layer();
    cancelAttention();
    m_gates.reset();
    m_jobs.start(
        kGatesJob,
        [reader = m_session.document().reader,
         layer = m_layer](const std::atomic<bool>& cancelled) {
            return computeGateStats(*reader, layer, cancelled);
        },
        [this](Result<core::LayerGateStats> stats) {
            m_gates = std::move(stats);
            requestRepaint();
        });
}

void StatisticsPanel::computeAttention() {
    followLayer();  // before the first frame too: the frame must not cancel this run
    cancelAttention();
    const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
    m_jobs.start(
        kAttentionJob,
        [reader = m_session.document().reader, layer = m_layer,
         threads](const std::atomic<bool>& cancelled) {
            return computeAttentionStats(*reader, layer, threads, cancelled);
        },
        [this](Result<std::vector<core::HeadAttentionStats>> stats) {
            m_attention = std::move(stats);
            requestRepaint();
        });
    m_selectAttentionTab = true;
    requestRepaint();
}

size_t StatisticsPanel::gateRows() const {
    return m_gates && *m_gates ? (*m_gates)->channels.size() : 0;
}

size_t StatisticsPanel::attentionRows() const {
    return m_attention && *m_attention ? (*m_attention)->size() : 0;
}

void StatisticsPanel::draw(PanelFrame&) {
    followLayer();
    ImGui::Text("Layer %d", m_layer);
    if (ImGui::BeginTabBar("##stats")) {
        if (ImGui::BeginTabItem("Gates")) {
            drawGates();
            ImGui::EndTabItem();
        }
        const ImGuiTabItemFlags select =
            m_selectAttentionTab ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
        m_selectAttentionTab = false;
        if (ImGui::BeginTabItem("Attention", nullptr, select)) {
            drawAttention();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
}

namespace {
void cellText(const char* fmt, double v) {
    if (std::isnan(v))
        ImGui::TextDisabled("-");
    else if (std::isinf(v))
        ImGui::TextUnformatted("inf");
    else
        ImGui::Text(fmt, v);
}
}  // namespace

void StatisticsPanel::drawGates() {
    const core::LayerGateStats* stats =
        shownValue(m_gates, fmt::format("computing gate statistics of layer {} ...", m_layer));
    if (!stats) return;
    const core::LayerGateStats& s = *stats;
    ImGui::Text("timescale min %.3g / median %.3g / max %.3g;  always on %d, dynamic %d, static %d",
                s.timescaleMin, s.timescaleMedian, s.timescaleMax, s.alwaysOn, s.dynamic,
                s.staticChannels);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable;
    if (!ImGui::BeginTable("##gates", 9, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* name :
         {"head", "channel", "mean f", "p05", "median", "p95", "timescale", "horizon", "kind"})
        ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    const int current = m_session.context().head();
    int clicked = -1;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(s.channels.size()));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const core::ChannelGateStats& c = s.channels[static_cast<size_t>(row)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(row);
            char label[16];
            std::snprintf(label, sizeof label, "%d", c.head);
            if (ImGui::Selectable(label, c.head == current, ImGuiSelectableFlags_SpanAllColumns))
                clicked = headOfGateRow(s, static_cast<size_t>(row));
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::Text("%d", c.channel);
            ImGui::TableNextColumn();
            cellText("%.4f", c.meanRetention);
            ImGui::TableNextColumn();
            cellText("%.4f", c.p05);
            ImGui::TableNextColumn();
            cellText("%.4f", c.median);
            ImGui::TableNextColumn();
            cellText("%.4f", c.p95);
            ImGui::TableNextColumn();
            cellText("%.4g", c.timescale);
            ImGui::TableNextColumn();
            cellText("%.4g", c.horizonMedian);
            if (ImGui::IsItemHovered())
                wrappedTooltipf("reached from %.1f%% of start positions",
                                c.horizonReachedFraction * 100);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(c.kind.c_str());
        }
    }
    ImGui::EndTable();
    if (clicked >= 0) m_session.context().setLayerHead(m_layer, clicked);
}

void StatisticsPanel::drawAttention() {
    if (m_jobs.busy(kAttentionJob)) {
        ImGui::TextDisabled("computing attention statistics of layer %d ...", m_layer);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) cancelAttention();
        return;
    }
    if (ImGui::Button("Compute attention statistics")) {
        computeAttention();
        return;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("exact, O(N^2) per head, on a worker thread");
    if (!m_attention) return;
    const auto* computed = shownValue(m_attention, {});
    if (!computed) return;
    const auto& heads = *computed;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable;
    if (!ImGui::BeginTable("##attention", 6, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* name :
         {"head", "entropy (nats)", "sink mass", "argmax dist", "mean dist", "negligible blocks"})
        ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    const int current = m_session.context().head();
    int clicked = -1;
    for (size_t row = 0; row < heads.size(); ++row) {
        const core::HeadAttentionStats& h = heads[row];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(static_cast<int>(row));
        char label[16];
        std::snprintf(label, sizeof label, "%d", h.head);
        if (ImGui::Selectable(label, h.head == current, ImGuiSelectableFlags_SpanAllColumns))
            clicked = headOfAttentionRow(heads, row);
        ImGui::PopID();
        ImGui::TableNextColumn();
        cellText("%.4f", h.meanEntropy);
        ImGui::TableNextColumn();
        cellText("%.4f", h.sinkMass);
        ImGui::TableNextColumn();
        cellText("%.2f", h.meanArgmaxDistance);
        ImGui::TableNextColumn();
        cellText("%.2f", h.meanDistance);
        ImGui::TableNextColumn();
        if (h.negligibleBlockFraction < 0)
            ImGui::TextDisabled("no decay");
        else
            ImGui::Text("%.1f%%", h.negligibleBlockFraction * 100);
    }
    ImGui::EndTable();
    if (clicked >= 0) m_session.context().setLayerHead(m_layer, clicked);
}

}  // namespace gatescope::widgets
