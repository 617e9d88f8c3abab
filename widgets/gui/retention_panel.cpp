#include "widgets/gui/retention_panel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "widgets/gui/gl_textures.h"
#include "widgets/gui/imgui_text.h"
#include "widgets/gui/job_outcome.h"
#include "widgets/view/color_scale.h"
#include "widgets/view/series_binning.h"
#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

void RetentionPanel::load(int layer, int head) {
    m_layer = layer;
    m_head = head;
    m_data.reset();
    m_jobs.start(
        "gates",
        [reader = m_session.document().reader, layer, head](const std::atomic<bool>&) {
            return loadRetention(*reader, layer, head);
        },
        [this](Result<std::shared_ptr<const RetentionData>> data) {
            m_data = std::move(data);
            requestRepaint();
        });
}

void RetentionPanel::releaseGl(GlTextures& gl) {
    gl.destroy(m_texture);
    m_texture = 0;
}

void RetentionPanel::draw(PanelFrame& frame) {
    const ViewContext& ctx = m_session.context();
    // Scalar gates: one load has every head of the layer, so choosing a head does not reload
    // (nor close a menu opened on its track).
    const bool allHeads = m_data && *m_data && !(**m_data)->perChannel();
    if (ctx.layer() != m_layer || (ctx.head() != m_head && !allHeads))
        load(ctx.layer(), ctx.head());
    m_head = ctx.head();
    const auto* data = shownValue(m_data, fmt::format("loading gates of layer {} ...", m_layer));
    if (!data) return;
    const int64_t n = (*data)->n;
    if (m_window.follow) {
        const auto [q0, q1] = ctx.visibleQueries();
        m_window = PositionWindow::following(q0, q1, n);
    }
    // Where the tracks are: the map's queries, or a zoom of the dock's own.
    ImGui::Text("positions %lld-%lld of %lld%s", static_cast<long long>(m_window.begin),
                static_cast<long long>(std::ceil(m_window.end)) - 1, static_cast<long long>(n),
                m_window.follow ? " (the map's queries; wheel to zoom here)" : " (zoomed here)");
    if (!m_window.follow) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Follow map")) m_window.follow = true;
    }
    if ((*data)->perChannel())
        drawChannels(**data, frame.textures);
    else
        drawScalar(**data);
}

void RetentionPanel::zoomOnWheel(float x0, float width, int64_t n) {
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel == 0 || width <= 0) return;
    const double at =
        m_window.begin + (ImGui::GetIO().MousePos.x - x0) / width * (m_window.end - m_window.begin);
    m_window = m_window.zoomed(at, std::pow(0.8, wheel), n);
    requestRepaint();
}

