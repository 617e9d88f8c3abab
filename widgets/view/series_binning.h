// Binning long per-token series (loss, gates) to screen columns: each bin keeps the min, max and
// mean of the finite values it covers, so spikes survive at any zoom. Display-free.
#pragma once

#include <cstdint>
#include <vector>

namespace gatescope::widgets {

struct Bin {
    float min = 0;
    float max = 0;
    float mean = 0;
    bool empty = true;  ///< no finite value in the bin
};

/// `bins` bins over positions [begin, end) of `values` (fractional bounds allowed; clipped to
/// the series). A bin narrower than one position takes the position it falls in.
std::vector<Bin> binSeries(const float* values, int64_t size, double begin, double end, int bins);

/// The finite min and max of `values` ({0, 1} when none is finite).
std::pair<float, float> finiteRange(const float* values, int64_t size);

}  // namespace gatescope::widgets
