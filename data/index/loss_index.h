// An HDF5 index over the per-token losses of many traces (a batch's runs, across shards): one
// virtual dataset /per_token_loss [runs, max N] float32 whose row r maps run r's
// /per_token/loss (NaN past its length), so h5py or h5web read every run's losses as one array
// without copying them. /n_tokens [runs] int64 and the root attribute "runs" (JSON list of run ids,
// trace paths) describe the rows.
//
// A virtual dataset reads whatever files its mappings name, so the index keeps them inside its
// folder: sources are relative paths without "..", to files that exist there and resolve (through
// any symbolic link) inside the folder, and readLossIndex checks that an index on disk maps
// exactly the traces its "runs" attribute names before anyone trusts it.
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
/// index file's folder, so the folder can move as a whole. The written file is read back with
/// readLossIndex before it is renamed. Errors: Usage naming the trace when a source is absolute,
/// climbs out with "..", is missing or resolves outside the folder; otherwise they name `path`
/// (never the temporary file, which is removed): Io when HDF5 cannot write it, Internal when it
/// cannot build what it writes.
Status writeLossIndex(const std::filesystem::path& path, const std::vector<LossIndexEntry>& runs);

/// Reads an index's rows and checks its virtual dataset: every mapping reads /per_token/loss of
/// a relative source inside the index's folder, and the sources are, row by row, the traces the
/// "runs" attribute names. Every error names `path`: Io when the file is absent or unreadable;
/// Format when it is not HDF5, truncated or corrupt, or a mapping is at fault (the message names
/// it); Missing naming the object when /per_token_loss, /n_tokens or the "runs" attribute is
/// absent, Format or Shape when one is malformed. The sources themselves are not opened.
Result<std::vector<LossIndexEntry>> readLossIndex(const std::filesystem::path& path);

}  // namespace gatescope::data
