// gatescope: the GUI when run without a subcommand (GUI builds), the CLI with one.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "app/cli/cli.h"
#include "app/cli/command.h"

int main(int argc, char** argv) {
    try {
        const int code = gatescope::app::runCli(argc, argv);
        if (code == gatescope::app::kExitCancelled) {
            // Interrupted: the job has already removed what it wrote. Skip the static destructors
            // (LibTorch's 286 libraries unregister their operators, and the freed heap is unmapped:
            // up to seconds at 100k+ tokens) so that Ctrl-C returns the prompt at once.
            std::fflush(nullptr);
            std::_Exit(code);
        }
        return code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gatescope: internal error: %s\n", e.what());
        return 70;
    }
}
