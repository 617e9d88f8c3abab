// Reading string datasets (variable- or fixed-length, as h5py and gatescope write them), through
// string_values.h: the stored type is checked and every read bounded.
#pragma once

#include <string>
#include <vector>

#include "data/h5/dataset.h"

namespace gatescope::data::h5 {

/// Reads a 1-D string dataset. Shape error when it is not 1-D strings; Format when the string
/// type is malformed, the values exceed kMaxStringArrayBytes together (or kMaxStringBytes one) or
/// HDF5 cannot read them. The caller bounds the length first where it knows it.
Result<std::vector<std::string>> readStrings(const Dataset& dataset);
/// Reads a scalar string dataset (at most kMaxStringBytes). Shape error when it is not a scalar
/// string.
Result<std::string> readScalarString(const Dataset& dataset);

}  // namespace gatescope::data::h5
