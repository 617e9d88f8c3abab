// gatescope._engine: running a checkpoint on an input from Python through engine's trace job, the
// one the CLI's `gatescope trace` and the viewer's Run Model use. The only module that links
// LibTorch; gatescope.trace() imports it on first use. The job runs without the GIL on a thread of
// its own; progress reaches Python on the calling thread, and Ctrl+C (or an exception from the
// progress callback) cancels the job, which then leaves no file at `out`.
#include <mutex>
#include <optional>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "core/input/list_syntax.h"
#include "core/trace/thread_limit.h"
#include "engine/trace/trace_job.h"
#include "interruptible.h"
#include "py_support.h"

namespace gatescope::python {

namespace {

/// The newest progress report, handed from the job's thread to the calling thread.
class ProgressMailbox {
public:
    void post(const core::TraceProgress& p) {
        std::lock_guard lock(m_mutex);
        m_latest = p;
    }
    std::optional<core::TraceProgress> take() {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_latest, std::nullopt);
    }

private:
    std::mutex m_mutex;
    std::optional<core::TraceProgress> m_latest;
};

Result<Ok> fill(core::TraceRequest& r, const py::dict& o) {
    r.modelDir = o["model_dir"].cast<std::string>();
    r.input.path = o["input"].cast<std::string>();
    const std::map<std::string, core::InputKind> kinds = {
        {"auto", core::InputKind::Auto},
        {"text", core::InputKind::Text},
        {"ids", core::InputKind::Ids},
        {"npy", core::InputKind::Npy},
        {"safetensors", core::InputKind::Safetensors}};
    const auto kind = kinds.find(o["input_kind"].cast<std::string>());
    if (kind == kinds.end())
        return Error{
            ErrorKind::Usage, "input_kind must be auto, text, ids, npy or safetensors", {}, {}};
    r.input.kind = kind->second;
    r.input.tensorName = o["tensor"].cast<std::string>();
    r.input.begin = o["begin"].cast<int64_t>();
    if (const int64_t end = o["end"].cast<int64_t>(); end >= 0) r.input.end = end;
    r.out = o["out"].cast<std::string>();
    r.device = o["device"].cast<std::string>();
    const auto dtype = o["dtype"].cast<std::string>();
    if (dtype != "float32" && dtype != "bfloat16")
        return Error{ErrorKind::Usage, "dtype must be float32 or bfloat16", {}, {}};
    r.dtype = dtype == "bfloat16" ? core::ComputeDType::BFloat16 : core::ComputeDType::Float32;
    r.threads = o["threads"].cast<int>();
    if (auto st = core::checkThreadCount(r.threads); !st)
        return Error{ErrorKind::Usage, st.error().message, {}, "threads"};
    r.layers = o["layers"].cast<std::vector<int>>();
    r.pyramidHeads = o["heads"].cast<std::vector<int>>();
    r.storeFactors = o["store_factors"].cast<bool>();
    r.storeValues = o["store_values"].cast<bool>();
    r.storePyramids = o["pyramids"].cast<bool>();
    r.pyramidFinestSide = o["pyramid_side"].cast<int64_t>();
    if (r.pyramidFinestSide < 256 || r.pyramidFinestSide > 16384)
        return Error{ErrorKind::Usage, "pyramid_side must be in [256, 16384]", {}, {}};
    const std::map<std::string, data::Compression> compressions = {
        {"deflate", data::Compression::Deflate},
        {"zstd", data::Compression::Zstd},
        {"lz4", data::Compression::Lz4},
        {"none", data::Compression::None}};
    const auto c = compressions.find(o["compression"].cast<std::string>());
    if (c == compressions.end())
        return Error{ErrorKind::Usage, "compression must be deflate, zstd, lz4 or none", {}, {}};
    r.writer.compression = c->second;
    r.writer.factorsAsF16 = o["factors_f16"].cast<bool>();
    auto documents = core::parseDocumentSplit(o["documents"].cast<std::string>(), "documents");
    if (!documents) return documents.error();
    r.documents = std::move(*documents);
    return Ok{};
}

py::dict runTrace(const py::dict& options, const py::object& progress) {
    core::TraceRequest request;
    unwrap(fill(request, options));
    ProgressMailbox mailbox;
    const auto deliver = [&] {
        if (auto p = mailbox.take(); p && !progress.is_none())
            progress(p->fraction, p->stage, p->tokens);
    };
    auto outcome = runInterruptible(
        [&](const std::atomic<bool>* cancel) {
            return core::runTraceJob(
                request, [&](const core::TraceProgress& p) { mailbox.post(p); }, cancel);
        },
        deliver);
    auto o = unwrap(std::move(outcome));
    deliver();
    py::dict out;
    out["path"] = o.path.string();
    out["model_type"] = o.modelType;
    out["tokens"] = o.tokens;
    out["layers"] = o.layersRecorded;
    out["seconds"] = o.seconds;
    out["tokens_per_second"] = o.seconds > 0 ? o.tokens / o.seconds : 0.0;
    out["device"] = o.device;
    out["attention_path"] = o.attentionPath;
    return out;
}

}  // namespace

}  // namespace gatescope::python

PYBIND11_MODULE(_engine, m) {
    using namespace gatescope::python;
    registerErrors();
    m.doc() = "gatescope's trace job (LibTorch); use gatescope.trace()";
    m.def("run_trace", &runTrace, py::arg("options"), py::arg("progress"));
}
