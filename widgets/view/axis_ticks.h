// Position ticks of the map's axes above cell level (when a cell is too small for a token
// label): round positions (1, 2 or 5 times a power of ten tokens apart) at least a minimum
// number of pixels apart. Display-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gatescope::widgets {

struct AxisTick {
    int64_t position = 0;  ///< token position of the tick
    std::string text;      ///< "12,345"
};

/// The step between ticks: the smallest of 1, 2, 5 x 10^k tokens that is at least
/// `minSpacingPx` pixels at `tokensPerPixel`.
int64_t tickStep(double tokensPerPixel, double minSpacingPx);

/// Ticks at multiples of tickStep() within [first, last) (token coordinates), clipped to [0, n).
std::vector<AxisTick> axisTicks(double first, double last, int64_t n, double tokensPerPixel,
                                double minSpacingPx);

/// 12345 -> "12,345".
std::string groupedNumber(int64_t value);

}  // namespace gatescope::widgets
