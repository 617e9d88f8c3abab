// The figure kinds: MapFigure, GridFigure, RetentionFigure, LossFigure, CompareFigure.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <QPainter>
#include <QPainterPath>

#include "widgets/figures/figure.h"
#include "widgets/figures/figure_parts.h"
#include "widgets/view/retention_model.h"
#include "widgets/view/series_binning.h"
#include "widgets/view/trace_document.h"

namespace gatescope::widgets {

using figures::Cells;

namespace {

std::vector<std::string> displayTokens(const data::TraceReader& reader) {
    std::vector<std::string> out;
    auto tokens = reader.tokens();
    if (!tokens) return out;
    for (const auto& t : tokens->text) {
        std::string label = displayToken(t, 10);
        // A label of spaces would be invisible: show each as a middle dot.
        if (!label.empty() && label.find_first_not_of(' ') == std::string::npos) {
            std::string dots;
            for (size_t i = 0; i < label.size(); ++i)
                dots += "\u00b7";
            label = dots;
        }
        out.push_back(std::move(label));
    }
    return out;
}

QSizeF sizeOr(const FigureOptions& o, double w, double h) {
    return {o.width > 0 ? o.width : w, o.height > 0 ? o.height : h};
}

/// The colormap alone, linear and automatic: retention and loss figures.
ColorSettings colorsOf(ColormapKind kind) {
    ColorSettings s;
    s.colormap = kind;
    return s;
}

/// One map panel: cells, axes with token labels, colour bar; used by Map and Compare.
struct MapPanel {
    Cells cells;
    ColorSettings colors;
    ValueRange range;
    std::string barLabel;
};

/// The largest rect of the region's shape (square tokens) at the top left of `space`.
QRectF fitRegion(const QRectF& space, const core::TokenRegion& region) {
    const double scale = std::min(space.width() / static_cast<double>(region.keys()),
                                  space.height() / static_cast<double>(region.queries()));
    return {space.left(), space.top(), scale * static_cast<double>(region.keys()),
            scale * static_cast<double>(region.queries())};
}

void paintMapPanel(QPainter& p, const QRectF& plot, const MapPanel& panel,
                   const std::vector<std::string>& tokens, bool labelsY) {
    figures::drawCells(p, plot, panel.cells, panel.colors, panel.range);
    figures::drawTokenAxes(p, plot, panel.cells.region, tokens, "key position", "query position",
                           labelsY);
    const QRectF bar(plot.right() + 12, plot.top() + 24, 12, plot.height() * 0.7);
    figures::drawColorBar(p, bar, panel.colors, panel.range, panel.barLabel);
}

class MapFigure final : public Figure {
public:
    MapFigure(QSizeF size, std::string title, MapPanel panel, std::vector<std::string> tokens)
        : m_size(size),
          m_title(std::move(title)),
          m_panel(std::move(panel)),
          m_tokens(std::move(tokens)) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }
    std::optional<QRectF> mapRect() const override {
        return fitRegion(QRectF(100, 50, m_size.width() - 100 - 110, m_size.height() - 50 - 95),
                         m_panel.cells.region);
    }
    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        paintMapPanel(p, *mapRect(), m_panel, m_tokens, true);
    }

private:
    QSizeF m_size;
    std::string m_title;
    MapPanel m_panel;
    std::vector<std::string> m_tokens;
};

class CompareFigure final : public Figure {
public:
    CompareFigure(QSizeF size, std::string title, std::array<MapPanel, 3> panels,
                  std::array<std::string, 3> names, std::vector<std::string> tokens)
        : m_size(size),
          m_title(std::move(title)),
          m_panels(std::move(panels)),
          m_names(std::move(names)),
          m_tokens(std::move(tokens)) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }
    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const double panelW = (m_size.width() - 20) / 3.0;
        for (int i = 0; i < 3; ++i) {
            const QRectF plot = fitRegion(
                QRectF(20 + i * panelW + 90, 76, panelW - 100 - 80, m_size.height() - 76 - 95),
                m_panels[static_cast<size_t>(i)].cells.region);
            p.save();
            p.setFont(figures::figureFont(13));
            p.drawText(QRectF(plot.left(), 50, plot.width(), 20), Qt::AlignHCenter,
                       QString::fromStdString(m_names[static_cast<size_t>(i)]));
            p.restore();
            paintMapPanel(p, plot, m_panels[static_cast<size_t>(i)], m_tokens, true);
        }
    }

