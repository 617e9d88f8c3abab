// Private to core/batch (and the app's batch figures): names from a recipe become folder and file
// names under the output folder, so they are checked before any path is built from them, and every
// path written is checked again to stay inside the output folder (no absolute name, no "..", no
// symbolic link inside the folder leading out of it).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::core {

/// The longest checkpoint name a recipe may give.
inline constexpr std::size_t kMaxRunNameBytes = 100;

/// A checkpoint name (traces/<name>/, analyses/<name>/, figures/<name>/, status file names):
/// 1 to kMaxRunNameBytes characters from A-Z a-z 0-9 . _ - +, not starting with '.' (so never
/// "." or ".."), no separator.
bool isSafeRunName(std::string_view name);

/// A document name taken from a file name: 1 to 200 bytes, no '/', '\\' or control character,
/// not "." or "..".
bool isSafeDocumentName(std::string_view name);

/// `root` / `relative` once checked to stay inside `root`: `relative` must be a relative path
/// without "." or ".." parts, and the result, resolved through the symbolic links that exist
/// (weakly_canonical), must lie under `root` resolved the same way. Errors: Usage naming the path
/// and why. Reads the file system (symbolic links); thread-safe.
Result<std::filesystem::path> pathInside(const std::filesystem::path& root,
                                         const std::filesystem::path& relative);

}  // namespace gatescope::core
