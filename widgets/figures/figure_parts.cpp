#include "widgets/figures/figure_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <QImage>
#include <QPainter>

#include "widgets/figures/figure.h"
#include "widgets/view/color_bar.h"

namespace gatescope::widgets::figures {

ValueRange cellRange(const Cells& cells, bool symmetric) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (float v : cells.values)
        if (std::isfinite(v)) {
            lo = std::min(lo, double{v});
            hi = std::max(hi, double{v});
        }
    if (!(lo <= hi)) return {0, 1};
    if (symmetric) {
        const double m = std::max({std::abs(lo), std::abs(hi), 1e-12});
        return {-m, m};
    }
    if (lo >= 0) lo = 0;
    if (hi <= lo) hi = lo + 1;
    return {lo, hi};
}

CellStats cellStats(const Cells& cells) {
    CellStats s;
    double minPositive = std::numeric_limits<double>::infinity();
    for (float v : cells.values) {
        if (!std::isfinite(v)) continue;
        s.lo = s.any ? std::min(s.lo, double{v}) : v;
        s.hi = s.any ? std::max(s.hi, double{v}) : v;
        s.any = true;
        if (v > 0) minPositive = std::min(minPositive, double{v});
    }
    s.minPositive = std::isfinite(minPositive) ? minPositive : 0;
    return s;
}

CellStats merge(const CellStats& a, const CellStats& b) {
    if (!a.any) return b;
    if (!b.any) return a;
    const double positive = a.minPositive > 0 && b.minPositive > 0
                                ? std::min(a.minPositive, b.minPositive)
                                : std::max(a.minPositive, b.minPositive);
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), positive, true};
}

ValueRange settingsRange(const ColorSettings& settings, const CellStats& stats) {
    return stats.any ? resolveRange(settings, stats.lo, stats.hi, stats.minPositive)
                     : resolveRange(settings, 0, 1, 0);
}

void blankFuture(Cells& cells) {
    const core::TokenRegion& g = cells.region;
    for (int64_t r = 0; r < cells.rows; ++r) {
        const int64_t lastQuery = std::min(g.queryEnd, g.queryBegin + (r + 1) * cells.step) - 1;
        for (int64_t c = 0; c < cells.cols; ++c)
            if (g.keyBegin + c * cells.step > lastQuery)
                cells.values[static_cast<size_t>(r * cells.cols + c)] =
                    std::numeric_limits<float>::quiet_NaN();
    }
}

QFont figureFont(double pixels, bool bold) {
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(std::max(1, static_cast<int>(std::lround(pixels))));
    font.setBold(bold);
    font.setHintingPreference(QFont::PreferNoHinting);
    font.setKerning(true);
    return font;
}

void drawCells(QPainter& p, const QRectF& rect, const Cells& cells, const ColorSettings& settings,
               const ValueRange& range) {
    if (cells.rows == 0 || cells.cols == 0) return;
    QImage img(static_cast<int>(cells.cols), static_cast<int>(cells.rows), QImage::Format_RGBA8888);
    for (int64_t r = 0; r < cells.rows; ++r)
        colorize(cells.values.data() + r * cells.cols, 1, cells.cols, cells.cols, settings, range,
                 reinterpret_cast<uint32_t*>(img.scanLine(static_cast<int>(r))));
    p.save();
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    // A map's cells cover `step` tokens each, the last row and column fewer when the region is
    // no multiple of it: the image spans rows x cols whole cells, and `rect` (the region) clips
    // it, so every cell sits at its tokens on the axes.
    QRectF target = rect;
    const core::TokenRegion& region = cells.region;
    if (region.keys() > 0 && region.queries() > 0) {
        target.setWidth(rect.width() * static_cast<double>(cells.cols * cells.step) /
                        static_cast<double>(region.keys()));
        target.setHeight(rect.height() * static_cast<double>(cells.rows * cells.step) /
                         static_cast<double>(region.queries()));
        p.setClipRect(rect, Qt::IntersectClip);
    }
    p.drawImage(target, img);
    p.restore();
}

std::string shortNumber(double v) {
    if (v == 0) return "0";
    std::string s = fmt::format("{:.3g}", v);
    return s;
}

double niceStep(double span, int target) {
    if (!(span > 0)) return 1;
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}

