#include "widgets/gui/overview_panel.h"
#include "widgets/gui/imgui_text.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

namespace gatescope::widgets {

namespace {

/// Mean retention exp(log f) per [layer][head], NaN where a layer has no gates (or a head's
/// gates cannot be read). Streams each head's gates once: O(layers x heads) memory.
Result<std::vector<std::vector<float>>> meanRetentionPerHead(const TraceDocument& doc,
                                                             const std::atomic<bool>& cancelled) {
    std::vector<std::vector<float>> mean;
    for (const auto& layer : doc.summary().layers) {
        std::vector<float> means(static_cast<size_t>(layer.header.nHeads), NAN);
        for (int h = 0; layer.hasGates && h < layer.header.nHeads; ++h) {
            if (cancelled) return Error{ErrorKind::Cancelled, "cancelled", {}, {}};
            auto g = doc.reader->gatesForHead(layer.index, h, 0, doc.n());
            if (!g) continue;
            double sum = 0;
            for (float v : g->values)
                sum += std::exp(v);
            means[static_cast<size_t>(h)] =
                static_cast<float>(sum / std::max<size_t>(1, g->values.size()));
        }
        mean.push_back(std::move(means));
    }
    return mean;
}

}  // namespace

void OverviewPanel::startRetentionSummary() {
    m_retentionRequested = true;
    m_jobs.start(
        "meanRetention",
        [doc = m_session.documentPtr()](const std::atomic<bool>& cancelled) {
            return meanRetentionPerHead(*doc, cancelled);
        },
        [this](Result<std::vector<std::vector<float>>> mean) {
            // On an error (what the work threw) the cells stay blank, like unreadable heads.
            if (mean) m_meanRetention = std::move(*mean);
            requestRepaint();
        });
}

void OverviewPanel::draw(PanelFrame& frame) {
    const auto& layers = m_session.document().summary().layers;
    int mode = static_cast<int>(m_mode);
    ImGui::RadioButton("attention", &mode, 0);
    ImGui::SameLine();
    ImGui::RadioButton("decay", &mode, 1);
    ImGui::SameLine();
    ImGui::RadioButton("retention", &mode, 2);
    m_mode = static_cast<Mode>(mode);
    if (m_mode == Mode::Retention && !m_retentionRequested) startRetentionSummary();

    int maxHeads = 1;
    for (const auto& l : layers)
        maxHeads = std::max(maxHeads, l.header.nHeads);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float labelW = 34;
    const float side = std::clamp(std::min((avail.x - labelW) / maxHeads - 3,
                                           (avail.y - 16) / std::max<size_t>(1, layers.size()) - 3),
                                  12.f, 160.f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    m_textures.beginFrame(0, ColorSettings{}, ValueRange{0, 1}, 64);
    std::vector<TileKey> wanted;
    bool openMenu = false;
    m_cellCenters.clear();
    for (size_t li = 0; li < layers.size(); ++li) {
        const auto& layer = layers[li];
        const float y = origin.y + 14 + li * (side + 3);
        dl->AddText(ImVec2(origin.x, y + side / 2 - 7), IM_COL32(200, 200, 200, 255),
                    ("L" + std::to_string(layer.index)).c_str());
        for (int h = 0; h < layer.header.nHeads; ++h) {
            const ImVec2 p0(origin.x + labelW + h * (side + 3), y);
            if (li == 0)
                dl->AddText(ImVec2(p0.x, origin.y), IM_COL32(200, 200, 200, 255),
                            ("h" + std::to_string(h)).c_str());
            const LevelRange range =
                levelRangeOf(layer, m_mode == Mode::Decay ? MapView::Decay : MapView::Attention);
            if (m_mode != Mode::Retention && range.hasPyramid) {
                wanted.push_back(TileKey{
                    layer.index, h, m_mode == Mode::Decay ? MapView::Decay : MapView::Attention,
                    data::Pool::Max, range.coarsest, false, 0, 0});
            }
            drawCell(dl, frame.textures, layer.index, h, p0, side);
            ImGui::SetCursorScreenPos(p0);
            ImGui::PushID(layer.index * 4096 + h);
            if (ImGui::InvisibleButton("##cell", ImVec2(side, side)))
                m_session.context().setLayerHead(layer.index, h);
            if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) {
                m_session.context().setLayerHead(layer.index, h);
                openMenu = true;
            }
            m_cellCenters[{layer.index, h}] = ImVec2(p0.x + side / 2, p0.y + side / 2);
            if (ImGui::IsItemHovered())
                wrappedTooltipf("layer %d head %d (right-click: What if...)", layer.index, h);
            ImGui::PopID();
            const auto& ctx = m_session.context();
            if (ctx.layer() == layer.index && ctx.head() == h) {
                dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + side + 2, p0.y + side + 2),
                            IM_COL32(255, 80, 80, 255), 0, 0, 2);
            }
        }
    }
    // A cell's right-click menu, opened outside the cells' ID scopes.
    if (openMenu) ImGui::OpenPopup("##overview_menu");
    if (ImGui::BeginPopup("##overview_menu")) {
        const auto& ctx = m_session.context();
        const std::string item = "What if... (layer " + std::to_string(ctx.layer()) + ", head " +
                                 std::to_string(ctx.head()) + ")";
        if (ImGui::MenuItem(item.c_str(), nullptr, false, static_cast<bool>(m_onWhatIf)))
            m_onWhatIf();
        ImGui::EndPopup();
    }
    if (wanted != m_lastRequest) {
        m_session.tiles().request(ViewerSession::kOverviewChannel, wanted);
        m_lastRequest = wanted;
    }
    m_textures.endFrame(frame.textures);
}

