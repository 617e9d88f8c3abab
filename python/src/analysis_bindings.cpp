// stats() and compare(): core::statsReport and core::compareTraces, whose toJson() is what
// `gatescope stats --json` and `gatescope compare --json` write; Python gets that document as
// plain dicts and lists. Both run without the GIL, and Ctrl+C stops them (interruptible.h).
#include <atomic>

#include <pybind11/stl.h>

#include "bindings.h"
#include "core/analysis/compare.h"
#include "core/analysis/stats_report.h"
#include "core/trace/thread_limit.h"
#include "interruptible.h"

namespace gatescope::python {

namespace {

void checkThreads(int threads) {
    if (auto st = core::checkThreadCount(threads); !st)
        throw CoreError(Error{ErrorKind::Usage, st.error().message, {}, "threads"});
}

py::object stats(const std::vector<std::shared_ptr<TraceFile>>& files, bool gates, bool attention,
                 const std::vector<int>& layers, const std::vector<int>& heads, int64_t binWidth,
                 int binsPerOctave, int smooth, double horizonThreshold, int threads) {
    checkThreads(threads);
    core::StatsOptions o;
    o.gates = gates;
    o.attention = attention;
    o.layers = layers;
    o.attentionOptions.heads = heads;
    o.attentionOptions.threads = threads;
    o.linearBinWidth = binWidth;
    o.binsPerOctave = binsPerOctave;
    o.smoothingWindow = smooth;
    o.gate.horizonThreshold = horizonThreshold;
    std::vector<std::shared_ptr<const data::TraceReader>> readers;
    for (const auto& f : files)
        readers.push_back(f->sharedReader());
    auto report = runInterruptible([&](const std::atomic<bool>* cancel) {
        o.attentionOptions.cancel = cancel;
        return core::statsReport(readers, o);
    });
    return toPython(unwrap(std::move(report)).toJson());
}

py::object compare(const TraceFile& a, const TraceFile& b, bool attention,
                   const std::vector<int>& layers, const std::vector<int>& heads, int64_t binWidth,
                   int binsPerOctave, int threads) {
    checkThreads(threads);
    core::CompareOptions o;
    o.layers = layers;
    o.heads = heads;
    o.attention = attention;
    o.binWidth = binWidth;
    o.binsPerOctave = binsPerOctave;
    o.threads = threads;
    auto r = runInterruptible([&](const std::atomic<bool>* cancel) {
        o.cancel = cancel;
        return core::compareTraces(a.reader(), b.reader(), o);
    });
    return toPython(unwrap(std::move(r)).toJson());
}

}  // namespace

void bindAnalyses(py::module_& m) {
    m.def("stats", &stats, py::arg("traces"), py::arg("gates"), py::arg("attention"),
          py::arg("layers"), py::arg("heads"), py::arg("bin_width"), py::arg("bins_per_octave"),
          py::arg("smooth"), py::arg("horizon_threshold"), py::arg("threads"));
    m.def("compare", &compare, py::arg("a"), py::arg("b"), py::arg("attention"), py::arg("layers"),
          py::arg("heads"), py::arg("bin_width"), py::arg("bins_per_octave"), py::arg("threads"));
}

}  // namespace gatescope::python
