// Files that either appear whole under their name or not at all: the bytes go to a temporary
// "<path>.partial-<pid>" beside the target, which is fsynced, renamed over the target, and the
// folder synced. writeFileAtomically does all of it for contents held in memory (summaries,
// manifests, CSV tables, status files); writers that fill a file in pieces or through a library
// (traces through HDF5, safetensors, the loss index) write to partialPath() and call commitFile().
#pragma once

#include <filesystem>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::data {

/// "<path>.partial-<pid>": the temporary name beside `path` (one per process, so concurrent
/// writers of one target never share it).
std::filesystem::path partialPath(const std::filesystem::path& path);

/// Makes the finished file `temp` appear as `path`: fsyncs it, renames it over `path`, then
/// fsyncs the folder (a failure of that last step loses nothing written and is not reported).
/// Errors: Io naming `path` (with the reason); `temp` is removed on every error.
Status commitFile(const std::filesystem::path& temp, const std::filesystem::path& path);

/// Errors: Io naming `path` (cannot create, short write — e.g. a full disk — or rename); the
/// temporary file is removed on every error. Thread-safe for distinct paths.
Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace gatescope::data
