// Writing a small file so that it either appears whole under its name or not at all: the bytes go
// to "<path>.partial-<pid>", are flushed and fsynced, then renamed over `path`. Used for summaries,
// manifests, CSV tables and status files.
#pragma once

#include <filesystem>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::data {

/// Errors: Io naming `path` (cannot create, short write — e.g. a full disk — or rename); the
/// temporary file is removed on every error. Thread-safe for distinct paths.
Status writeFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace gatescope::data
