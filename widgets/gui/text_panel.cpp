#include "widgets/gui/text_panel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "widgets/gui/imgui_text.h"
#include "widgets/view/series_binning.h"
#include "widgets/view/token_summary.h"

namespace gatescope::widgets {

void TextPanel::draw(PanelFrame&) {
    const TraceDocument& doc = m_session.document();
    ViewContext& ctx = m_session.context();
    const int64_t n = doc.n();
    const int64_t pages = (n + kPage - 1) / kPage;
    if (ctx.cursor() != m_lastCursor) {
        m_lastCursor = ctx.cursor();
        if (m_lastCursor >= 0) {
            m_page = m_lastCursor / kPage;
            m_scrollToCursor = true;
        }
    }
    if (m_maxLoss < 0 && doc.perToken) {
        const auto [lo, hi] = finiteRange(doc.perToken->loss.data(), n);
        m_minLoss = lo;
        m_maxLoss = std::max(lo + 1e-3f, hi);
    }
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) m_page = std::max<int64_t>(0, m_page - 1);
    ImGui::SameLine();
    ImGui::Text("tokens %lld-%lld of %lld", static_cast<long long>(m_page * kPage),
                static_cast<long long>(std::min(n, (m_page + 1) * kPage) - 1),
                static_cast<long long>(n));
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) m_page = std::min(pages - 1, m_page + 1);
    // The cursor's prediction: loss, rank and entropy for the token after it.
    if (const std::string summary = tokenSummary(doc, ctx.cursor()); !summary.empty())
        ImGui::TextWrapped("%s", summary.c_str());

    ImGui::BeginChild("##text", ImVec2(0, 0), false);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float wrap = ImGui::GetContentRegionAvail().x;
    const float lineH = ImGui::GetTextLineHeightWithSpacing();
    float x = 0;
    const ImVec2 start = ImGui::GetCursorScreenPos();
    float y = 0;
    for (int64_t i = m_page * kPage; i < std::min(n, (m_page + 1) * kPage); ++i) {
        const std::string& raw = doc.tokens.text[static_cast<size_t>(i)];
        const bool newline = raw.find('\n') != std::string::npos;
        std::string shown = displayToken(raw, 40);
        const ImVec2 sz = ImGui::CalcTextSize(shown.c_str());
        if (x > 0 && x + sz.x > wrap) {
            x = 0;
            y += lineH;
        }
        const ImVec2 p(start.x + x, start.y + y);
        ImGui::SetCursorScreenPos(p);
        ImGui::PushID(static_cast<int>(i));
        const bool clicked = ImGui::InvisibleButton("##tok", ImVec2(std::max(sz.x, 3.f), lineH));
        ImGui::PopID();
        float heat = 0;
        if (doc.perToken) {
            const float l = doc.perToken->loss[static_cast<size_t>(i)];
            heat = std::isfinite(l)
                       ? std::clamp((l - m_minLoss) / (m_maxLoss - m_minLoss), 0.f, 1.f)
                       : 0.f;
        }
        dl->AddRectFilled(p, ImVec2(p.x + sz.x, p.y + lineH - 1),
                          IM_COL32(static_cast<int>(40 + 180 * heat), 40, 48, 255));
        if (i == ctx.cursor()) {
            dl->AddRect(p, ImVec2(p.x + sz.x, p.y + lineH - 1), IM_COL32(255, 80, 80, 255), 0, 0,
                        2);
            if (m_scrollToCursor) {
                ImGui::SetScrollHereY(0.3f);
                m_scrollToCursor = false;
            }
        }
        dl->AddText(p, IM_COL32(235, 235, 235, 255), shown.c_str());
        if (ImGui::IsItemHovered())
            wrappedTooltipf("%s (id %d)", tokenSummary(doc, i).c_str(),
                            doc.tokens.ids[static_cast<size_t>(i)]);
        if (clicked) {
            ctx.setCursor(i);
            m_lastCursor = i;  // clicked here: no need to jump
        }
        x += sz.x + 2;  // a gap: id inputs have no spaces between tokens
        if (newline) {
            x = 0;
            y += lineH;
        }
    }
    ImGui::SetCursorScreenPos(ImVec2(start.x, start.y + y + lineH));
    ImGui::Dummy(ImVec2(1, 1));
    ImGui::EndChild();
}

}  // namespace gatescope::widgets
