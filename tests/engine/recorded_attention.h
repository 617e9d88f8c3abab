// Test support: a head's attention map recomputed from the factors a forward recorded (the path
// a trace's exact tiles take), against a dense reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/maps/head_maps.h"
#include "core/model/probe.h"

namespace gatescope::test {

/// max |A[i][j] - reference[i][j]| over head h's whole n x n attention map recomputed from
/// `record`'s factors (kv and gate heads serve their group of `heads` query heads). Infinity,
/// with a test failure, when the factors make no tile source.
template <class Rows>
double recordedAttentionError(const core::LayerRecord& record, int h, int heads,
                              const core::MapSpec& spec, int64_t n, const Rows& reference) {
    core::HeadFactorSet set;
    set.n = n;
    for (const auto& [name, array] : record.factors) {
        const int64_t stored = array.shape[0], width = array.shape.size() == 3 ? array.shape[2] : 1;
        const auto begin = array.data.begin() + (h * stored / heads) * n * width;
        set.add(name, std::vector<float>(begin, begin + n * width), width);
    }
    auto source = core::makeTileSource(spec, set);
    if (!source) {
        ADD_FAILURE() << source.error().describe();
        return std::numeric_limits<double>::infinity();
    }
    std::vector<float> tile(n * n);
    (*source)->compute(kernels::MapKind::Attention, 0, n, 0, n, tile.data());
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
            worst = std::max(worst, std::abs(tile[i * n + j] - double(reference[i][j])));
    return worst;
}

}  // namespace gatescope::test
