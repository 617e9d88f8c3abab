// The command-line interface: subcommands declared as data (see commands.cpp).
#pragma once

namespace gatescope::app {

/// Parses argv and runs the chosen subcommand. Returns the process exit code: 0 success,
/// 1 failure (bad input, I/O), 2 usage error, 130 cancelled. Usage errors go to stderr.
int runCli(int argc, char** argv);

}  // namespace gatescope::app
