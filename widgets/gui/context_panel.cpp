#include "widgets/gui/context_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/stats_report.h"
#include "widgets/gui/gl_textures.h"
#include "widgets/gui/imgui_text.h"
#include "widgets/view/color_scale.h"

namespace gatescope::widgets {

namespace {
constexpr const char* kContextJob = "context";
/// Position bins across the map: about this many, of at least 16 tokens.
constexpr int64_t kContextBins = 200;
}  // namespace

void ContextPanel::compute(bool attention) {
    m_started = true;
    m_message.clear();
    std::shared_ptr<const TraceDocument> document = m_session.documentPtr();
    m_jobs.start(
        kContextJob,
        [document, attention](const std::atomic<bool>& cancelled) -> Result<ContextMap> {
            core::StatsOptions options;
            options.attention = attention;
            options.attentionOptions.cancel = &cancelled;
            options.linearBinWidth =
                std::max<int64_t>(16, (document->n() + kContextBins - 1) / kContextBins);
            auto report = core::statsReport({document->reader}, options);
            if (!report) return report.error();
            return contextMap(*report);
        },
        [this, attention](Result<ContextMap> map) {
            if (map) {
                m_map = std::move(*map);
                if (attention && m_map->hasAttention) m_kind = HorizonKind::Attention;
                if (!m_map->hasGate && m_map->hasAttention) m_kind = HorizonKind::Attention;
            } else {
                m_message = map.error().describe();
            }
            m_texMap = nullptr;
            requestRepaint();
        });
}

bool ContextPanel::computing() const {
    return m_jobs.busy(kContextJob);
}

void ContextPanel::setKind(HorizonKind kind) {
    m_kind = kind;
    requestRepaint();
}

void ContextPanel::open(size_t row, size_t bin) {
    if (!m_map || row >= m_map->heads.size() || bin >= static_cast<size_t>(m_map->bins)) return;
    const auto [layer, head] = m_map->heads[row];
    m_session.context().setLayerHead(layer, head);
    const int64_t middle = static_cast<int64_t>(bin) * m_map->binWidth + m_map->binWidth / 2;
    m_session.context().focusOn(std::min(middle, m_map->nTokens - 1));
    requestRepaint();
}

std::optional<ImVec2> ContextPanel::cellCenter(size_t row, size_t bin) const {
    if (!m_origin || !m_map || row >= m_map->heads.size()) return std::nullopt;
    return ImVec2(m_origin->x + (static_cast<float>(bin) + 0.5f) * m_cell.x,
                  m_origin->y + (static_cast<float>(row) + 0.5f) * m_cell.y);
}

void ContextPanel::releaseGl(GlTextures& textures) {
    if (m_texture) textures.destroy(m_texture);
    m_texture = 0;
    m_texMap = nullptr;
}

void ContextPanel::draw(PanelFrame& frame) {
    m_origin.reset();
    if (!m_started) compute(false);
    const bool busy = computing();
    if (ImGui::RadioButton("gate horizon", m_kind == HorizonKind::Gate)) setKind(HorizonKind::Gate);
    ImGui::SameLine();
    ImGui::BeginDisabled(!m_map || !m_map->hasAttention);
    if (ImGui::RadioButton("attention horizon (90% of the mass)", m_kind == HorizonKind::Attention))
        setKind(HorizonKind::Attention);
    ImGui::EndDisabled();
    if (busy) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) m_jobs.cancel(kContextJob), m_started = true;
        ImGui::SameLine();
        ImGui::TextDisabled("computing...");
    } else if (!m_map || !m_map->hasAttention) {
        ImGui::SameLine();
        if (ImGui::Button("Compute attention horizons")) compute(true);
        if (ImGui::IsItemHovered())
            wrappedTooltipf("Exact, from the stored factors: O(N^2) work per head, on a worker.");
    }
    if (!m_message.empty()) {
        ImGui::TextWrapped("%s", m_message.c_str());
        return;
    }
    if (!m_map) return;
    if (m_map->heads.empty() || (m_kind == HorizonKind::Gate && !m_map->hasGate)) {
        ImGui::TextWrapped(
            "No head has a gate horizon (a model without forget gates): compute attention "
            "horizons instead.");
        return;
    }
    drawMap(frame.textures);
}

