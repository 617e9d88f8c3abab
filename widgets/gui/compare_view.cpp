#include "widgets/gui/compare_view.h"

#include "core/analysis/compare.h"
#include "widgets/gui/compare_panel.h"
#include "widgets/gui/diff_canvas_panel.h"
#include "widgets/gui/diverging_strip.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/imgui_host.h"
#include "widgets/view/compare_model.h"
#include "widgets/view/difference_loader.h"

namespace gatescope::widgets {

namespace {

/// Per position lossA - lossB of the same tokens (NaN where either has none).
std::vector<float> lossDelta(const TraceDocument& a, const TraceDocument& b) {
    std::vector<float> delta;
    if (!a.perToken || !b.perToken) return delta;
    const auto &la = a.perToken->loss, &lb = b.perToken->loss;
    delta.resize(std::min(la.size(), lb.size()));
    for (size_t t = 0; t < delta.size(); ++t)
        delta[t] = la[t] - lb[t];
    return delta;
}

}  // namespace

CompareView::CompareView(ViewerSession& a, ImGuiHost& canvasA,
                         std::shared_ptr<const TraceDocument> b)
    : m_a(a), m_canvasA(canvasA) {
    m_identical = a.document().tokens.ids == b->tokens.ids;
    m_b = std::make_unique<ViewerSession>(b, TileService::Options{});
    auto& panelA = static_cast<HeatmapCanvasPanel&>(canvasA.panel());
    auto panelB = std::make_unique<HeatmapCanvasPanel>(*m_b);
    panelA.setValuePrefix("A: ");
    panelB->setValuePrefix("B: ");
    m_link = std::make_unique<ContextLink>();
    m_link->add(a.context(), true);
    if (m_identical) {
        m_link->add(m_b->context(), true);
    } else {
        // Another tokenization of the same text: the cursor moves to the token of B that ends
        // at (or before) the byte where A's ends, and back; not linked without an alignment.
        auto pairs = core::alignTokens(a.document().tokens, b->tokens).pairs;
        const bool aligned = !pairs.empty();
        m_link->add(m_b->context(), true, aligned, alignedPosition(pairs, true),
                    alignedPosition(pairs, false));
    }
    // One colour range for A and B (as the CLI's compare figure); the pointed cell is shared
    // when the cells are the same pairs of tokens.
    m_canvasLink = std::make_shared<CanvasLink>(m_identical);
    panelA.shareCanvasLink(m_canvasLink);
    panelB->shareCanvasLink(m_canvasLink);
    if (m_identical) {
        m_viewport = std::make_shared<Viewport>(panelA.view());
        panelA.shareViewport(m_viewport, true);
        panelB->shareViewport(m_viewport, false);
        m_diff = std::make_unique<ViewerSession>(a.documentPtr(),
                                                 differenceLoader(a.document().reader, b->reader),
                                                 TileService::Options{});
        ColorSettings diverging;
        diverging.colormap = ColormapKind::Diverging;
        diverging.scale = ScaleKind::Gamma;  // symmetric gamma: small differences show
        diverging.gamma = 0.5;
        m_diff->context().setColors(diverging);  // automatic range symmetric around 0
        m_link->add(m_diff->context(), false);
        auto diff = std::make_unique<DiffCanvasPanel>(*m_diff, a.document().reader, b->reader);
        diff->canvas().shareViewport(m_viewport, false);
        diff->canvas().shareCanvasLink(m_canvasLink, false);
        auto strip = std::make_shared<DivergingStrip>();
        auto delta = std::make_shared<const std::vector<float>>(lossDelta(a.document(), *b));
        diff->canvas().setStrip([strip, delta](const Viewport& v, ImVec2 at, ImVec2 size) {
            strip->draw("loss A - B (blue: A better)", *delta, v.keyAt(0), v.keyAt(size.x), at,
                        size, "nats", 0);
        });
        m_hostDiff = new ImGuiHost(std::move(diff));
        m_hostDiff->setObjectName("diffCanvas");
        connect(m_diff.get(), &ViewerSession::tilesArrived, this, &CompareView::repaintAll);
        connect(m_diff.get(), &ViewerSession::contextChanged, this, &CompareView::repaintAll);
    }
    m_hostB = new ImGuiHost(std::move(panelB));
    m_hostB->setObjectName("canvasB");
    const Viewport* keys = m_viewport ? m_viewport.get() : &panelA.view();
    auto visibleKeys = [keys] { return keys->visible(); };
    std::function<void(DiffMode)> modeSwitch;
    if (m_identical) modeSwitch = [this](DiffMode m) { setMode(m); };
    m_hostPanel = new ImGuiHost(
        std::make_unique<ComparePanel>(a, b->reader, visibleKeys, std::move(modeSwitch)));
    m_hostPanel->setObjectName("compare");
    setMode(DiffMode::Difference);
    connect(m_b.get(), &ViewerSession::tilesArrived, this, &CompareView::repaintAll);
    connect(m_b.get(), &ViewerSession::contextChanged, this, &CompareView::repaintAll);
    connect(&a, &ViewerSession::contextChanged, this, &CompareView::repaintAll);
    // Locked zoom and pan: a canvas that moved the shared viewport repaints the others.
    for (ImGuiHost* host : {&m_canvasA, m_hostB, m_hostDiff})
        if (host) connect(host, &ImGuiHost::framePainted, this, &CompareView::syncViewport);
}

CompareView::~CompareView() {
    // No more repaints from A (deleting hosts resizes the splitter, which repaints A's canvas).
    disconnect(&m_canvasA, nullptr, this, nullptr);
    disconnect(&m_a, nullptr, this, nullptr);
    // Hosts first: their panels draw the sessions below.
    for (ImGuiHost** host : {&m_hostPanel, &m_hostDiff, &m_hostB}) {
        delete *host;
        *host = nullptr;
    }
    auto& panelA = static_cast<HeatmapCanvasPanel&>(m_canvasA.panel());
    panelA.setValuePrefix({});
    panelA.shareCanvasLink(nullptr);
    panelA.shareViewport(std::make_shared<Viewport>(panelA.view()), true);
}

HeatmapCanvasPanel& CompareView::canvasPanelB() {
    return static_cast<HeatmapCanvasPanel&>(m_hostB->panel());
}

DiffCanvasPanel* CompareView::diffPanel() {
    return m_hostDiff ? static_cast<DiffCanvasPanel*>(&m_hostDiff->panel()) : nullptr;
}

ComparePanel& CompareView::comparePanel() {
    return static_cast<ComparePanel&>(m_hostPanel->panel());
}

void CompareView::setMode(DiffMode mode) {
    DiffCanvasPanel* diff = diffPanel();
    if (!diff) return;
    diff->canvas().setTileVariant(static_cast<int>(mode));
    diff->canvas().setValuePrefix(mode == DiffMode::LogRatio ? "log pA - log pB of " : "A - B of ");
    m_hostDiff->requestFrames();
}

void CompareView::repaintAll() {
    for (ImGuiHost* host : {&m_canvasA, m_hostB, m_hostDiff, m_hostPanel})
        if (host) host->requestFrames();
}

void CompareView::syncViewport() {
    if (m_canvasLink && m_canvasLink->serial() != m_lastRangeSerial) {
        // The shared range moved (a canvas saw new values): the others recolour.
        m_lastRangeSerial = m_canvasLink->serial();
        repaintAll();
    }
    if (!m_viewport) return;
    const Viewport& v = *m_viewport;
    if (v.tokensPerPixel() == m_lastTpp && v.keyAt(0) == m_lastKey && v.queryAt(0) == m_lastQuery)
        return;
    m_lastTpp = v.tokensPerPixel(), m_lastKey = v.keyAt(0), m_lastQuery = v.queryAt(0);
    repaintAll();
}

}  // namespace gatescope::widgets