RetentionPanel::Track RetentionPanel::drawSeries(const char* id, const std::vector<float>& values,
                                                 ImVec2 size, float lo, float hi, ImU32 color) {
    // A y-axis: the value at the top and at the bottom of the track.
    const std::string top = fmt::format("{:.3g}", hi), bottom = fmt::format("{:.3g}", lo);
    const float axis =
        std::max(ImGui::CalcTextSize(top.c_str()).x, ImGui::CalcTextSize(bottom.c_str()).x) + 4;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lineH = ImGui::GetTextLineHeight();
    dl->AddText(ImVec2(origin.x, origin.y), IM_COL32(160, 160, 160, 255), top.c_str());
    if (size.y >= 2 * lineH)
        dl->AddText(ImVec2(origin.x, origin.y + size.y - lineH), IM_COL32(160, 160, 160, 255),
                    bottom.c_str());
    const ImVec2 p0(origin.x + axis, origin.y);
    size.x = std::max(8.f, size.x - axis);
    dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(28, 28, 32, 255));
    const int64_t n = static_cast<int64_t>(values.size());
    const int bins = std::max(1, static_cast<int>(size.x));
    const auto binned = binSeries(values.data(), n, m_window.begin, m_window.end, bins);
    auto yOf = [&](float v) {
        return p0.y + size.y - 1 - std::clamp((v - lo) / (hi - lo), 0.f, 1.f) * (size.y - 2);
    };
    const double perBin = (m_window.end - m_window.begin) / bins;
    for (int b = 0; b < bins; ++b) {
        const Bin& bin = binned[static_cast<size_t>(b)];
        if (bin.empty) continue;
        const float x = p0.x + b;
        // At token resolution a position spans several pixels: draw its value as a step.
        dl->AddLine(ImVec2(x, yOf(bin.min)), ImVec2(x, yOf(bin.max) - (perBin < 1 ? 2 : 1)), color);
    }
    const int64_t cur = m_session.context().cursor();
    if (cur >= 0 && n > 0) {
        const double f = m_window.fractionOf(static_cast<double>(cur));
        if (f >= 0 && f <= 1) {
            const float x = p0.x + size.x * static_cast<float>(f);
            dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p0.y + size.y), IM_COL32(255, 80, 80, 200));
        }
    }
    ImGui::SetCursorScreenPos(p0);
    ImGui::InvisibleButton(id, size);
    const Track track{ImVec2(p0.x + size.x / 2, p0.y + size.y / 2),
                      ImGui::IsItemClicked(ImGuiMouseButton_Right)};
    if (ImGui::IsItemHovered() && n > 0) {
        zoomOnWheel(p0.x, size.x, n);
        const int64_t i = m_window.positionAt((ImGui::GetIO().MousePos.x - p0.x) / size.x, n);
        const auto& tokens = m_session.document().tokens.text;
        const double f = values[static_cast<size_t>(i)];
        wrappedTooltipf("position %lld '%s': %.6f (log %.6g)", static_cast<long long>(i),
                        displayToken(tokens[static_cast<size_t>(i)]).c_str(), f,
                        f > 0 ? std::log(f) : -INFINITY);
        if (ImGui::IsItemClicked()) m_session.context().setCursor(i);
    }
    return track;
}

void RetentionPanel::drawScalar(const RetentionData& data) {
    ImGui::Text("layer %d: retention f per head over positions (scalar gates)", data.layer);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float h = std::clamp(avail.y / std::max(1, data.heads) - 4, 14.f, 60.f);
    float lo = 1;
    for (const auto& series : data.headRetention)
        lo = std::min(lo, finiteRange(series.data(), int64_t(series.size())).first);
    lo = std::min(lo, 0.999f);
    m_rowCenters.assign(static_cast<size_t>(data.heads), ImVec2());
    std::optional<int> rightClicked;
    for (int head = 0; head < data.heads; ++head) {
        const bool current = head == m_session.context().head();
        ImGui::TextColored(current ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.8f, 0.8f, 0.8f, 1),
                           "h%-2d", head);
        ImGui::SameLine();
        const std::string id = "##head" + std::to_string(head);
        const Track track =
            drawSeries(id.c_str(), data.headRetention[static_cast<size_t>(head)],
                       ImVec2(ImGui::GetContentRegionAvail().x, h), lo, 1.f,
                       current ? IM_COL32(255, 170, 90, 255) : IM_COL32(110, 170, 230, 255));
        m_rowCenters[static_cast<size_t>(head)] = track.center;
        if (track.rightClicked) rightClicked = head;
    }
    if (rightClicked) m_session.context().setLayerHead(data.layer, *rightClicked);
    whatIfMenu(rightClicked.has_value(), std::nullopt);
}

void RetentionPanel::whatIfMenu(bool open, std::optional<int> channel) {
    if (open) {
        m_menuChannel = channel;
        ImGui::OpenPopup("##retention_menu");
    }
    if (!ImGui::BeginPopup("##retention_menu")) return;
    const auto& ctx = m_session.context();
    const std::string where = fmt::format("layer {}, head {}", ctx.layer(), ctx.head());
    const bool enabled = static_cast<bool>(m_onWhatIf);
    if (m_menuChannel) {
        const std::string one = fmt::format("What if... ({}, channel {})", where, *m_menuChannel);
        if (ImGui::MenuItem(one.c_str(), nullptr, false, enabled)) m_onWhatIf(m_menuChannel);
        const std::string all = fmt::format("What if... ({}, all channels)", where);
        if (ImGui::MenuItem(all.c_str(), nullptr, false, enabled)) m_onWhatIf(std::nullopt);
    } else {
        const std::string item = fmt::format("What if... ({})", where);
        if (ImGui::MenuItem(item.c_str(), nullptr, false, enabled)) m_onWhatIf(std::nullopt);
    }
    ImGui::EndPopup();
}

