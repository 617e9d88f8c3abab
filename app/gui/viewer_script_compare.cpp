// ViewerScript's compare mode commands: compare PATH, diff-mode, hover-b, hover-diff,
// row-divergence, and when compare mode counts as idle. See viewer_script.h.
#include <cmath>

#include <fmt/core.h>

#include "app/gui/viewer_script.h"
#include "widgets/gui/compare_panel.h"
#include "widgets/gui/compare_view.h"
#include "widgets/gui/diff_canvas_panel.h"
#include "widgets/gui/heatmap_canvas_panel.h"
#include "widgets/gui/main_window.h"
#include "widgets/gui/what_if_dialog.h"

namespace gatescope::app {

using namespace widgets;

namespace {

bool canvasIdle(HeatmapCanvasPanel& canvas, ViewerSession& session) {
    return canvas.complete() && session.tiles().outstanding() == 0;
}

}  // namespace

bool ViewerScript::compareIdle() {
    CompareView* c = m_window.compareView();
    if (!c) return true;
    const ComparePanel& panel = c->comparePanel();
    DiffCanvasPanel* diff = c->diffPanel();
    return canvasIdle(c->canvasPanelB(), c->sessionB()) && panel.summaryDone() &&
           panel.retentionDone() &&
           (!diff || (canvasIdle(diff->canvas(), *c->diffSession()) && diff->divergencesCurrent()));
}

std::optional<bool> ViewerScript::executeCompare(const std::vector<std::string>& w) {
    const std::string& cmd = w[0];
    auto arg = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
    if (cmd == "what-if") {
        // Right-click > What if... on the shown head (or the dialog a right-click elsewhere
        // opened for it): the change, Run, and compare mode with the intervened trace as B once
        // it is done.
        WhatIfDialog* dialog = m_window.whatIfDialog();
        const ViewContext* ctx = m_window.session() ? &m_window.session()->context() : nullptr;
        if (!dialog || !ctx || dialog->choice().layer != ctx->layer() ||
            dialog->choice().head != ctx->head()) {
            m_window.showWhatIf();
            dialog = m_window.whatIfDialog();
        }
        // Optional words after the change: a value (C or S) and channel=K.
        double value = 0.5;
        std::optional<int> channel;
        for (size_t i = 2; i < w.size(); ++i) {
            if (w[i].rfind("channel=", 0) == 0)
                channel = std::stoi(w[i].substr(8));
            else
                value = std::stod(w[i]);
        }
        if (!dialog || !dialog->setChange(QString::fromStdString(arg(1)), value) ||
            (channel && !dialog->setChannel(channel)))
            return false;
        m_compareOpened = false;
        m_expectCompare = true;
        bool finished = false, ok = false;
        QObject::connect(dialog, &WhatIfDialog::jobFinished, dialog, [&](bool good) {
            finished = true;
            ok = good;
        });
        dialog->run();
        if (!waitFor([&] { return finished; }, 240000)) return false;
        fmt::print("script: what-if {} ok={} status={}\n", arg(1), ok ? 1 : 0,
                   dialog->statusText().toStdString());
        if (!ok) {
            m_expectCompare = false;
            return true;  // what the dialog says is the result
        }
        if (!waitIdle()) return false;
    }
    if (cmd == "compare") {
        m_compareOpened = false;
        m_expectCompare = true;
        m_window.openCompare(QString::fromStdString(arg(1)));
        if (!waitIdle()) return false;
    }
    if (cmd == "compare" || cmd == "compare-summary" || cmd == "what-if") {
        if (!m_window.compareView() || !waitIdle()) return false;
        const CompareSummary* s = m_window.compareView()->comparePanel().summary();
        if (!s) return false;
        fmt::print(
            "script: compare identical={} tokens-a={} tokens-b={} aligned={} mean-delta={:.9g} "
            "a-better={:.9g} bins={} cursor-a={} cursor-b={}\n",
            s->identical() ? 1 : 0, s->nA, s->nB, s->aligned(), s->loss ? s->loss->meanDelta : NAN,
            s->loss ? s->loss->aBetterFraction : NAN,
            s->loss ? s->loss->exponentialBins.size() : size_t{0},
            m_window.session()->context().cursor(),
            m_window.compareView()->sessionB().context().cursor());
        return true;
    }
    CompareView* c = m_window.compareView();
    if (cmd == "diff-mode") {
        if (!c || !c->diffPanel()) return false;
        c->comparePanel().setMode(arg(1) == "log-ratio" ? DiffMode::LogRatio
                                                        : DiffMode::Difference);
        frames(2);
        return waitIdle();
    }
    if (cmd == "hover-b") {
        if (!c) return false;
        return hoverCell(c->canvasB(), &c->canvasPanelB(), c->sessionB().context(),
                         std::stoll(arg(1)), std::stoll(arg(2)), "hover-b");
    }
    if (cmd == "hover-diff") {
        if (!c || !c->diffPanel()) return false;
        return hoverCell(c->diffHost(), &c->diffPanel()->canvas(), c->diffSession()->context(),
                         std::stoll(arg(1)), std::stoll(arg(2)), "hover-diff");
    }
    if (cmd == "linked") {
        // After `hover` on A: the read-outs B's and the difference canvas show at that cell.
        if (!c) return false;
        const auto& pointer = c->canvasLink().pointer();
        if (!pointer) return false;
        std::vector<std::pair<std::string, ViewContext*>> others{{"b", &c->sessionB().context()}};
        if (c->diffSession()) others.emplace_back("diff", &c->diffSession()->context());
        for (auto& [name, ctx] : others) {
            const bool ok = waitFor(
                [&] {
                    frames(1);
                    const auto& h = ctx->hover();
                    return h && h->exact && h->query == pointer->query && h->key == pointer->key;
                },
                10000);
            if (!ok) return false;
            const HoverInfo& h = *ctx->hover();
            fmt::print("script: linked {} query={} key={} value={:.9g} exact={}\n", name, h.query,
                       h.key, h.value, h.exact ? 1 : 0);
        }
        return true;
    }
    if (cmd == "row-divergence") {
        if (!c || !c->diffPanel() || !waitIdle()) return false;
        auto rows = c->diffPanel()->divergences();
        if (!rows || rows->empty()) return false;
        double kl = 0, js = 0;
        for (const RowDivergence& r : *rows)
            kl += r.klAB, js += r.js;
        fmt::print(
            "script: row-divergence rows={} first={} last={} mean-kl={:.9g} mean-js={:.9g}\n",
            rows->size(), rows->front().row, rows->back().row, kl / rows->size(),
            js / rows->size());
        return true;
    }
    return std::nullopt;
}

}  // namespace gatescope::app
