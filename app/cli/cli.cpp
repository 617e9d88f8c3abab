#include "app/cli/cli.h"

#include <filesystem>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "core/build_info.h"

namespace gatescope::app {

int runCli(int argc, char** argv) {
    CLI::App app{"gatescope: run gated-attention language models and see what happened inside"};
    app.set_version_flag("--version", fmt::format("gatescope {} ({})", core::gatescopeVersion(),
                                                  core::gatescopeGitRevision()));
    app.require_subcommand(0, 1);
    std::vector<std::string> traces;
    app.add_option("traces", traces,
                   "Trace to open in the viewer, or two to compare (same as `gatescope open`)")
        ->expected(0, 2);

    std::vector<std::unique_ptr<Command>> commands;
    std::vector<CLI::App*> subs;
    for (const CommandSpec& spec : commandTable()) {
        commands.push_back(spec.make());
        CLI::App* sub = app.add_subcommand(spec.name, spec.summary);
        commands.back()->declare(*sub);
        subs.push_back(sub);
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);  // prints help/version to stdout, errors to stderr
        return code == 0 ? kExitOk : kExitUsage;
    }

    for (std::size_t i = 0; i < subs.size(); ++i) {
        if (subs[i]->parsed()) return commands[i]->run();
    }
    for (const auto& trace : traces) {
        std::error_code ec;
        if (std::filesystem::exists(trace, ec)) continue;
        // A mistyped subcommand lands here as the positional FILE.
        fmt::print(stderr,
                   "gatescope: error: '{}' is neither a subcommand nor a file (see "
                   "gatescope --help)\n",
                   trace);
        return kExitUsage;
    }
#ifdef GATESCOPE_WITH_GUI
    return openViewer(traces, {});  // no subcommand: the viewer
#else
    if (!traces.empty()) return openViewer(traces, {});
    fmt::print(stderr, "{}\n", app.help());
    return kExitUsage;
#endif
}

}  // namespace gatescope::app
