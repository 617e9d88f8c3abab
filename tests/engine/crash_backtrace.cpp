// Test-binary aid: with GATESCOPE_CRASH_BACKTRACE=1 in the environment, a fatal signal prints the
// raw backtrace (addresses resolvable with addr2line) before the process dies. Used to chase
// crashes on the GPU machine, which has no debugger.
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace {

void onFatal(int sig) {
    void* frames[64];
    const int n = backtrace(frames, 64);
    const char header[] = "\n== fatal signal, backtrace:\n";
    write(STDERR_FILENO, header, sizeof header - 1);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

const bool kInstalled = [] {
    if (!std::getenv("GATESCOPE_CRASH_BACKTRACE")) return false;
    signal(SIGSEGV, onFatal);
    signal(SIGABRT, onFatal);
    signal(SIGBUS, onFatal);
    return true;
}();

}  // namespace
