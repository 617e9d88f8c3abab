#include "widgets/gui/compare_panel.h"

#include "widgets/gui/imgui_text.h"

#include <cmath>

#include <fmt/format.h>
#include <imgui.h>

#include "widgets/gui/job_outcome.h"

namespace gatescope::widgets {

ComparePanel::ComparePanel(ViewerSession& a, std::shared_ptr<const data::TraceReader> b,
                           std::function<TokenRect()> visibleKeys,
                           std::function<void(DiffMode)> setMode)
    : m_a(a),
      m_b(std::move(b)),
      m_visibleKeys(std::move(visibleKeys)),
      m_setMode(std::move(setMode)),
      m_jobs(a.jobs()) {}

const CompareSummary* ComparePanel::summary() const {
    return m_summary && *m_summary ? &**m_summary : nullptr;
}

void ComparePanel::setMode(DiffMode mode) {
    m_mode = mode;
    if (m_setMode) m_setMode(mode);
    requestRepaint();
}

void ComparePanel::draw(PanelFrame&) {
    auto a = m_a.document().reader;
    if (!m_summaryRequested) {  // the first frame: the repaint callback is set by now
        m_summaryRequested = true;
        m_jobs.start(
            "summary",
            [a, b = m_b](const std::atomic<bool>&) { return summarizeComparison(*a, *b); },
            [this](Result<CompareSummary> summary) {
                m_summary = std::move(summary);
                requestRepaint();
            });
    }
    const ViewContext& ctx = m_a.context();
    if (ctx.layer() != m_retentionLayer || ctx.head() != m_retentionHead) {
        m_retentionLayer = ctx.layer(), m_retentionHead = ctx.head();
        m_retention.reset();
        m_jobs.start(
            "retention",
            [a, b = m_b, layer = ctx.layer(), head = ctx.head()](const std::atomic<bool>&) {
                return retentionDifference(*a, *b, layer, head);
            },
            [this](Result<std::vector<float>> difference) {
                m_retention = std::move(difference);
                requestRepaint();
            });
    }
    const CompareSummary* s =
        shownValue(m_summary, fmt::format("comparing {} with {} ...", a->path(), m_b->path()));
    if (!s) return;
    drawBanner(*s);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    ImGui::BeginChild("##strips", ImVec2(avail.x * 0.62f, avail.y), false);
    drawStrips(*s, ImVec2(avail.x * 0.62f - 8, avail.y));
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##bins", ImVec2(0, avail.y), false);
    drawBins(*s);
    ImGui::EndChild();
}

void ComparePanel::drawBanner(const CompareSummary& s) {
    const std::string traces =
        fmt::format("A = {}  vs  B = {}", m_a.document().summary().path, m_b->path());
    ImGui::TextUnformatted(traces.c_str());
    if (s.identical()) {
        ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1),
                           "same %lld tokens: maps locked cell by cell",
                           static_cast<long long>(s.nA));
    } else {
        // Differing tokenizations: say so, and whether byte offsets could align them.
        const std::string text =
            s.aligned() > 0
                ? fmt::format(
                      "{}. No difference map (cells are not the same token pairs); the "
                      "loss delta and the cursor are aligned by byte offsets.",
                      s.alignment.note)
                : fmt::format("The inputs differ ({} vs {} tokens) and cannot be aligned: {}.",
                              s.nA, s.nB, s.alignment.note);
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.7f, 0.3f, 1));
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopStyleColor();
    }
    if (!m_setMode) return;
    ImGui::SameLine(0, 30);
    ImGui::TextUnformatted("difference:");
    for (DiffMode mode : {DiffMode::Difference, DiffMode::LogRatio}) {
        ImGui::SameLine();
        if (ImGui::RadioButton(toString(mode), m_mode == mode)) setMode(mode);
    }
}

void ComparePanel::drawStrips(const CompareSummary& s, ImVec2 size) {
    const TokenRect keys = m_visibleKeys ? m_visibleKeys() : TokenRect{0, 0, double(s.nA), 0};
    const double k0 = std::max(0.0, keys.x0), k1 = std::min(double(s.nA), keys.x1);
    if (s.loss && s.loss->positions > 0)
        ImGui::Text(
            "mean lossA - lossB %+.4f nats/token; A predicts better at %.1f%% of %lld "
            "aligned positions (keys %.0f-%.0f on screen)",
            s.loss->meanDelta, s.loss->aBetterFraction * 100,
            static_cast<long long>(s.loss->positions), k0, k1);
    else
        ImGui::TextDisabled(s.aligned() > 0 ? "no per-token loss: no loss delta"
                                            : "no aligned positions: no loss delta");
    const float h = std::clamp((size.y - 70) / 2, 18.f, 40.f);
    ImVec2 at = ImGui::GetCursorScreenPos();
    int64_t clicked = -1;
    if (!s.lossStrip.empty())
        clicked = m_lossStrip.draw("loss A - B", s.lossStrip, k0, k1, at, ImVec2(size.x, h),
                                   "nats (A - B; < 0: A better)");
    at.y += h + 6;
    if (retentionDone()) {
        const std::string label = fmt::format("retention A - B h{}", m_retentionHead);
        if (*m_retention) {
            const int64_t c = m_retentionStrip.draw(label, **m_retention, k0, k1, at,
                                                    ImVec2(size.x, h), "(retention A - B)");
            clicked = c >= 0 ? c : clicked;
        } else {
            // Cut to the panel (hover for all of it).
            drawElidedText(ImGui::GetWindowDrawList(), at, size.x, IM_COL32(180, 180, 180, 255),
                           retentionMessage());
        }
    }
    ImGui::Dummy(ImVec2(size.x, 2 * h + 10));
    ImGui::TextDisabled(
        "blue: A lower (loss) / A retains less; red: A higher. Range +-%.3g / +-%.3g",
        m_lossStrip.range(), m_retentionStrip.range());
    if (clicked >= 0) m_a.context().setCursor(clicked);
}

void ComparePanel::drawBins(const CompareSummary& s) {
    ImGui::TextUnformatted("Where the loss gap comes from (position bins)");
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY;
    if (!ImGui::BeginTable("##bins", 4, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* name : {"positions", "mean A - B", "count", "share of gap"})
        ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    if (!s.loss) {
        ImGui::EndTable();
        return;
    }
    for (const core::LossGapBin& bin : s.loss->exponentialBins) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%lld-%lld", static_cast<long long>(bin.begin),
                    static_cast<long long>(bin.end - 1));
        ImGui::TableNextColumn();
        if (!bin.meanDelta)
            ImGui::TextDisabled("-");
        else
            ImGui::TextColored(
                *bin.meanDelta < 0 ? ImVec4(0.5f, 0.7f, 1, 1) : ImVec4(1, 0.55f, 0.5f, 1), "%+.4f",
                *bin.meanDelta);
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(bin.count));
        ImGui::TableNextColumn();
        if (!bin.shareOfGap)
            ImGui::TextDisabled("-");
        else
            ImGui::Text("%.1f%%", *bin.shareOfGap * 100);
    }
    ImGui::EndTable();
}

}  // namespace gatescope::widgets
