#include "widgets/view/color_scale.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace gatescope::widgets {

const char* toString(ScaleKind kind) {
    switch (kind) {
        case ScaleKind::Linear:
            return "linear";
        case ScaleKind::Log:
            return "log";
        case ScaleKind::Gamma:
            return "gamma";
    }
    return "linear";
}

std::optional<ScaleKind> parseScale(std::string_view name) {
    for (ScaleKind k : {ScaleKind::Linear, ScaleKind::Log, ScaleKind::Gamma}) {
        if (name == toString(k)) return k;
    }
    return std::nullopt;
}

double normalizeValue(double v, const ColorSettings& s, const ValueRange& range) {
    if (std::isnan(v)) return v;
    double t = 0;
    if (s.scale == ScaleKind::Log) {
        const double lo = std::log(std::max(range.lo, s.logFloor));
        const double hi = std::log(std::max(range.hi, s.logFloor * 2));
        t = hi > lo ? (std::log(std::max(v, s.logFloor)) - lo) / (hi - lo) : 0;
    } else {
        t = range.hi > range.lo ? (v - range.lo) / (range.hi - range.lo) : 0;
    }
    t = std::clamp(t, 0.0, 1.0);
    if (s.scale == ScaleKind::Gamma) {
        const double g = std::max(1e-3, s.gamma);
        if (isDiverging(s.colormap)) {
            // Symmetric about the centre, so that small differences of either sign show.
            const double u = 2 * t - 1;
            return 0.5 + 0.5 * std::copysign(std::pow(std::abs(u), g), u);
        }
        t = std::pow(t, g);
    }
    return t;
}

Result<ValueRange> parseValueRange(std::string_view text, ScaleKind scale) {
    auto bad = [&](const std::string& why) {
        return Error{ErrorKind::Usage, fmt::format("'{}': {}", text, why), {}, "--value-range"};
    };
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return bad("expected LO:HI, e.g. 0:0.5");
    auto number = [](std::string_view part) -> std::optional<double> {
        const std::string s(part);
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
        return v;
    };
    const auto lo = number(text.substr(0, colon)), hi = number(text.substr(colon + 1));
    if (!lo || !hi) return bad("LO and HI must be finite numbers");
    if (!(*lo < *hi)) return bad("LO must be below HI");
    if (scale == ScaleKind::Log && !(*lo > 0)) return bad("a log scale needs LO > 0");
    return ValueRange{*lo, *hi};
}

ValueRange resolveRange(const ColorSettings& s, double minSeen, double maxSeen,
                        double minPositive) {
    ValueRange r;
    if (!s.autoRange) {
        r = {s.fixedLo, s.fixedHi};
    } else if (isDiverging(s.colormap)) {
        const double m = std::max(std::abs(minSeen), std::abs(maxSeen));
        r = {-m, m};
    } else if (s.scale == ScaleKind::Log) {
        r = {minPositive > 0 ? minPositive : s.logFloor, maxSeen};
    } else {
        r = {std::min(0.0, minSeen), maxSeen};
    }
    if (!(r.hi > r.lo)) r.hi = r.lo + (r.lo == 0 ? 1.0 : std::abs(r.lo) * 1e-3);
    return r;
}

uint32_t colorOf(double v, const ColorSettings& s, const ValueRange& range) {
    const double t = normalizeValue(v, s, range);
    if (std::isnan(t)) return 0;
    const Lut& lut = colormapLut(s.colormap);
    return lut[static_cast<size_t>(std::lround(t * 255.0))];
}

void colorize(const float* values, int64_t rows, int64_t cols, int64_t stride,
              const ColorSettings& s, const ValueRange& range, uint32_t* out) {
    const Lut& lut = colormapLut(s.colormap);
    const bool linear = s.scale == ScaleKind::Linear;
    const double scale = range.hi > range.lo ? 255.0 / (range.hi - range.lo) : 0;
    for (int64_t r = 0; r < rows; ++r) {
        const float* in = values + r * stride;
        uint32_t* o = out + r * stride;
        for (int64_t c = 0; c < cols; ++c) {
            const float v = in[c];
            if (std::isnan(v)) {
                o[c] = 0;
            } else if (linear) {  // the hot path: no log or pow
                const double t = std::clamp((v - range.lo) * scale, 0.0, 255.0);
                o[c] = lut[static_cast<size_t>(t + 0.5)];
            } else {
                o[c] = lut[static_cast<size_t>(std::lround(normalizeValue(v, s, range) * 255.0))];
            }
        }
    }
}

}  // namespace gatescope::widgets
