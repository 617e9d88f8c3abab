// One CLI subcommand: declares its options on a CLI11 sub-app, then runs. Commands are listed as
// data in commands.cpp; adding one is a new file plus one table row.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gatescope::app {

/// Exit codes shared by every command.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitCancelled = 130 };

class Command {
public:
    virtual ~Command() = default;
    /// Adds this command's options and positionals to `sub`. Values bind to members.
    virtual void declare(CLI::App& sub) = 0;
    /// Runs after parsing succeeded. Prints results to stdout, diagnostics to stderr.
    virtual int run() = 0;
};

struct CommandSpec {
    const char* name;
    const char* summary;
    std::unique_ptr<Command> (*make)();
};

/// The table of subcommands, in help order.
const std::vector<CommandSpec>& commandTable();

}  // namespace gatescope::app
