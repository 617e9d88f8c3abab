// A small owned float32 array with a shape: how tensors cross core's public API (no LibTorch
// types).
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace gatescope::core {

struct FloatArray {
    std::vector<int64_t> shape;
    std::vector<float> data;  ///< row-major

    int64_t numel() const {
        return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    }
    int64_t dim(int i) const { return shape.at(i < 0 ? shape.size() + i : i); }
};

}  // namespace gatescope::core