void ContextPanel::drawMap(GlTextures& gl) {
    const ContextMap& map = *m_map;
    const int rows = static_cast<int>(map.heads.size()), bins = static_cast<int>(map.bins);
    if (!m_texture || m_texMap != &map || m_texKind != m_kind) {
        ColorSettings colors;
        std::vector<uint32_t> pixels(static_cast<size_t>(rows * bins));
        for (int r = 0; r < rows; ++r)
            for (int b = 0; b < bins; ++b) {
                const double h =
                    map.horizon(m_kind, static_cast<size_t>(r), static_cast<size_t>(b));
                pixels[static_cast<size_t>(r * bins + b)] =
                    std::isnan(h) ? 0u : colorOf(std::log2(1.0 + h), colors, {0, map.scaleTop()});
            }
        if (m_texture) gl.destroy(m_texture);
        m_texture = gl.create(bins, rows, pixels.data());
        m_texMap = &map;
        m_texKind = m_kind;
    }
    const float labels = 60, lossHeight = 60;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float width = std::max(40.f, avail.x - labels - 8);
    const float height = std::max(20.f, avail.y - lossHeight - 8);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 p0(start.x + labels, start.y);
    m_origin = p0;
    m_cell = ImVec2(width / float(bins), height / float(rows));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int every =
        std::max(1, static_cast<int>(std::ceil(ImGui::GetTextLineHeight() / m_cell.y)));
    for (int r = 0; r < rows; r += every) {
        char label[32];
        std::snprintf(label, sizeof label, "L%d H%d", map.heads[static_cast<size_t>(r)].first,
                      map.heads[static_cast<size_t>(r)].second);
        dl->AddText(ImVec2(start.x, p0.y + r * m_cell.y), IM_COL32(200, 200, 200, 255), label);
    }
    ImGui::SetCursorScreenPos(p0);
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_texture)),
                 ImVec2(width, height));
    if (ImGui::IsItemHovered()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const size_t r = static_cast<size_t>(std::clamp(int((m.y - p0.y) / m_cell.y), 0, rows - 1));
        const size_t b = static_cast<size_t>(std::clamp(int((m.x - p0.x) / m_cell.x), 0, bins - 1));
        const double h = map.horizon(m_kind, r, b);
        wrappedTooltipf(
            "layer %d head %d, positions %lld-%lld: %s horizon %s tokens; loss %.3f "
            "nat\nclick: show this head, cursor in this bin",
            map.heads[r].first, map.heads[r].second, static_cast<long long>(b * map.binWidth),
            static_cast<long long>(std::min<int64_t>((b + 1) * map.binWidth, map.nTokens) - 1),
            m_kind == HorizonKind::Gate ? "gate" : "attention",
            std::isnan(h) ? "none" : std::to_string(std::lround(h)).c_str(), map.loss[b]);
        if (ImGui::IsItemClicked()) open(r, b);
    }
    drawLoss(ImVec2(p0.x, p0.y + height + 6), width, lossHeight - 6);
}

void ContextPanel::drawLoss(ImVec2 origin, float width, float height) {
    const ContextMap& map = *m_map;
    // Bars over the bins' own range (losses of a trained model sit far from 0).
    double lo = INFINITY, hi = -INFINITY;
    for (double v : map.loss)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRect(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(90, 90, 100, 255));
    const float step = width / float(map.bins);
    for (size_t b = 0; b < map.loss.size() && lo <= hi; ++b) {
        if (!std::isfinite(map.loss[b])) continue;
        const double share = hi > lo ? (map.loss[b] - lo) / (hi - lo) : 1.0;
        const float top = origin.y + height - 2 - float(share) * (height - 2);
        dl->AddRectFilled(ImVec2(origin.x + b * step, top),
                          ImVec2(origin.x + (b + 1) * step, origin.y + height),
                          IM_COL32(200, 70, 70, 200));
    }
    dl->AddText(ImVec2(origin.x - 58, origin.y), IM_COL32(200, 200, 200, 255), "loss");
    if (lo <= hi) {
        char range[48];
        std::snprintf(range, sizeof range, "%.2f-%.2f", lo, hi);
        dl->AddText(ImVec2(origin.x - 58, origin.y + ImGui::GetTextLineHeight()),
                    IM_COL32(150, 150, 150, 255), range);
    }
    ImGui::Dummy(ImVec2(width, height));
}

}  // namespace gatescope::widgets
