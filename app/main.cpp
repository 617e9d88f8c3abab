// gatescope: the GUI when run without a subcommand (GUI builds), the CLI with one.
#include <cstdio>
#include <exception>

#include "app/cli/cli.h"

int main(int argc, char** argv) {
    try {
        return gatescope::app::runCli(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gatescope: internal error: %s\n", e.what());
        return 70;
    }
}
