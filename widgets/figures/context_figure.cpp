// The effective-context map: one row per (layer, head), one column per position bin, coloured by
// log2(1 + horizon in tokens) on one scale for the gate and the attention panels, with the
// trace's own loss per bin drawn under them on the same x-axis.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <QPainter>

#include "core/analysis/effective_context.h"
#include "widgets/figures/analysis_figures.h"
#include "widgets/figures/figure_parts.h"

namespace gatescope::widgets {

namespace {

struct HorizonPanel {
    std::string title;
    core::Cells cells;  ///< rows: heads; cols: bins; NaN where a head has no such horizon
};

class ContextFigure final : public Figure {
public:
    ContextFigure(QSizeF size, std::string title, std::vector<HorizonPanel> panels,
                  std::vector<std::string> rowLabels, std::vector<double> loss, int64_t tokens,
                  ColorSettings colors, ValueRange range)
        : m_size(size),
          m_title(std::move(title)),
          m_panels(std::move(panels)),
          m_rows(std::move(rowLabels)),
          m_loss(std::move(loss)),
          m_tokens(tokens),
          m_colors(colors),
          m_range(range) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }

    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const double left = 70, right = 110, gap = 30, top = 60, lossHeight = 110;
        const double panelWidth =
            (m_size.width() - left - right - gap * double(m_panels.size() - 1)) /
            double(m_panels.size());
        const double panelHeight = m_size.height() - top - lossHeight - 60;
        for (std::size_t k = 0; k < m_panels.size(); ++k) {
            const QRectF rect(left + double(k) * (panelWidth + gap), top, panelWidth, panelHeight);
            p.setFont(figures::figureFont(12, true));
            p.setPen(Qt::black);
            p.drawText(QRectF(rect.left(), top - 20, rect.width(), 16), Qt::AlignHCenter,
                       QString::fromStdString(m_panels[k].title));
            figures::drawCells(p, rect, m_panels[k].cells, m_colors, m_range);
            p.setPen(QPen(Qt::black, 0.8));
            p.setBrush(Qt::NoBrush);
            p.drawRect(rect);
            if (k == 0) drawRowLabels(p, rect);
            const QRectF loss(rect.left(), rect.bottom() + 30, rect.width(), lossHeight - 40);
            drawLoss(p, loss);
        }
        const QRectF bar(m_size.width() - right + 20, top, 14, panelHeight);
        figures::drawColorBar(p, bar, m_colors, m_range, "log2(1 + tokens)");
    }

private:
    void drawRowLabels(QPainter& p, const QRectF& rect) const {
        const double rowHeight = rect.height() / double(m_rows.size());
        const int every = std::max(1, int(std::ceil(12.0 / rowHeight)));
        p.setFont(figures::figureFont(std::min(11.0, std::max(7.0, rowHeight))));
        for (std::size_t r = 0; r < m_rows.size(); r += every)
            p.drawText(QRectF(0, rect.top() + double(r) * rowHeight, rect.left() - 6,
                              std::max(rowHeight, 12.0)),
                       Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(m_rows[r]));
    }

    void drawLoss(QPainter& p, const QRectF& rect) const {
        double hi = 0;
        for (double v : m_loss)
            if (std::isfinite(v)) hi = std::max(hi, v);
        hi = std::max(hi, 1e-6);
        p.setPen(QPen(QColor(200, 40, 40), 1.2));
        QPointF previous;
        bool have = false;
        for (std::size_t b = 0; b < m_loss.size(); ++b) {
            if (!std::isfinite(m_loss[b])) {
                have = false;
                continue;
            }
            const QPointF point(
                rect.left() + (double(b) + 0.5) / double(m_loss.size()) * rect.width(),
                rect.bottom() - m_loss[b] / hi * rect.height());
            if (have) p.drawLine(previous, point);
            previous = point;
            have = true;
        }
        p.setPen(QPen(Qt::black, 0.8));
        p.drawRect(rect);
        figures::drawPositionTicks(p, rect, 0, double(m_tokens));
        figures::drawValueTicks(p, rect, 0, hi);
        p.setFont(figures::figureFont(11));
        p.drawText(QRectF(rect.left(), rect.top() - 16, rect.width(), 14), Qt::AlignLeft,
                   QStringLiteral("mean loss per bin (nats)"));
        p.drawText(QRectF(rect.left(), rect.bottom() + 22, rect.width(), 14), Qt::AlignHCenter,
                   QStringLiteral("position (query)"));
    }

    QSizeF m_size;
    std::string m_title;
    std::vector<HorizonPanel> m_panels;
    std::vector<std::string> m_rows;
    std::vector<double> m_loss;
    int64_t m_tokens;
    ColorSettings m_colors;
    ValueRange m_range;
};

HorizonPanel panel(const std::vector<core::HeadContext>& heads, bool attention, std::string title,
                   std::size_t bins) {
    HorizonPanel out{std::move(title), {}};
    out.cells.rows = static_cast<int64_t>(heads.size());
    out.cells.cols = static_cast<int64_t>(bins);
    for (const auto& h : heads) {
        const core::PositionProfile* profile = attention ? h.attention : h.gate;
        for (std::size_t b = 0; b < bins; ++b)
            out.cells.values.push_back(profile && b < profile->byBin.size()
                                           ? float(std::log2(1.0 + profile->byBin[b]))
                                           : NAN);
    }
    return out;
}

}  // namespace

Result<std::unique_ptr<Figure>> makeContextFigure(const core::StatsReport& report,
                                                  const FigureOptions& o) {
    if (report.traces.empty()) return Error{ErrorKind::Missing, "no trace in the report", {}, {}};
    const auto& trace = report.traces[0];
    const auto heads = core::effectiveContext(trace);
    if (heads.empty())
        return Error{ErrorKind::Missing,
                     "no head has a gate or an attention horizon (an ungated model needs "
                     "--attention)",
                     trace.path,
                     {}};
    const std::size_t bins = trace.lossByBin.size();
    std::vector<HorizonPanel> panels;
    const bool anyGate = std::any_of(heads.begin(), heads.end(), [](auto& h) { return h.gate; });
    const bool anyAttention =
        std::any_of(heads.begin(), heads.end(), [](auto& h) { return h.attention; });
    if (anyGate)
        panels.push_back(panel(
            heads, false, fmt::format("gate horizon (retention >= {:g})", report.retention), bins));
    if (anyAttention)
        panels.push_back(panel(
            heads, true,
            fmt::format("attention horizon ({:g}% of the mass)", 100 * report.massShare), bins));
    std::vector<std::string> rows;
    for (const auto& h : heads)
        rows.push_back(fmt::format("L{} H{}", h.layer, h.head));
    ColorSettings colors;
    colors.colormap = o.colors.colormap;
    const ValueRange range{0, std::max(1.0, std::log2(1.0 + double(trace.nTokens)))};
    const double rowHeight = std::clamp(420.0 / double(heads.size()), 1.5, 14.0);
    const QSizeF size(o.width > 0 ? o.width : 420.0 * double(panels.size()) + 240,
                      o.height > 0 ? o.height : rowHeight * double(heads.size()) + 230);
    const std::string title = fmt::format("Effective context: {} ({} tokens, bins of {})",
                                          std::filesystem::path(trace.path).filename().string(),
                                          trace.nTokens, report.binWidth);
    return std::unique_ptr<Figure>(std::make_unique<ContextFigure>(size, title, std::move(panels),
                                                                   std::move(rows), trace.lossByBin,
                                                                   trace.nTokens, colors, range));
}

}  // namespace gatescope::widgets
