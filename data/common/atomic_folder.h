// Writing a set of files into a folder so that the set appears whole or not at all: a failed
// run (a full disk, a killed process) leaves no half set of tables under the folder and does not
// touch what the folder already held. The multi-file companion of atomic_file.h.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "data/common/result.h"

namespace gatescope::data {

/// One file of a set: a plain file name (no '/') and its bytes.
using NamedFile = std::pair<std::string, std::string>;

/// Writes `files` into `dir`. Every file is first written and fsynced under
/// "<dir>.partial-<pid>/" next to `dir`; any failure there removes that folder and leaves `dir`
/// as it was (absent, or with its old contents). Then, when `dir` does not exist, the folder is
/// renamed into place at once; when it does, each file is renamed over its namesake in `dir`
/// (other files there are kept), and should one of those renames fail, the files already moved
/// are put back as they were (old contents restored from hard links taken before the first
/// move). Errors: Io naming the file or folder and the OS reason; Usage for a bad file name.
/// Not safe for two processes writing the same `dir` at once.
Status writeFilesAtomically(const std::filesystem::path& dir, const std::vector<NamedFile>& files);

}  // namespace gatescope::data