void drawColorBar(QPainter& p, const QRectF& rect, const ColorSettings& settings,
                  const ValueRange& range, const std::string& label) {
    // The viewer's bar (color_bar.h): linear in the value, or in its log for the log scale, so
    // the ticks and the colours agree whatever the scale.
    QImage img(1, 256, QImage::Format_RGBA8888);
    for (int i = 0; i < 256; ++i) {
        const double v = colorBarValueAt(settings, range, 1.0 - (i + 0.5) / 256.0);
        reinterpret_cast<uint32_t*>(img.scanLine(i))[0] = colorOf(v, settings, range);
    }
    p.save();
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(rect, img);
    p.setPen(QPen(Qt::black, 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect);
    p.setFont(figureFont(11));
    for (const ColorBarTick& tick : colorBarTicks(settings, range)) {
        const double y = rect.bottom() - tick.at * rect.height();
        p.drawLine(QPointF(rect.right(), y), QPointF(rect.right() + 4, y));
        p.drawText(QRectF(rect.right() + 6, y - 8, 80, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::fromStdString(tick.text));
    }
    p.drawText(QRectF(rect.left() - 2, rect.top() - 22, 120, 16), Qt::AlignLeft | Qt::AlignBottom,
               QString::fromStdString(label));
    if (settings.scale != ScaleKind::Linear)
        p.drawText(QRectF(rect.left() - 2, rect.bottom() + 4, 120, 16),
                   Qt::AlignLeft | Qt::AlignTop, QString::fromStdString(colorBarCaption(settings)));
    p.restore();
}

void drawPositionTicks(QPainter& p, const QRectF& rect, double begin, double end) {
    p.save();
    p.setPen(QPen(Qt::black, 0.8));
    p.setFont(figureFont(11));
    const double step = std::max(1.0, niceStep(end - begin, 6));
    for (double v = std::ceil(begin / step) * step; v <= end; v += step) {
        const double x = rect.left() + (v - begin) / (end - begin) * rect.width();
        p.drawLine(QPointF(x, rect.bottom()), QPointF(x, rect.bottom() + 4));
        p.drawText(QRectF(x - 40, rect.bottom() + 5, 80, 14), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(static_cast<long long>(v)));
    }
    p.restore();
}

void drawValueTicks(QPainter& p, const QRectF& rect, double lo, double hi) {
    p.save();
    p.setPen(QPen(Qt::black, 0.8));
    p.setFont(figureFont(11));
    const double step = niceStep(hi - lo, 4);
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) {
        const double y = rect.bottom() - (v - lo) / (hi - lo) * rect.height();
        p.drawLine(QPointF(rect.left() - 4, y), QPointF(rect.left(), y));
        p.drawText(QRectF(rect.left() - 60, y - 8, 54, 16), Qt::AlignRight | Qt::AlignVCenter,
                   QString::fromStdString(shortNumber(std::abs(v) < step * 1e-9 ? 0 : v)));
    }
    p.restore();
}

namespace {

/// Ticks at nice positions of [begin, end] left of a vertical axis over rect's height.
void drawPositionTicksY(QPainter& p, const QRectF& rect, double begin, double end) {
    const double step = std::max(1.0, niceStep(end - begin, 6));
    p.setFont(figureFont(11));
    for (double v = std::ceil(begin / step) * step; v <= end; v += step) {
        const double y = rect.top() + (v - begin) / (end - begin) * rect.height();
        p.drawLine(QPointF(rect.left() - 4, y), QPointF(rect.left(), y));
        p.drawText(QRectF(rect.left() - 60, y - 8, 54, 16), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(static_cast<long long>(v)));
    }
}

}  // namespace

void drawTokenAxes(QPainter& p, const QRectF& rect, const core::TokenRegion& region,
                   const std::vector<std::string>& tokens, const std::string& xTitle,
                   const std::string& yTitle, bool labelsY) {
    p.save();
    p.setPen(QPen(Qt::black, 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect);
    // Cells are square: one token is as wide as it is tall.
    const double cell = rect.width() / static_cast<double>(region.keys());
    const double fontPx = std::min(11.0, cell * 0.85);
    const bool labels = fontPx >= 7 && static_cast<int64_t>(tokens.size()) >= region.keyEnd &&
                        static_cast<int64_t>(tokens.size()) >= region.queryEnd;
    auto text = [&](int64_t t) { return QString::fromStdString(tokens[static_cast<size_t>(t)]); };
    if (labels) {
        p.setFont(figureFont(fontPx));
        for (int64_t t = region.keyBegin; t < region.keyEnd; ++t) {
            // x: rotated labels under the map, reading downwards.
            const double c = (static_cast<double>(t - region.keyBegin) + 0.5) * cell;
            p.save();
            p.translate(rect.left() + c, rect.bottom() + 3);
            p.rotate(90);
            p.drawText(QRectF(0, -cell / 2, 70, cell), Qt::AlignLeft | Qt::AlignVCenter, text(t));
            p.restore();
        }
        if (labelsY)
            for (int64_t t = region.queryBegin; t < region.queryEnd; ++t) {
                const double c = (static_cast<double>(t - region.queryBegin) + 0.5) * cell;
                p.drawText(QRectF(rect.left() - 73, rect.top() + c - cell / 2, 70, cell),
                           Qt::AlignRight | Qt::AlignVCenter, text(t));
            }
    } else {
        drawPositionTicks(p, rect, static_cast<double>(region.keyBegin),
                          static_cast<double>(region.keyEnd));
        if (labelsY)
            drawPositionTicksY(p, rect, static_cast<double>(region.queryBegin),
                               static_cast<double>(region.queryEnd));
    }
    p.setFont(figureFont(12));
    p.drawText(QRectF(rect.left(), rect.bottom() + 62, rect.width(), 16), Qt::AlignHCenter,
               QString::fromStdString(xTitle));
    if (labelsY) {
        p.translate(rect.left() - 78, rect.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-rect.height() / 2, -16, rect.height(), 16), Qt::AlignHCenter,
                   QString::fromStdString(yTitle));
    }
    p.restore();
}

void drawTitle(QPainter& p, const QRectF& rect, const std::string& text) {
    p.save();
    p.setPen(Qt::black);
    p.setFont(figureFont(16));  // one font face only: PDF object order stays fixed
    p.drawText(rect, Qt::AlignHCenter | Qt::AlignVCenter, QString::fromStdString(text));
    p.restore();
}

}  // namespace gatescope::widgets::figures