private:
    QSizeF m_size;
    std::string m_title;
    std::array<MapPanel, 3> m_panels;
    std::array<std::string, 3> m_names;
    std::vector<std::string> m_tokens;
};

class GridFigure final : public Figure {
public:
    /// `shared`: one range for every head (a fixed range, or the log scale's); else each head
    /// spans its own maximum.
    GridFigure(QSizeF size, std::string title, std::vector<std::vector<Cells>> maps,
               std::vector<int> layers, ColorSettings colors, std::optional<ValueRange> shared,
               std::string label, int64_t n)
        : m_size(size),
          m_title(std::move(title)),
          m_maps(std::move(maps)),
          m_layers(std::move(layers)),
          m_colors(colors),
          m_shared(shared),
          m_label(std::move(label)),
          m_n(n) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }
    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const int rows = static_cast<int>(m_maps.size());
        int cols = 0;
        for (const auto& r : m_maps)
            cols = std::max(cols, static_cast<int>(r.size()));
        if (rows == 0 || cols == 0) return;
        const double gap = 8, left = 80, top = 64;
        const double cell = std::min((m_size.width() - left - 100 - gap * (cols - 1)) / cols,
                                     (m_size.height() - top - 40 - gap * (rows - 1)) / rows);
        p.setFont(figures::figureFont(12));
        for (int h = 0; h < cols; ++h)
            p.drawText(QRectF(left + h * (cell + gap), top - 20, cell, 16), Qt::AlignHCenter,
                       QStringLiteral("head %1").arg(h));
        for (int r = 0; r < rows; ++r) {
            const double y = top + r * (cell + gap);
            p.drawText(QRectF(0, y, left - 10, cell), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("layer %1").arg(m_layers[static_cast<size_t>(r)]));
            for (size_t h = 0; h < m_maps[static_cast<size_t>(r)].size(); ++h) {
                const auto& cells = m_maps[static_cast<size_t>(r)][h];
                const QRectF rect(left + static_cast<double>(h) * (cell + gap), y, cell, cell);
                figures::drawCells(p, rect, cells, m_colors, rangeOf(cells));
                p.setPen(QPen(Qt::black, 0.6));
                p.drawRect(rect);
            }
        }
        const double gridRight = left + cols * (cell + gap) - gap;
        if (m_shared)
            figures::drawColorBar(p, QRectF(gridRight + 20, top + 24, 12, 200), m_colors, *m_shared,
                                  m_label);
        else
            figures::drawColorBar(p, QRectF(gridRight + 20, top + 24, 12, 200), m_colors, {0, 1},
                                  "of own max");
        p.setFont(figures::figureFont(11));
        p.drawText(QRectF(left, top + rows * (cell + gap), gridRight - left, 18), Qt::AlignLeft,
                   QString::fromStdString(fmt::format("each map: all {} tokens, queries down, "
                                                      "keys across",
                                                      m_n)));
    }

private:
    QSizeF m_size;
    std::string m_title;
    std::vector<std::vector<Cells>> m_maps;
    std::vector<int> m_layers;
    ColorSettings m_colors;
    std::optional<ValueRange> m_shared;
    std::string m_label;
    int64_t m_n;

    ValueRange rangeOf(const Cells& cells) const {
        if (m_shared) return *m_shared;
        return {0, std::max(figures::cellStats(cells).hi, 1e-30)};
    }
};

