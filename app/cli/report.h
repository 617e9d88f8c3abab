// How the CLI reports errors: one line on stderr naming the file and the problem, and an exit code.
#pragma once

#include <fmt/core.h>

#include "app/cli/command.h"
#include "data/common/result.h"

namespace gatescope::app {

inline int exitCodeFor(const Error& error) {
    if (error.kind == ErrorKind::Cancelled) return kExitCancelled;
    if (error.kind == ErrorKind::Usage) return kExitUsage;
    return kExitFailure;
}

/// Prints "gatescope: error: FILE: OBJECT: MESSAGE" to stderr and returns the exit code.
inline int reportError(const Error& error) {
    fmt::print(stderr, "gatescope: error: {}\n", error.describe());
    return exitCodeFor(error);
}

}  // namespace gatescope::app
