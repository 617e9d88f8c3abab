// A per-position quantity (one value per query position of a head) reduced to what a report can
// hold at 128k tokens: its median and its mean over linear position bins, the bins of the loss
// curves (LossCurveReport::linearBins), so each bin lines up with the loss at the same positions.
#pragma once

#include <cstdint>
#include <vector>

namespace gatescope::core {

struct PositionProfile {
    double median = 0;          ///< over positions; NaN when there are none
    std::vector<double> byBin;  ///< [b]: mean over positions [b * width, (b + 1) * width)
};

/// The profile of `values` (consumed: reordered to find the median). `binWidth` >= 1.
PositionProfile profileOf(std::vector<double>&& values, int64_t binWidth);

}  // namespace gatescope::core
