#include "widgets/gui/loss_strip.h"

#include <algorithm>
#include <cmath>

#include "widgets/gui/imgui_text.h"
#include "widgets/view/series_binning.h"

namespace gatescope::widgets {

void LossStrip::draw(const TraceDocument& doc, const Viewport& view, ViewContext& context,
                     ImVec2 origin, ImVec2 size) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y),
                      IM_COL32(30, 30, 34, 255));
    if (!doc.perToken) {
        dl->AddText(ImVec2(origin.x + 4, origin.y + 4), IM_COL32(160, 160, 160, 255),
                    "no per-token loss in this trace");
        return;
    }
    const auto& loss = doc.perToken->loss;
    const int64_t n = static_cast<int64_t>(loss.size());
    if (m_maxLoss < 0) {
        const auto [lo, hi] = finiteRange(loss.data(), n);
        m_minLoss = lo;
        m_maxLoss = std::max(lo + 1e-3f, hi);
    }
    // Bars from 10% (lowest loss) to 100% (highest): differences stay visible.
    auto frac = [&](float v) {
        return 0.1f + 0.9f * std::clamp((v - m_minLoss) / (m_maxLoss - m_minLoss), 0.f, 1.f);
    };
    const int bins = std::max(1, static_cast<int>(size.x));
    const auto binned = binSeries(loss.data(), n, view.keyAt(0), view.keyAt(size.x), bins);
    for (int b = 0; b < bins; ++b) {
        const Bin& bin = binned[static_cast<size_t>(b)];
        if (bin.empty) continue;
        const float h = frac(bin.max) * (size.y - 2);
        const float x = origin.x + static_cast<float>(b);
        const int heat = static_cast<int>((frac(bin.max) - 0.1f) / 0.9f * 200);
        dl->AddRectFilled(ImVec2(x, origin.y + size.y - h), ImVec2(x + 1, origin.y + size.y),
                          IM_COL32(80 + heat * 5 / 6, 140 - heat / 2, 220 - heat, 255));
    }
    if (context.cursor() >= 0) {
        const float x = origin.x + static_cast<float>(view.screenX(context.cursor() + 0.5));
        if (x >= origin.x && x <= origin.x + size.x)
            dl->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + size.y),
                        IM_COL32(255, 80, 80, 255));
    }
    dl->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(200, 200, 200, 200),
                ("loss " + std::to_string(m_minLoss).substr(0, 4) + "-" +
                 std::to_string(m_maxLoss).substr(0, 4) + " nat")
                    .c_str());

    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("##loss-strip", size);
    if (ImGui::IsItemHovered()) {
        const double key = view.keyAt(ImGui::GetIO().MousePos.x - origin.x);
        if (key >= 0 && key < static_cast<double>(n)) {
            const int64_t i = static_cast<int64_t>(key);
            wrappedTooltipf("token %lld '%s'\nloss %.4f nat", static_cast<long long>(i),
                            displayToken(doc.tokens.text[static_cast<size_t>(i)]).c_str(),
                            static_cast<double>(loss[static_cast<size_t>(i)]));
            if (ImGui::IsItemClicked()) context.setCursor(i);
        }
    }
}

}  // namespace gatescope::widgets
