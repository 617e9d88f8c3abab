// An HDF5 index over the per-token losses of many traces (a batch's runs, across shards): one
// virtual dataset /per_token_loss [runs, max N] float32 whose row r maps run r's
// /per_token/loss (NaN past its length), so h5py or h5web read every run's losses as one array
// without copying them. /n_tokens [runs] int64 and the root attribute "runs" (JSON list of run ids,
// trace paths) describe the rows.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::data {

struct LossIndexEntry {
    std::string run;
    std::filesystem::path
        trace;  ///< relative to the index file's folder (kept relative in the VDS)
    int64_t nTokens = 0;
};

/// Writes the index to `path` through a temporary file renamed into place. Sources are stored with
/// the paths given, relative to the index's folder: HDF5 resolves relative VDS sources against the
/// index file's folder, so the folder can move as a whole. Errors: Io naming `path`.
Status writeLossIndex(const std::filesystem::path& path, const std::vector<LossIndexEntry>& runs);

}  // namespace gatescope::data
