#include "widgets/gui/diff_canvas_panel.h"
#include "widgets/gui/imgui_text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gatescope::widgets {

namespace {
constexpr ImU32 kKlColour = IM_COL32(255, 160, 60, 255);
constexpr ImU32 kJsColour = IM_COL32(90, 200, 255, 255);
constexpr ImU32 kText = IM_COL32(220, 220, 220, 255);
constexpr const char* kDivergenceJob = "divergences";
}  // namespace

DiffCanvasPanel::DiffCanvasPanel(ViewerSession& diff, std::shared_ptr<const data::TraceReader> a,
                                 std::shared_ptr<const data::TraceReader> b)
    : m_diff(diff), m_canvas(diff), m_a(std::move(a)), m_b(std::move(b)), m_jobs(diff.jobs()) {}

std::shared_ptr<const std::vector<RowDivergence>> DiffCanvasPanel::divergences() const {
    return m_result;
}

bool DiffCanvasPanel::divergencesCurrent() const {
    return !m_jobs.busy(kDivergenceJob) && m_resultFor == m_wanted;
}

void DiffCanvasPanel::draw(PanelFrame& frame) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    ImGui::BeginChild("##diffmap", ImVec2(std::max(64.f, avail.x - float(kTrackWidth)), avail.y),
                      false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    m_canvas.draw(frame);
    ImGui::EndChild();
    updateRequest();
    const ImVec2 o = m_canvas.canvasOrigin();
    drawTrack(ImVec2(start.x + avail.x - float(kTrackWidth) + 6, o.y),
              ImVec2(float(kTrackWidth) - 12, static_cast<float>(m_canvas.view().height())));
}

void DiffCanvasPanel::updateRequest() {
    const ViewContext& ctx = m_diff.context();
    const TokenRect r = m_canvas.view().visible();
    m_wanted = Request{ctx.layer(), ctx.head(),
                       sampleRows(static_cast<int64_t>(std::floor(r.y0)),
                                  static_cast<int64_t>(std::ceil(r.y1)), kMaxRows)};
    // One job at a time: when it lands, the rows then on screen get the next one.
    if (m_jobs.busy(kDivergenceJob) || m_wanted == m_resultFor || m_wanted.rows.empty()) return;
    m_jobs.start(
        kDivergenceJob,
        [a = m_a, b = m_b, req = m_wanted](const std::atomic<bool>& cancel) {
            return rowDivergences(*a, *b, req.layer, req.head, req.rows, cancel);
        },
        [this, req = m_wanted](Result<std::vector<RowDivergence>> rows) {
            m_error = rows ? std::string() : rows.error().describe();
            if (rows)
                m_result = std::make_shared<const std::vector<RowDivergence>>(std::move(*rows));
            m_resultFor = req;
            requestRepaint();
        });
}

void DiffCanvasPanel::drawTrack(ImVec2 origin, ImVec2 size) {
    // Two columns over the map's rows: KL(A||B) bars (scaled to the largest on screen) and JS
    // bars (0 to ln 2, its bound).
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Viewport& view = m_canvas.view();
    const float half = (size.x - 6) / 2;
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    dl->AddText(ImVec2(origin.x, origin.y - 18), kKlColour, "KL(A||B)");
    dl->AddText(ImVec2(origin.x + half + 6, origin.y - 18), kJsColour, "JS");
    for (float x0 : {origin.x, origin.x + half + 6})
        dl->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x0 + half, end.y),
                          IM_COL32(24, 24, 28, 255));
    if (!m_error.empty()) {
        dl->AddText(ImVec2(origin.x + 2, origin.y + 2), IM_COL32(255, 150, 120, 255), "error");
        if (ImGui::IsMouseHoveringRect(origin, end)) wrappedTooltipf("%s", m_error.c_str());
    }
    if (!m_result || m_result->empty()) return;
    const auto& rows = *m_result;
    double maxKl = 1e-12;
    for (const RowDivergence& d : rows)
        maxKl = std::max(maxKl, d.klAB);
    dl->PushClipRect(origin, end, true);
    const double step = rows.size() > 1 ? double(rows[1].row - rows[0].row) : 1.0;
    for (const RowDivergence& d : rows) {
        const float y0 = origin.y + static_cast<float>(view.screenY(double(d.row)));
        const float y1 =
            std::max(y0 + 1, origin.y + static_cast<float>(view.screenY(d.row + step)) - 0.5f);
        const float kl = static_cast<float>(d.klAB / maxKl) * half;
        const float js = static_cast<float>(d.js / std::log(2.0)) * half;
        dl->AddRectFilled(ImVec2(origin.x, y0), ImVec2(origin.x + kl, y1), kKlColour);
        dl->AddRectFilled(ImVec2(origin.x + half + 6, y0), ImVec2(origin.x + half + 6 + js, y1),
                          kJsColour);
    }
    dl->PopClipRect();
    const std::string scale = fmt::format("KL max {:.3g}", maxKl);
    dl->AddText(ImVec2(origin.x, end.y + 2), kText, scale.c_str());
    dl->AddText(ImVec2(origin.x, end.y + 16), kText, "JS 0..ln 2");
    if (!ImGui::IsMouseHoveringRect(origin, end)) return;
    const double q = view.queryAt(ImGui::GetIO().MousePos.y - origin.y);
    const auto it = std::min_element(rows.begin(), rows.end(), [q](const auto& x, const auto& y) {
        return std::abs(x.row - q) < std::abs(y.row - q);
    });
    wrappedTooltipf("row %lld\nKL(A||B) = %.4g nats\nJS = %.4g nats",
                    static_cast<long long>(it->row), it->klAB, it->js);
}

}  // namespace gatescope::widgets
