// The source paths of the loss index's virtual dataset: kept inside the index's folder, and
// escaped for HDF5, which reads '%' in a VDS source name as a printf-like pattern.
#pragma once

#include <filesystem>
#include <string>

#include "data/common/result.h"

namespace gatescope::data {

/// "%" -> "%%": HDF5 expands "%b" in VDS source names; a trace name must mean itself.
std::string escapeVdsName(const std::string& name);
/// The inverse; false when `name` holds a lone '%' (a pattern, which gatescope never writes).
bool unescapeVdsName(const std::string& name, std::string& out);

/// Checks that `trace` is a source the index in `folder` may map: a non-empty relative path
/// without "." or ".." components; when `mustExist`, a regular file that resolves (symbolic links
/// followed) inside `folder`. Errors: Usage naming the trace and the reason.
Status checkIndexSource(const std::filesystem::path& folder, const std::filesystem::path& trace,
                        bool mustExist);

}  // namespace gatescope::data
