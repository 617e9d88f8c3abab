#include "widgets/gui/needle_grid_panel.h"
#include "widgets/gui/imgui_text.h"

#include <algorithm>
#include <string>

#include <imgui.h>

namespace gatescope::widgets {

std::optional<ImVec2> NeedleGridPanel::cellCenter(int64_t length, int depth) const {
    const NeedleGrid& g = *m_grid;
    const auto li = std::find(g.lengths.begin(), g.lengths.end(), length);
    const auto di = std::find(g.depths.begin(), g.depths.end(), depth);
    if (!m_cell0 || li == g.lengths.end() || di == g.depths.end()) return std::nullopt;
    const float x = static_cast<float>(li - g.lengths.begin()) * (m_cellSize.x + m_step);
    const float y = static_cast<float>(di - g.depths.begin()) * (m_cellSize.y + m_step);
    return ImVec2(m_cell0->x + x + m_cellSize.x / 2, m_cell0->y + y + m_cellSize.y / 2);
}

void NeedleGridPanel::draw(PanelFrame&) {
    const NeedleGrid& g = *m_grid;
    ImGui::Text("%s", g.file.filename().string().c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", g.model.c_str());
    ImGui::TextDisabled("matched answer prefix per cell; click a cell to open its trace");
    if (g.lengths.empty() || g.depths.empty()) {
        ImGui::TextDisabled("empty grid");
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float labelW = 48, labelH = 18;
    const float cw = std::clamp((avail.x - labelW) / g.lengths.size() - 2, 14.f, 120.f);
    const float ch = std::clamp((avail.y - labelH) / g.depths.size() - 2, 12.f, 60.f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    m_cell0 = ImVec2(origin.x + labelW, origin.y + labelH);
    m_cellSize = ImVec2(cw, ch);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text = IM_COL32(200, 200, 200, 255);
    for (size_t li = 0; li < g.lengths.size(); ++li) {
        const std::string label = std::to_string(g.lengths[li]);
        dl->AddText(ImVec2(origin.x + labelW + li * (cw + 2), origin.y), text, label.c_str());
    }
    for (size_t di = 0; di < g.depths.size(); ++di) {
        const float y = origin.y + labelH + di * (ch + 2);
        const std::string label = std::to_string(g.depths[di]) + "%";
        dl->AddText(ImVec2(origin.x, y + ch / 2 - 7), text, label.c_str());
        for (size_t li = 0; li < g.lengths.size(); ++li) {
            const ImVec2 p0(origin.x + labelW + li * (cw + 2), y), p1(p0.x + cw, p0.y + ch);
            const NeedleGridCell* c = g.cell(li, di);
            if (!c) {
                dl->AddRectFilled(p0, p1, IM_COL32(40, 40, 44, 255));
                continue;
            }
            dl->AddRectFilled(p0, p1, needleColor(c->fraction()));
            if (cw > 36 && ch > 14) {
                const std::string v =
                    std::to_string(c->matchedPrefix) + "/" + std::to_string(c->answerTokens);
                dl->AddText(ImVec2(p0.x + 3, p0.y + 1), IM_COL32(0, 0, 0, 255), v.c_str());
            }
            if (c == m_lastOpened)
                dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1),
                            IM_COL32(255, 255, 255, 255), 0, 0, 2);
            ImGui::SetCursorScreenPos(p0);
            ImGui::PushID(static_cast<int>(di * g.lengths.size() + li));
            if (ImGui::InvisibleButton("##cell", ImVec2(cw, ch)) && m_open) {
                m_lastOpened = c;
                m_open(*c);
            }
            if (ImGui::IsItemHovered()) {
                wrappedTooltipf(
                    "length %lld, depth %d%%\nexact match: %s\nmatched prefix: %d / %d answer "
                    "tokens\nanswer loss: %.4f nats\nneedle: tokens [%lld, %lld)\n%s",
                    static_cast<long long>(c->length), c->depth, c->exactMatch ? "yes" : "no",
                    c->matchedPrefix, c->answerTokens, c->answerLoss,
                    static_cast<long long>(c->needleBegin), static_cast<long long>(c->needleEnd),
                    c->trace.string().c_str());
            }
            ImGui::PopID();
        }
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + labelH + g.depths.size() * (ch + 2) + 4));
    ImGui::Dummy(ImVec2(1, 1));
}

}  // namespace gatescope::widgets