std::optional<ImVec2> RetentionPanel::rowCenter(int channel) const {
    if (channel < 0 || channel >= static_cast<int>(m_rowCenters.size())) return std::nullopt;
    return m_rowCenters[static_cast<size_t>(channel)];
}

void RetentionPanel::drawChannels(const RetentionData& data, GlTextures& gl) {
    ImGui::Text(
        "layer %d head %d: %d gate channels (A) retention, (B) channel %d, (C) cumulative from "
        "cursor",
        data.layer, data.head, data.channels, m_channel);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int width = std::max(16, static_cast<int>(avail.x));
    const float heatH = std::max(40.f, avail.y * 0.5f);
    // (A) channels x positions of the window, binned means, retention in [0, 1] with viridis.
    if (!m_texture || m_texWidth != width || m_texData != &data ||
        m_texWindow.begin != m_window.begin || m_texWindow.end != m_window.end) {
        std::vector<uint32_t> pixels(static_cast<size_t>(width * data.channels));
        for (int c = 0; c < data.channels; ++c) {
            const auto series = channelRetention(data, c);
            const auto bins = binSeries(series.data(), data.n, m_window.begin, m_window.end, width);
            for (int x = 0; x < width; ++x)
                pixels[static_cast<size_t>(c * width + x)] =
                    colorOf(bins[static_cast<size_t>(x)].mean, ColorSettings{}, ValueRange{0, 1});
        }
        if (m_texture) gl.destroy(m_texture);
        m_texture = gl.create(width, data.channels, pixels.data());
        m_texWidth = width;
        m_texData = &data;
        m_texWindow = m_window;
    }
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_texture)),
                 ImVec2(float(width), heatH));
    m_rowCenters.resize(static_cast<size_t>(data.channels));
    for (int c = 0; c < data.channels; ++c)
        m_rowCenters[static_cast<size_t>(c)] =
            ImVec2(p0.x + width / 2.f, p0.y + (c + 0.5f) * heatH / data.channels);
    bool rightClicked = false;
    if (ImGui::IsItemHovered()) {
        zoomOnWheel(p0.x, float(width), data.n);
        const int c =
            std::clamp(static_cast<int>((ImGui::GetIO().MousePos.y - p0.y) / heatH * data.channels),
                       0, data.channels - 1);
        const int64_t i = m_window.positionAt((ImGui::GetIO().MousePos.x - p0.x) / width, data.n);
        const auto series = channelRetention(data, c);
        wrappedTooltipf(
            "channel %d, position %lld '%s': retention %.6f (click to choose; right-click: What "
            "if...)",
            c, static_cast<long long>(i),
            displayToken(m_session.document().tokens.text[static_cast<size_t>(i)]).c_str(),
            static_cast<double>(series[static_cast<size_t>(i)]));
        if (ImGui::IsItemClicked()) m_channel = c;
        if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) {
            m_channel = c;
            rightClicked = true;
        }
    }
    whatIfMenu(rightClicked, m_channel);
    m_channel = std::clamp(m_channel, 0, data.channels - 1);
    const float rowH = std::max(20.f, (ImGui::GetContentRegionAvail().y - 8) / 2);
    drawSeries("##timeline", channelRetention(data, m_channel), ImVec2(float(width), rowH), 0.f,
               1.f, IM_COL32(110, 170, 230, 255));
    const int64_t from = std::max<int64_t>(0, m_session.context().cursor());
    if (from != m_cumulativeFrom || m_channel != m_cumulativeChannel) {
        m_cumulative = cumulativeRetention(data, m_channel, from);
        m_cumulativeFrom = from;
        m_cumulativeChannel = m_channel;
    }
    drawSeries("##cumulative", m_cumulative, ImVec2(float(width), rowH), 0.f, 1.f,
               IM_COL32(255, 170, 90, 255));
}

}  // namespace gatescope::widgets
