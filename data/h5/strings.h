// Reading string datasets (variable- or fixed-length, as h5py and gatescope write them).
#pragma once

#include <string>
#include <vector>

#include "data/h5/dataset.h"

namespace gatescope::data::h5 {

/// Reads a 1-D string dataset. Shape error when it is not 1-D strings.
Result<std::vector<std::string>> readStrings(const Dataset& dataset);
/// Reads a scalar string dataset. Shape error when it is not a scalar string.
Result<std::string> readScalarString(const Dataset& dataset);

}  // namespace gatescope::data::h5