/// A series drawn as a min-max band plus its mean per bin, over [begin, end) in `rect`.
void drawSeries(QPainter& p, const QRectF& rect, const float* values, int64_t size, double begin,
                double end, double lo, double hi, QColor color, bool band) {
    const int bins = std::max(1, static_cast<int>(rect.width()));
    const auto b = binSeries(values, size, begin, end, bins);
    auto yOf = [&](double v) {
        return rect.bottom() - std::clamp((v - lo) / (hi - lo), 0.0, 1.0) * rect.height();
    };
    const double w = rect.width() / bins;
    p.save();
    if (band) {
        QColor light = color;
        light.setAlphaF(0.3f);
        p.setPen(Qt::NoPen);
        p.setBrush(light);
        for (int i = 0; i < bins; ++i)
            if (!b[static_cast<size_t>(i)].empty) {
                const double y0 = yOf(b[static_cast<size_t>(i)].max);
                const double y1 = yOf(b[static_cast<size_t>(i)].min);
                p.drawRect(QRectF(rect.left() + i * w, y0, w, std::max(0.3, y1 - y0)));
            }
    }
    QPainterPath path;
    bool open = false;
    for (int i = 0; i < bins; ++i) {
        const auto& bin = b[static_cast<size_t>(i)];
        if (bin.empty) {
            open = false;
            continue;
        }
        const QPointF pt(rect.left() + (i + 0.5) * w, yOf(bin.mean));
        if (open)
            path.lineTo(pt);
        else
            path.moveTo(pt);
        open = true;
    }
    p.setPen(QPen(color, 1.2));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    p.restore();
}

class LossFigure final : public Figure {
public:
    LossFigure(QSizeF size, std::string title, std::vector<float> loss, std::vector<float> smooth,
               int64_t begin, int64_t end, int window)
        : m_size(size),
          m_title(std::move(title)),
          m_loss(std::move(loss)),
          m_smooth(std::move(smooth)),
          m_begin(begin),
          m_end(end),
          m_window(window) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }
    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const QRectF plot(80, 50, m_size.width() - 110, m_size.height() - 50 - 70);
        const auto [lo0, hi0] = finiteRange(m_loss.data(), static_cast<int64_t>(m_loss.size()));
        const double lo = 0, hi = std::max<double>(hi0, lo0 + 1e-6);
        drawSeries(p, plot, m_loss.data(), static_cast<int64_t>(m_loss.size()),
                   static_cast<double>(m_begin), static_cast<double>(m_end), lo, hi,
                   QColor(120, 120, 120), true);
        drawSeries(p, plot, m_smooth.data(), static_cast<int64_t>(m_smooth.size()),
                   static_cast<double>(m_begin), static_cast<double>(m_end), lo, hi,
                   QColor(200, 40, 40), false);
        p.setPen(QPen(Qt::black, 0.8));
        p.setBrush(Qt::NoBrush);
        p.drawRect(plot);
        figures::drawPositionTicks(p, plot, static_cast<double>(m_begin),
                                   static_cast<double>(m_end));
        figures::drawValueTicks(p, plot, lo, hi);
        p.setFont(figures::figureFont(12));
        p.drawText(QRectF(plot.left(), plot.bottom() + 24, plot.width(), 16), Qt::AlignHCenter,
                   QStringLiteral("position"));
        p.save();
        p.translate(18, plot.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-plot.height() / 2, -4, plot.height(), 16), Qt::AlignHCenter,
                   QStringLiteral("loss (nats)"));
        p.restore();
        p.setFont(figures::figureFont(11));
        p.setPen(QColor(120, 120, 120));
        p.drawText(QRectF(plot.right() - 400, plot.bottom() + 24, 400, 14), Qt::AlignRight,
                   QStringLiteral("grey: per-token loss (min-max band, mean line)"));
        p.setPen(QColor(200, 40, 40));
        p.drawText(QRectF(plot.right() - 400, plot.bottom() + 40, 400, 14), Qt::AlignRight,
                   QStringLiteral("red: moving average over %1 tokens").arg(m_window));
    }

private:
    QSizeF m_size;
    std::string m_title;
    std::vector<float> m_loss, m_smooth;
    int64_t m_begin, m_end;
    int m_window;
};

