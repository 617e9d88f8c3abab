#include "app/cli/interrupt.h"

#include <csignal>

namespace gatescope::app {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onSignal(int) {
    g_interrupted.store(true);
}
}  // namespace

const std::atomic<bool>& installInterruptFlag() {
    static const bool installed = [] {
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
        return true;
    }();
    (void)installed;
    return g_interrupted;
}

}  // namespace gatescope::app
