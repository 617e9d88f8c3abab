#include "widgets/gui/reads_panel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "widgets/gui/imgui_text.h"

namespace gatescope::widgets {

namespace {
constexpr const char* kJob = "reads";
}  // namespace

ReadsPanel::Request ReadsPanel::current() const {
    const ViewContext& ctx = m_session.context();
    return {ctx.layer(), ctx.head(), ctx.cursor(), m_mode};
}

void ReadsPanel::setMode(ReadsMode mode) {
    m_mode = mode;
    follow();
    requestRepaint();
}

const TokenReads* ReadsPanel::reads() const {
    return m_reads && m_drawn && m_requested == current() ? &*m_reads : nullptr;
}

std::optional<ImVec2> ReadsPanel::listedRowCenter(size_t rank) const {
    const auto it = m_rowCenters.find(rank);
    return it == m_rowCenters.end() ? std::nullopt : std::optional(it->second);
}

std::optional<ImVec4> ReadsPanel::paintedRect(int64_t position) const {
    const auto it = m_painted.find(position);
    return it == m_painted.end() ? std::nullopt : std::optional(it->second);
}

void ReadsPanel::follow() {
    const Request want = current();
    if (m_requested == want) return;
    m_requested = want;
    m_reads.reset();
    m_error.reset();
    m_drawn = false;
    const int layer = std::get<0>(want), head = std::get<1>(want);
    const int64_t position = std::get<2>(want);
    const ReadsMode mode = std::get<3>(want);
    if (position < 0) {
        m_jobs.cancel(kJob);
        return;
    }
    m_page = position / kPage;
    // The loader outlives the session's job pool, which joins its workers first.
    const TraceTileLoader* loader = &m_session.loader();
    m_jobs.start(
        kJob,
        [loader, layer, head, position, mode](const std::atomic<bool>& cancelled) {
            auto source = loader->head(layer, head);
            if (!source) return Result<TokenReads>(source.error());
            return computeTokenReads(**source, mode, position, kTopK, cancelled);
        },
        [this](Result<TokenReads> reads) {
            m_scrollFrames = 4;
            if (reads)
                m_reads = std::move(*reads);
            else
                m_error = reads.error();
            requestRepaint();
        });
}

void ReadsPanel::moveTo(int64_t position) {
    m_session.context().focusOn(position);
    requestRepaint();
}

void ReadsPanel::draw(PanelFrame& frame) {
    follow();
    m_wantsFrame = false;
    m_rowCenters.clear();
    m_painted.clear();
    const auto [layer, head, position, mode] = current();
    if (ImGui::RadioButton("What it reads (row)", m_mode == ReadsMode::Row))
        setMode(ReadsMode::Row);
    ImGui::SameLine();
    if (ImGui::RadioButton("Who reads it (column)", m_mode == ReadsMode::Column))
        setMode(ReadsMode::Column);
    if (position < 0) {
        ImGui::TextWrapped("No cursor: click a token or a row of the map.");
        return;
    }
    const int64_t n = m_session.document().n();
    if (mode == ReadsMode::Row)
        ImGui::TextWrapped("Layer %d head %d, query %lld: its attention over keys 0-%lld", layer,
                           head, static_cast<long long>(position),
                           static_cast<long long>(position));
    else
        ImGui::TextWrapped("Layer %d head %d, key %lld: its weight in queries %lld-%lld", layer,
                           head, static_cast<long long>(position), static_cast<long long>(position),
                           static_cast<long long>(n - 1));
    if (m_error) {
        ImGui::TextWrapped("Cannot compute this: %s", m_error->describe().c_str());
        return;
    }
    if (!m_reads) {
        ImGui::TextUnformatted("computing...");
        return;
    }
    // Wide (a bottom dock): the list on the left, the painted text beside it; narrow: stacked.
    const bool wide = ImGui::GetContentRegionAvail().x > 800;
    if (wide) ImGui::BeginChild("##readsList", ImVec2(420, 0), false);
    drawList();
    if (wide) {
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("##readsRight", ImVec2(0, 0), false);
    }
    drawText();
    if (wide) ImGui::EndChild();
    m_drawn = true;
    frame.wantsMoreFrames = frame.wantsMoreFrames || m_wantsFrame;
}

void ReadsPanel::drawList() {
    const TokenReads& r = *m_reads;
    const TraceDocument& doc = m_session.document();
    const int columns = r.split ? 5 : 3;
    const float height = ImGui::GetTextLineHeightWithSpacing() * (kTopK + 1.5f);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##top", columns, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(r.mode == ReadsMode::Row ? "key" : "query");
    ImGui::TableSetupColumn("token");
    ImGui::TableSetupColumn("weight");
    if (r.split) {
        ImGui::TableSetupColumn("content");
        ImGui::TableSetupColumn("forget");
    }
    ImGui::TableHeadersRow();
    for (size_t rank = 0; rank < r.top.size(); ++rank) {
        const ReadsEntry& e = r.top[rank];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const std::string label = fmt::format("{}##r{}", e.position, rank);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        if (ImGui::Selectable(label.c_str(), e.position == r.position,
                              ImGuiSelectableFlags_SpanAllColumns))
            moveTo(e.position);
        m_rowCenters[rank] = ImVec2(at.x + 10, at.y + ImGui::GetTextLineHeight() / 2);
        if (ImGui::IsItemHovered())
            wrappedTooltipf("click: move the cursor to token %lld in every view",
                            static_cast<long long>(e.position));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            displayToken(doc.tokens.text[static_cast<size_t>(e.position)], 20).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", static_cast<double>(e.weight));
        if (r.split) {
            ImGui::TableNextColumn();
            ImGui::Text("%+.3f", e.content);
            ImGui::TableNextColumn();
            ImGui::Text("%+.3f", e.forget);
        }
    }
    ImGui::EndTable();
    if (r.split)
        ImGui::TextWrapped(
            "score = content (scale q.k) + forget (the gate/decay penalty, log space); "
            "weight = exp(score - normalizer)");
}

void ReadsPanel::drawText() {
    const TokenReads& r = *m_reads;
    const TraceDocument& doc = m_session.document();
    const int64_t n = doc.n();
    const int64_t pages = (n + kPage - 1) / kPage;
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) m_page = std::max<int64_t>(0, m_page - 1);
    ImGui::SameLine();
    ImGui::Text("tokens %lld-%lld, painted by weight (max %.4f)",
                static_cast<long long>(m_page * kPage),
                static_cast<long long>(std::min(n, (m_page + 1) * kPage) - 1),
                static_cast<double>(r.maxWeight));
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) m_page = std::min(pages - 1, m_page + 1);

    std::map<int64_t, size_t> listed;
    for (size_t rank = 0; rank < r.top.size(); ++rank)
        listed[r.top[rank].position] = rank;
    ImGui::BeginChild("##readsText", ImVec2(0, 0), false);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float wrap = ImGui::GetContentRegionAvail().x;
    const float lineH = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    float x = 0, y = 0;
    for (int64_t i = m_page * kPage; i < std::min(n, (m_page + 1) * kPage); ++i) {
        const std::string& raw = doc.tokens.text[static_cast<size_t>(i)];
        const std::string shown = displayToken(raw, 40);
        const ImVec2 sz = ImGui::CalcTextSize(shown.c_str());
        if (x > 0 && x + sz.x > wrap) x = 0, y += lineH;
        const ImVec2 p(start.x + x, start.y + y);
        const ImVec2 q(p.x + std::max(sz.x, 3.f), p.y + lineH - 1);
        ImGui::SetCursorScreenPos(p);
        ImGui::PushID(static_cast<int>(i));
        const bool clicked = ImGui::InvisibleButton("##tok", ImVec2(q.x - p.x, lineH));
        ImGui::PopID();
        const float w = r.weightAt(i);
        const uint32_t argb = readsColor(readsHeat(w, r.maxWeight));
        dl->AddRectFilled(p, q, IM_COL32((argb >> 16) & 255, (argb >> 8) & 255, argb & 255, 255));
        if (listed.count(i) && ImGui::IsRectVisible(p, q))
            m_painted[i] = ImVec4(p.x, p.y, q.x, q.y);
        if (i == r.position) {
            dl->AddRect(p, q, IM_COL32(120, 200, 255, 255), 0, 0, 2);
            // A new child has no content size for a frame or two, and scrolling is clamped to
            // it: try again (a few frames at most) until the token is in sight.
            if (m_scrollFrames > 0) {
                if (ImGui::IsRectVisible(p, q)) {
                    m_scrollFrames = 0;
                } else {
                    ImGui::SetScrollHereY(0.5f);
                    --m_scrollFrames;
                    m_wantsFrame = true;
                }
            }
        }
        const ImU32 ink = w < 0 ? IM_COL32(120, 120, 120, 255) : IM_COL32(240, 240, 240, 255);
        dl->AddText(p, ink, shown.c_str());
        if (ImGui::IsItemHovered()) {
            if (w < 0)
                wrappedTooltipf("token %lld: not in this %s", static_cast<long long>(i),
                                readsModeName(r.mode));
            else
                wrappedTooltipf("token %lld: weight %.6f", static_cast<long long>(i),
                                static_cast<double>(w));
        }
        if (clicked) moveTo(i);
        x += sz.x + 2;
        if (raw.find('\n') != std::string::npos) x = 0, y += lineH;
    }
    ImGui::SetCursorScreenPos(ImVec2(start.x, start.y + y + lineH));
    ImGui::Dummy(ImVec2(1, 1));
    ImGui::EndChild();
}

}  // namespace gatescope::widgets
