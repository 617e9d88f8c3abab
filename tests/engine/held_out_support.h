// Test support: the mean per-byte loss an inference model gives the held-out windows of
// engine/train/trainer.h heldOutWindows, for checking train.json's recorded held-out losses.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/model.h"

namespace gatescope::test {

struct HeldOutLoss {
    double mean = 0;
    int64_t tokens = 0;
};

inline HeldOutLoss heldOutLoss(core::Model& model,
                               const std::vector<std::vector<int32_t>>& windows) {
    double sum = 0;
    HeldOutLoss out;
    for (const auto& window : windows) {
        auto r = model.forward(window, {}, core::RunOptions{}, nullptr);
        EXPECT_TRUE(r) << r.error().describe();
        if (!r) return out;
        for (float loss : r->loss) {
            if (std::isnan(loss)) continue;  // the last position has no target
            sum += loss;
            ++out.tokens;
        }
    }
    out.mean = out.tokens ? sum / static_cast<double>(out.tokens) : 0.0;
    return out;
}

}  // namespace gatescope::test
