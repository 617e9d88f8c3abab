#include "app/cli/commands.h"

namespace gatescope::app {

const std::vector<CommandSpec>& commandTable() {
    static const std::vector<CommandSpec> table = {
        {"trace", "Run a checkpoint on a text or token ids and write its trace", &makeTraceCommand},
        {"info", "Describe a trace: model, input, sizes, contents and provenance",
         &makeInfoCommand},
        {"demo", "Write a sample trace from a small bundled-spec model and print its summary",
         &makeDemoCommand},
        {"open", "Open a trace in the viewer (also: `gatescope FILE`)", &makeOpenCommand},
    };
    return table;
}

}  // namespace gatescope::app