class RetentionFigure final : public Figure {
public:
    RetentionFigure(QSizeF size, std::string title, std::shared_ptr<const RetentionData> data,
                    Cells channels, int64_t begin, int64_t end, ColorSettings colors)
        : m_size(size),
          m_title(std::move(title)),
          m_data(std::move(data)),
          m_channels(std::move(channels)),
          m_begin(begin),
          m_end(end),
          m_colors(colors) {}
    QSizeF size() const override { return m_size; }
    std::string title() const override { return m_title; }
    void paint(QPainter& p) const override {
        figures::drawTitle(p, QRectF(0, 4, m_size.width(), 30), m_title);
        const QRectF plot(90, 50, m_size.width() - 90 - 110, m_size.height() - 50 - 70);
        const auto& d = *m_data;
        p.setFont(figures::figureFont(12));
        if (d.perChannel()) {
            figures::drawCells(p, plot, m_channels, m_colors, {0, 1});
            p.setPen(QPen(Qt::black, 0.8));
            p.drawRect(plot);
            figures::drawColorBar(p, QRectF(plot.right() + 14, plot.top() + 24, 12, 200), m_colors,
                                  {0, 1}, "retention");
            p.drawText(QRectF(0, plot.top(), 84, plot.height()), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("channel\n0 (top) to %1").arg(d.channels - 1));
        } else {
            const double trackH = plot.height() / d.heads;
            for (int h = 0; h < d.heads; ++h) {
                const QRectF track(plot.left(), plot.top() + h * trackH + 3, plot.width(),
                                   trackH - 6);
                const auto& v = d.headRetention[static_cast<size_t>(h)];
                drawSeries(p, track, v.data(), static_cast<int64_t>(v.size()),
                           static_cast<double>(m_begin), static_cast<double>(m_end), 0, 1,
                           h == d.head ? QColor(200, 40, 40) : QColor(40, 80, 160), true);
                p.setPen(QPen(Qt::black, 0.6));
                p.setBrush(Qt::NoBrush);
                p.drawRect(track);
                p.setFont(figures::figureFont(11));
                p.drawText(QRectF(0, track.top(), 84, track.height()),
                           Qt::AlignRight | Qt::AlignVCenter,
                           QStringLiteral("head %1\n0 to 1").arg(h));
            }
        }
        figures::drawPositionTicks(p, plot, static_cast<double>(m_begin),
                                   static_cast<double>(m_end));
        p.setFont(figures::figureFont(12));
        p.setPen(Qt::black);
        p.drawText(QRectF(plot.left(), plot.bottom() + 24, plot.width(), 16), Qt::AlignHCenter,
                   QStringLiteral("position"));
    }

private:
    QSizeF m_size;
    std::string m_title;
    std::shared_ptr<const RetentionData> m_data;
    Cells m_channels;
    int64_t m_begin, m_end;
    ColorSettings m_colors;
};

Error usage(const std::string& message) {
    return Error{ErrorKind::Usage, message, {}, {}};
}

Status checkHead(const data::TraceReader& reader, int layer, int head) {
    const auto* info = reader.summary().layer(layer);
    if (!info) return usage(fmt::format("the trace has no layer {}", layer));
    if (head < 0 || head >= info->header.nHeads)
        return usage(
            fmt::format("layer {} has heads 0-{}, not {}", layer, info->header.nHeads - 1, head));
    return Ok{};
}

/// The cells of `map`, the future blanked.
Result<Cells> viewCells(const data::TraceReader& reader, int layer, int head, MapView map,
                        const core::TokenRegion& region, int maxCells) {
    auto cells = core::loadMapCells(reader, layer, head, map, region, maxCells);
    if (!cells) return cells.error();
    figures::blankFuture(*cells);
    return cells;
}

Result<MapPanel> mapPanel(const data::TraceReader& reader, const FigureOptions& o,
                          const core::TokenRegion& region, int maxCells) {
    if (auto st = checkHead(reader, o.layer, o.head); !st) return st.error();
    auto cells = viewCells(reader, o.layer, o.head, o.map, region, maxCells);
    if (!cells) return cells.error();
    MapPanel panel;
    panel.colors = o.colors;
    panel.range = figures::settingsRange(o.colors, figures::cellStats(*cells));
    panel.barLabel = toString(o.map);
    panel.cells = std::move(*cells);
    return panel;
}

}  // namespace

