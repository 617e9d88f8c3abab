// Factories of the subcommands listed in commandTable().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/cli/command.h"

namespace gatescope::app {

std::unique_ptr<Command> makeInfoCommand();
std::unique_ptr<Command> makeTraceCommand();
std::unique_ptr<Command> makeDemoCommand();
std::unique_ptr<Command> makeOpenCommand();
std::unique_ptr<Command> makeStatsCommand();
std::unique_ptr<Command> makeBatchCommand();
std::unique_ptr<Command> makeNiahCommand();
std::unique_ptr<Command> makeCompareCommand();
std::unique_ptr<Command> makeExportCommand();
std::unique_ptr<Command> makeTrainCommand();

}  // namespace gatescope::app

namespace gatescope::app {

/// Prints a trace's summary and manifest (text, or JSON with `json`); the `info` command's body,
/// shared with `demo`. Returns an exit code.
int printTraceInfo(const std::string& path, bool json);

/// Runs the viewer on `traces` (none, one, or two for compare mode; with `series`, the
/// checkpoints of one run, the last opened), driven by `script` when given; the `open` command's
/// body, shared with `gatescope FILE [FILE_B]` and `demo`. In builds without the GUI: a usage
/// error (exit code 2).
int openViewer(const std::vector<std::string>& traces, const std::string& script,
               bool series = false);

}  // namespace gatescope::app
