// What build of gatescope is running: recorded in every trace manifest and printed by --version.
#pragma once

namespace gatescope::core {

/// The project version, e.g. "0.1.0".
const char* gatescopeVersion();
/// The git revision the build was configured at (12 hex digits), or "unknown".
const char* gatescopeGitRevision();

}  // namespace gatescope::core