Result<std::unique_ptr<Figure>> makeFigure(const data::TraceReader& reader, const FigureOptions& o,
                                           const data::TraceReader* other) {
    const int64_t n = reader.summary().nTokens;
    const int64_t begin = o.begin, end = o.end < 0 ? n : o.end;
    if (begin < 0 || end > n || begin >= end)
        return usage(fmt::format("range {}:{} is not within the trace's {} tokens", begin, end, n));
    // Map and Compare show queries [queryBegin, queryEnd) when given, else the token range.
    core::TokenRegion region = core::TokenRegion::square(begin, end);
    if (o.queryBegin >= 0 || o.queryEnd >= 0) {
        region.queryBegin = std::max<int64_t>(o.queryBegin, 0);
        region.queryEnd = o.queryEnd < 0 ? n : o.queryEnd;
        if (region.queryEnd > n || region.queryBegin >= region.queryEnd)
            return usage(fmt::format("queries {}:{} are not within the trace's {} tokens",
                                     region.queryBegin, region.queryEnd, n));
    }
    const std::string mapName = toString(o.map);
    const std::string rangeText = region == core::TokenRegion::square(begin, end)
                                      ? fmt::format("tokens {}-{}", begin, end - 1)
                                      : fmt::format("queries {}-{}, keys {}-{}", region.queryBegin,
                                                    region.queryEnd - 1, begin, end - 1);
    switch (o.kind) {
        case FigureKind::Map: {
            QSizeF size = sizeOr(o, 800, 680);
            if (o.width <= 0 && o.height <= 0 && region.queries() != region.keys()) {
                // A rectangle: the default page shrinks around its plot, with the same margins.
                const QRectF plot = fitRegion(QRectF(0, 0, 800 - 210, 680 - 145), region);
                size = QSizeF(plot.width() + 210, plot.height() + 145);
            }
            auto panel = mapPanel(reader, o, region, 600);
            if (!panel) return panel.error();
            auto title =
                fmt::format("layer {} head {}: {}, {}", o.layer, o.head, mapName, rangeText);
            if (panel->cells.step > 1)
                title += fmt::format(" ({}x{} max, {})", panel->cells.step, panel->cells.step,
                                     panel->cells.source);
            return std::unique_ptr<Figure>(
                std::make_unique<MapFigure>(size, title, std::move(*panel), displayTokens(reader)));
        }
        case FigureKind::Compare: {
            if (!other) return usage("the compare figure needs a second trace (--compare B.h5)");
            if (other->summary().nTokens != n)
                return usage(fmt::format("the traces differ in length ({} and {} tokens)", n,
                                         other->summary().nTokens));
            const QSizeF size = sizeOr(o, 1500, 500);
            auto a = mapPanel(reader, o, region, 400);
            if (!a) return a.error();
            auto b = mapPanel(*other, o, region, 400);
            if (!b) return b.error();
            // One range for A and B, so that equal colours are equal values.
            a->range = b->range = figures::settingsRange(
                o.colors,
                figures::merge(figures::cellStats(a->cells), figures::cellStats(b->cells)));
            MapPanel diff;
            diff.cells = a->cells;
            for (size_t i = 0; i < diff.cells.values.size(); ++i)
                diff.cells.values[i] = a->cells.values[i] - b->cells.values[i];
            diff.colors = colorsOf(ColormapKind::Diverging);
            diff.range = figures::cellRange(diff.cells, true);
            diff.barLabel = "A - B";
            auto title =
                fmt::format("layer {} head {}: {}, {}", o.layer, o.head, mapName, rangeText);
            auto base = [](const data::TraceReader& r) {
                return std::filesystem::path(r.path()).filename().string();
            };
            std::array<std::string, 3> names = {"A: " + base(reader), "B: " + base(*other),
                                                "A - B"};
            return std::unique_ptr<Figure>(std::make_unique<CompareFigure>(
                size, title, std::array<MapPanel, 3>{std::move(*a), std::move(*b), std::move(diff)},
                names, displayTokens(reader)));
        }
        case FigureKind::Grid: {
            std::vector<std::vector<Cells>> maps;
            std::vector<int> layers;
            int maxHeads = 0;
            for (const auto& layer : reader.summary().layers) {
                std::vector<Cells> row;
                for (int h = 0; h < layer.header.nHeads; ++h) {
                    auto cells = viewCells(reader, layer.index, h, o.map,
                                           core::TokenRegion::square(0, n), 128);
                    if (!cells) return cells.error();
                    row.push_back(std::move(*cells));
                }
                maxHeads = std::max(maxHeads, layer.header.nHeads);
                maps.push_back(std::move(row));
                layers.push_back(layer.index);
            }
            const double cell = 130;
            const QSizeF size = sizeOr(o, 80 + maxHeads * (cell + 8) + 110,
                                       64 + static_cast<double>(maps.size()) * (cell + 8) + 40);
            // Each head to its own maximum, unless the range is fixed or the scale is log (whose
            // lower end is a value, not a fraction): then one range for all.
            std::optional<ValueRange> shared;
            if (!o.colors.autoRange || o.colors.scale == ScaleKind::Log) {
                figures::CellStats all;
                for (const auto& row : maps)
                    for (const auto& cells : row)
                        all = figures::merge(all, figures::cellStats(cells));
                shared = figures::settingsRange(o.colors, all);
            }
            return std::unique_ptr<Figure>(std::make_unique<GridFigure>(
                size, fmt::format("{} maps: layers x heads", mapName), std::move(maps),
                std::move(layers), o.colors, shared, mapName, n));
        }
        case FigureKind::Loss: {
            auto pt = reader.perToken();
            if (!pt) return pt.error();
            const auto& loss = pt->loss;
            const int window = static_cast<int>(std::max<int64_t>(5, (end - begin) / 50));
            std::vector<float> smooth(loss.size(), std::numeric_limits<float>::quiet_NaN());
            // Centred moving average over the finite values in the window.
            for (int64_t i = 0; i < static_cast<int64_t>(loss.size()); ++i) {
                double sum = 0;
                int count = 0;
                for (int64_t j = std::max<int64_t>(0, i - window / 2);
                     j <= std::min<int64_t>(static_cast<int64_t>(loss.size()) - 1, i + window / 2);
                     ++j)
                    if (std::isfinite(loss[static_cast<size_t>(j)])) {
                        sum += loss[static_cast<size_t>(j)];
                        ++count;
                    }
                if (count) smooth[static_cast<size_t>(i)] = static_cast<float>(sum / count);
            }
            return std::unique_ptr<Figure>(std::make_unique<LossFigure>(
                sizeOr(o, 900, 420), fmt::format("per-token loss, {}", rangeText), loss,
                std::move(smooth), begin, end, window));
        }
        case FigureKind::Retention: {
            if (!reader.summary().layer(o.layer))
                return usage(fmt::format("the trace has no layer {}", o.layer));
            auto data = loadRetention(reader, o.layer, o.head);
            if (!data) return data.error();
            Cells channels;
            const QSizeF size = sizeOr(o, 900, 520);
            if ((*data)->perChannel()) {
                const int bins = static_cast<int>(std::min<int64_t>(end - begin, 700));
                channels.rows = (*data)->channels;
                channels.cols = bins;
                for (int c = 0; c < (*data)->channels; ++c) {
                    const auto v = channelRetention(**data, c);
                    const auto b =
                        binSeries(v.data(), static_cast<int64_t>(v.size()),
                                  static_cast<double>(begin), static_cast<double>(end), bins);
                    for (const auto& bin : b)
                        channels.values.push_back(
                            bin.empty ? std::numeric_limits<float>::quiet_NaN() : bin.mean);
                }
            }
            const auto title =
                (*data)->perChannel()
                    ? fmt::format("layer {} head {}: retention per channel, {}", o.layer, o.head,
                                  rangeText)
                    : fmt::format("layer {}: retention f per head (head {} in red), {}", o.layer,
                                  o.head, rangeText);
            return std::unique_ptr<Figure>(std::make_unique<RetentionFigure>(
                size, title, std::move(*data), std::move(channels), begin, end,
                colorsOf(o.colors.colormap)));
        }
        case FigureKind::Context:
        case FigureKind::Series:
            return usage(
                fmt::format("the {} figure is drawn from a stats report "
                            "(widgets/figures/analysis_figures.h)",
                            toString(o.kind)));
    }
    return usage("unknown figure kind");
}

}  // namespace gatescope::widgets
