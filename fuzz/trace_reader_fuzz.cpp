// libFuzzer target: HDF5 file images fed to TraceReader (data/trace/trace_reader.h) through the
// open + read path of `gatescope info` and the reads of `stats`, `compare` and `export`
// (fuzz/trace_reader_read.h). Any input must end in a value or an Error: never a crash, a hang or
// unbounded memory. Seeds: fuzz/corpus/trace_reader/ (small valid traces); inputs that once
// failed: fuzz/regressions/trace_reader/, replayed by tests/data/fuzz_regression_test.cpp.
// Run: scripts/fuzz.sh trace_reader SECONDS.
#include "fuzz/trace_reader_read.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    (void)gatescope::fuzz::readTraceImage("fuzz.h5", data, size);
    return 0;
}
