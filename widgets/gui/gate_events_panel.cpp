#include "widgets/gui/gate_events_panel.h"

#include <algorithm>

#include <fmt/format.h>

#include "widgets/gui/imgui_text.h"
#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

namespace {
constexpr const char* kEventsJob = "gate-events";
}  // namespace

void GateEventsPanel::compute(double retention) {
    m_retention = retention;
    m_started = true;
    m_report.reset();
    m_rows.clear();
    std::shared_ptr<const TraceDocument> document = m_session.documentPtr();
    core::GateEventOptions options;
    options.retention = retention;
    options.limit = kLimit;
    m_jobs.start(
        kEventsJob,
        [document, options](const std::atomic<bool>&) {
            return core::gateEvents(*document->reader, options);
        },
        [this](Result<core::GateEventReport> report) {
            m_report = std::move(report);
            refreshRows();
            requestRepaint();
        });
}

const core::GateEventReport* GateEventsPanel::report() const {
    return m_report && *m_report ? &**m_report : nullptr;
}

std::string GateEventsPanel::message() const {
    if (m_report && !*m_report) return m_report->error().describe();
    const auto& layers = m_session.document().summary().layers;
    if (std::none_of(layers.begin(), layers.end(), [](const auto& l) { return l.hasGates; }))
        return "This trace stores no forget gates (a model without them, such as a "
               "Transformer): there are no gate events.";
    return {};
}

void GateEventsPanel::setSearch(const std::string& text) {
    m_search = text;
    const size_t n = std::min(text.size(), sizeof(m_searchBuffer) - 1);
    std::copy_n(text.data(), n, m_searchBuffer);
    m_searchBuffer[n] = '\0';
    refreshRows();
}

void GateEventsPanel::setSort(GateEventSort sort) {
    m_sort = sort;
    refreshRows();
}

void GateEventsPanel::refreshRows() {
    m_rows = report() ? gateEventRows(report()->events, m_search, m_sort) : std::vector<size_t>{};
}

void GateEventsPanel::open(size_t row) {
    const core::GateEvent* event = nullptr;
    if (report() && row < m_rows.size()) event = &report()->events[m_rows[row]];
    if (!event) return;
    ViewContext& ctx = m_session.context();
    ctx.setLayerHead(event->layer, event->head);
    ctx.focusOn(event->position);
    requestRepaint();
}

std::optional<ImVec2> GateEventsPanel::rowCenter(size_t row) const {
    auto it = m_rowCenters.find(row);
    if (it == m_rowCenters.end()) return std::nullopt;
    return it->second;
}

void GateEventsPanel::draw(PanelFrame&) {
    m_rowCenters.clear();
    if (const std::string why = message(); !why.empty() && !(m_report && *m_report)) {
        ImGui::TextWrapped("%s", why.c_str());
        return;
    }
    if (!m_started) compute(m_retention);
    float retention = static_cast<float>(m_retention);
    ImGui::SetNextItemWidth(160);
    // Applied when the slider is let go: each value is a pass over every gate of the trace.
    ImGui::SliderFloat("retention below", &retention, 0.001f, 0.999f, "%.3f",
                       ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered())
        wrappedTooltipf(
            "An event: a token where a head's (or channel's) retention exp(g) falls "
            "below this. Lower: only the hardest resets.");
    if (ImGui::IsItemDeactivatedAfterEdit()) compute(retention);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(220);
    if (ImGui::InputTextWithHint("##search", "search tokens and contexts", m_searchBuffer,
                                 sizeof(m_searchBuffer))) {
        m_search = m_searchBuffer;
        refreshRows();
    }
    const core::GateEventReport* r = report();
    if (!r) {
        ImGui::TextDisabled("finding gate events...");
        return;
    }
    ImGui::SameLine();
    ImGui::Text("%zu shown of %lld events%s", m_rows.size(), static_cast<long long>(r->total),
                r->total > static_cast<int64_t>(r->events.size())
                    ? fmt::format(" (the {} strongest kept)", r->events.size()).c_str()
                    : "");
    drawTable(*r);
}

void GateEventsPanel::drawTable(const core::GateEventReport& r) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_Sortable |
                                  ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##events", kGateEventColumns, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("layer");
    ImGui::TableSetupColumn("head");
    ImGui::TableSetupColumn("channel");
    ImGui::TableSetupColumn("position");
    ImGui::TableSetupColumn("retention", ImGuiTableColumnFlags_DefaultSort);
    ImGui::TableSetupColumn("token");
    ImGui::TableSetupColumn("context", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
        if (specs->SpecsCount > 0)
            setSort({static_cast<GateEventColumn>(specs->Specs[0].ColumnIndex),
                     specs->Specs[0].SortDirection == ImGuiSortDirection_Descending});
        specs->SpecsDirty = false;
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(m_rows.size()));
    while (clipper.Step())
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const core::GateEvent& e = r.events[m_rows[static_cast<size_t>(row)]];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            const ImVec2 at = ImGui::GetCursorScreenPos();
            const std::string label = fmt::format("{}##e{}", e.layer, row);
            if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
                open(static_cast<size_t>(row));
            m_rowCenters[static_cast<size_t>(row)] =
                ImVec2(at.x + 10, at.y + ImGui::GetTextLineHeight() / 2);
            if (ImGui::IsItemHovered())
                wrappedTooltipf("click: layer %d head %d, cursor to token %lld in every view",
                                e.layer, e.head, static_cast<long long>(e.position));
            ImGui::TableNextColumn();
            ImGui::Text("%d", e.head);
            ImGui::TableNextColumn();
            ImGui::Text("%d", e.channel);
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(e.position));
            ImGui::TableNextColumn();
            ImGui::Text("%.4g", e.retention);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(displayToken(e.token, 20).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(displayToken(e.context, 60).c_str());
        }
    ImGui::EndTable();
}

}  // namespace gatescope::widgets
