// The checkpoint-series figure: small multiples, one quantity a panel, each against the training
// step, points joined in step order. Panels without a finite value (no gates, no attention
// statistics) are left out.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <QPainter>

#include "widgets/figures/analysis_figures.h"
#include "widgets/figures/figure_parts.h"

namespace gatescope::widgets {

namespace {

struct Curve {
    std::string title;
    std::vector<double> values;  ///< one per point; NaN where absent
};

class SeriesFigure final : public Figure {
public:
    SeriesFigure(QSizeF size, std::string title, std::vector<double> steps,
                 std::vector<Curve> curves)
        : m_size(size),
          m_title(std::move(title)),
          m_steps(std::move(steps)),
          m_curves(std::move(curves)) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }

    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const int columns = std::min<int>(3, int(m_curves.size()));
        const int rows = (int(m_curves.size()) + columns - 1) / columns;
        const double cellW = (m_size.width() - 20) / columns;
        const double cellH = (m_size.height() - 50) / rows;
        for (std::size_t k = 0; k < m_curves.size(); ++k) {
            const double x = 10 + double(k % columns) * cellW;
            const double y = 50 + double(k / columns) * cellH;
            drawPanel(p, QRectF(x, y, cellW, cellH), m_curves[k]);
        }
    }

private:
    void drawPanel(QPainter& p, const QRectF& cell, const Curve& curve) const {
        const QRectF plot(cell.left() + 70, cell.top() + 24, cell.width() - 95, cell.height() - 80);
        double lo = INFINITY, hi = -INFINITY;
        for (double v : curve.values)
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        if (hi - lo < 1e-9 * std::max(1.0, std::abs(hi))) lo -= 0.5, hi += 0.5;
        const double pad = 0.08 * (hi - lo);
        lo -= pad, hi += pad;
        const double x0 = m_steps.front(), x1 = std::max(m_steps.back(), x0 + 1);
        auto at = [&](std::size_t i) {
            return QPointF(plot.left() + (m_steps[i] - x0) / (x1 - x0) * plot.width(),
                           plot.bottom() - (curve.values[i] - lo) / (hi - lo) * plot.height());
        };
        p.setPen(QPen(QColor(30, 90, 180), 1.4));
        p.setBrush(QColor(30, 90, 180));
        std::optional<QPointF> previous;
        for (std::size_t i = 0; i < m_steps.size(); ++i) {
            if (!std::isfinite(curve.values[i])) {
                previous.reset();
                continue;
            }
            const QPointF point = at(i);
            if (previous) p.drawLine(*previous, point);
            p.drawEllipse(point, 2.5, 2.5);
            previous = point;
        }
        p.setPen(QPen(Qt::black, 0.8));
        p.setBrush(Qt::NoBrush);
        p.drawRect(plot);
        figures::drawPositionTicks(p, plot, x0, x1);
        figures::drawValueTicks(p, plot, lo, hi);
        p.setFont(figures::figureFont(12, true));
        p.drawText(QRectF(cell.left(), plot.top() - 20, cell.width(), 16), Qt::AlignHCenter,
                   QString::fromStdString(curve.title));
        p.setFont(figures::figureFont(11));
        p.drawText(QRectF(plot.left(), plot.bottom() + 22, plot.width(), 14), Qt::AlignHCenter,
                   QStringLiteral("training step"));
    }

    QSizeF m_size;
    std::string m_title;
    std::vector<double> m_steps;
    std::vector<Curve> m_curves;
};

}  // namespace

Result<std::unique_ptr<Figure>> makeSeriesFigure(const core::StatsReport& report,
                                                 const FigureOptions& o) {
    if (!report.series || report.series->points.size() < 2)
        return Error{ErrorKind::Missing, "a series figure needs at least 2 traces", {}, {}};
    const auto& points = report.series->points;
    std::vector<double> steps;
    for (const auto& p : points)
        steps.push_back(double(p.step));
    using Get = std::function<double(const core::SeriesPoint&)>;
    const std::vector<std::pair<std::string, Get>> quantities = {
        {"mean loss (nats)", [](auto& p) { return p.meanLoss; }},
        {"gate timescale, median (tokens)", [](auto& p) { return p.overall.timescaleMedian; }},
        {fmt::format("gate horizon, median (retention {:g})", report.retention),
         [](auto& p) { return p.overall.gateHorizonMedian; }},
        {"always-on gate channels (fraction)", [](auto& p) { return p.overall.alwaysOnFraction; }},
        {"sink mass (attention on token 0)", [](auto& p) { return p.overall.sinkMass; }},
        {fmt::format("attention horizon, median ({:g}% mass)", 100 * report.massShare),
         [](auto& p) { return p.overall.attentionHorizonMedian; }},
        {"prunable key blocks (fraction)", [](auto& p) { return p.overall.prunableFraction; }}};
    std::vector<Curve> curves;
    for (const auto& [title, get] : quantities) {
        Curve curve{title, {}};
        for (const auto& p : points)
            curve.values.push_back(get(p));
        if (std::any_of(curve.values.begin(), curve.values.end(),
                        [](double v) { return std::isfinite(v); }))
            curves.push_back(std::move(curve));
    }
    const int columns = std::min<int>(3, int(curves.size()));
    const int rows = (int(curves.size()) + columns - 1) / columns;
    const QSizeF size(o.width > 0 ? o.width : 330.0 * columns + 20,
                      o.height > 0 ? o.height : 240.0 * rows + 50);
    return std::unique_ptr<Figure>(std::make_unique<SeriesFigure>(
        size,
        fmt::format("Checkpoint series: {} checkpoints, steps {} to {}", points.size(),
                    points.front().step, points.back().step),
        std::move(steps), std::move(curves)));
}

}  // namespace gatescope::widgets
