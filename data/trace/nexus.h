// NeXus NXdata annotations, so generic viewers (h5web, silx) plot trace datasets without gatescope.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/h5/handle.h"

namespace gatescope::data::nexus {

/// Marks `group` as NX_class = "NXdata" whose signal is its child dataset `signal` of rank `rank`
/// (axes "." per dimension: no coordinate datasets), with optional same-shape auxiliary signals.
/// Rewrites the attributes when called again. Caller holds the library lock or not (either works).
Status markData(const h5::Object& group, std::string_view signal, int rank,
                const std::vector<std::string>& auxiliarySignals = {});

/// Labels a dataset for viewers: long_name, and interpretation ("image", "spectrum") when given.
Status describe(const h5::Object& dataset, std::string_view longName,
                std::string_view interpretation = {});

}  // namespace gatescope::data::nexus
