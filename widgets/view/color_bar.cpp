#include "widgets/view/color_bar.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gatescope::widgets {

ValueRange shownRange(const ColorSettings& s, const ValueRange& range) {
    if (s.scale != ScaleKind::Log) return range;
    // As normalizeValue: log(max(lo, floor)) .. log(max(hi, 2 floor)).
    return {std::max(range.lo, s.logFloor), std::max(range.hi, s.logFloor * 2)};
}

double colorBarValueAt(const ColorSettings& s, const ValueRange& range, double at) {
    const ValueRange r = shownRange(s, range);
    if (s.scale == ScaleKind::Log)
        return std::exp(std::log(r.lo) + at * (std::log(r.hi) - std::log(r.lo)));
    return r.lo + at * (r.hi - r.lo);
}

std::vector<ColorBarTick> colorBarTicks(const ColorSettings& s, const ValueRange& range) {
    std::vector<ColorBarTick> ticks;
    const ValueRange r = shownRange(s, range);
    for (double at : {1.0, 0.5, 0.0}) {
        const double v = at == 1.0 ? r.hi : at == 0.0 ? r.lo : colorBarValueAt(s, range, at);
        ticks.push_back({v, at, fmt::format("{:.3g}", v)});
    }
    // Every value at or below the floor has the bottom colour.
    if (s.scale == ScaleKind::Log && range.lo < r.lo) ticks.back().text = "<= " + ticks.back().text;
    return ticks;
}

std::string colorBarCaption(const ColorSettings& s) {
    if (s.scale == ScaleKind::Gamma) return fmt::format("gamma {:.2g}", s.gamma);
    return toString(s.scale);
}

}  // namespace gatescope::widgets