std::optional<ImVec2> OverviewPanel::cellCenter(int layer, int head) const {
    auto it = m_cellCenters.find({layer, head});
    if (it == m_cellCenters.end()) return std::nullopt;
    return it->second;
}

void OverviewPanel::drawCell(ImDrawList* dl, GlTextures& gl, int layer, int head, ImVec2 p0,
                             float side) {
    const ImVec2 p1(p0.x + side, p0.y + side);
    dl->AddRectFilled(p0, p1, IM_COL32(30, 30, 34, 255));
    if (m_mode == Mode::Retention) {
        if (!m_meanRetention) return;
        const auto& means = *m_meanRetention;
        const auto& info = m_session.document().summary().layers;
        for (size_t li = 0; li < info.size(); ++li) {
            if (info[li].index != layer || li >= means.size() || head >= int(means[li].size()))
                continue;
            const float m = means[li][static_cast<size_t>(head)];
            if (std::isnan(m)) {
                dl->AddText(ImVec2(p0.x + 2, p0.y + 2), IM_COL32(150, 150, 150, 255), "-");
                return;
            }
            dl->AddRectFilled(p0, p1, colorOf(m, ColorSettings{}, ValueRange{0, 1}));
            char buf[16];
            std::snprintf(buf, sizeof buf, "%.3f", m);
            if (side > 40) dl->AddText(ImVec2(p0.x + 2, p0.y + 2), IM_COL32(0, 0, 0, 255), buf);
        }
        return;
    }
    const data::LayerInfo* info = m_session.document().summary().layer(layer);
    const MapView map = m_mode == Mode::Decay ? MapView::Decay : MapView::Attention;
    const LevelRange range = info ? levelRangeOf(*info, map) : LevelRange{};
    if (!range.hasPyramid) return;
    TilePtr tile = m_session.tiles().find(
        TileKey{layer, head, map, data::Pool::Max, range.coarsest, false, 0, 0});
    if (!tile) return;
    // The view's colormap and scale (issue 25: the Overview honours them). Each small map spans
    // its own range unless the view's is fixed, so weak heads stay visible.
    const ColorSettings& colors = m_session.context().colors();
    const ValueRange r = resolveRange(colors, tile->min, tile->max, tile->minPositive);
    // The style is the colours and the tile's own range: a texture is recoloured only when
    // either changes.
    uint64_t style = std::hash<double>()(r.hi) ^ (std::hash<double>()(r.lo) << 1);
    style ^= (std::hash<double>()(colors.gamma) << 2) ^ (std::hash<double>()(colors.logFloor) << 3);
    style ^= (static_cast<uint64_t>(colors.colormap) << 56) ^
             (static_cast<uint64_t>(colors.scale) << 60);
    if (const uint32_t tex = m_textures.get(gl, *tile, style, colors, r)) {
        const float u = static_cast<float>(tile->cols) / kTile,
                    v = static_cast<float>(tile->rows) / kTile;
        dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex)), p0, p1,
                     ImVec2(0, 0), ImVec2(u, v));
    }
}

}  // namespace gatescope::widgets
