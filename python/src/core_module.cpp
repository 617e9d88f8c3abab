// gatescope._core: reading traces from Python through the same data/, kernels/ and core/ code as
// the CLI and the viewer. No LibTorch, no Qt (tests/python checks the linked libraries). Every
// call that reads or computes releases the GIL; arrays the reader returns are handed to NumPy
// without a copy.
#include <pybind11/stl.h>

#include "bindings.h"
#include "core/analysis/trace_info.h"
#include "core/build_info.h"

namespace gatescope::python {

namespace {

std::vector<py::ssize_t> shapeOf(const std::vector<int64_t>& shape) {
    return {shape.begin(), shape.end()};
}

py::array_t<float> traceArray(data::Array&& a) {
    const auto shape = shapeOf(a.shape);
    return python::toArray(std::move(a.values), shape);
}

py::dict tokens(const TraceFile& t) {
    data::TokenTable table;
    {
        py::gil_scoped_release release;
        table = unwrap(t.reader().tokens());
    }
    const auto n = static_cast<py::ssize_t>(table.ids.size());
    py::list text(n);
    for (py::ssize_t i = 0; i < n; ++i)
        text[i] = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
            table.text[i].data(), static_cast<py::ssize_t>(table.text[i].size()), "replace"));
    py::dict out;
    out["ids"] = python::toArray(std::move(table.ids), {n});
    out["text"] = text;
    out["byte_offsets"] = viewAs<int64_t>(std::move(table.byteOffsets), {n, 2});
    out["source_text"] = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        table.sourceText.data(), static_cast<py::ssize_t>(table.sourceText.size()), "replace"));
    return out;
}

py::dict perToken(const TraceFile& t) {
    data::PerTokenResults r;
    {
        py::gil_scoped_release release;
        r = unwrap(t.reader().perToken());
    }
    const auto n = static_cast<py::ssize_t>(r.loss.size());
    py::dict out;
    out["loss"] = python::toArray(std::move(r.loss), {n});
    out["target_rank"] = python::toArray(std::move(r.targetRank), {n});
    out["entropy"] = python::toArray(std::move(r.entropy), {n});
    const auto k = static_cast<py::ssize_t>(r.topK);
    out["top_ids"] = python::toArray(std::move(r.topIds), {n, k});
    out["top_logprobs"] = python::toArray(std::move(r.topLogProbs), {n, k});
    py::dict vocab;
    for (size_t i = 0; i < r.vocabIds.size(); ++i)
        vocab[py::int_(r.vocabIds[i])] = py::str(PyUnicode_DecodeUTF8(
            r.vocabText[i].data(), static_cast<py::ssize_t>(r.vocabText[i].size()), "replace"));
    out["vocab"] = std::move(vocab);
    return out;
}

int64_t endOr(int64_t end, const TraceFile& t) {
    return end < 0 ? t.reader().summary().nTokens : end;
}

}  // namespace

}  // namespace gatescope::python

PYBIND11_MODULE(_core, m) {
    using namespace gatescope;
    using namespace gatescope::python;
    registerErrors();
    m.doc() = "gatescope's reading core (see the gatescope package for the documented API)";
    m.attr("version") = core::gatescopeVersion();
    m.attr("git_revision") = core::gatescopeGitRevision();

    TraceFileClass cls(m, "TraceFile");
    m.def(
        "open",
        [](const std::string& path, size_t cacheBytes) {
            py::gil_scoped_release release;
            return unwrap(TraceFile::open(path, cacheBytes));
        },
        py::arg("path"), py::arg("cache_bytes"));
    cls.def_property_readonly("path", [](const TraceFile& t) { return t.reader().path(); })
        .def_property_readonly("n_tokens",
                               [](const TraceFile& t) { return t.reader().summary().nTokens; })
        .def_property_readonly("model_type",
                               [](const TraceFile& t) { return t.reader().summary().modelType; })
        .def("summary",
             [](const TraceFile& t) {
                 return toPython(core::traceSummaryJson(t.reader().summary()));
             })
        .def("manifest",
             [](const TraceFile& t) {
                 nlohmann::json j;
                 {
                     py::gil_scoped_release release;
                     j = unwrap(t.reader().manifest());
                 }
                 return toPython(j);
             })
        .def("tokens", &tokens)
        .def("per_token", &perToken)
        .def(
            "gates",
            [](const TraceFile& t, int layer, int head, int64_t begin, int64_t end) {
                data::Array a;
                {
                    py::gil_scoped_release release;
                    a = head < 0
                            ? unwrap(t.reader().gates(layer))
                            : unwrap(t.reader().gatesForHead(layer, head, begin, endOr(end, t)));
                }
                return traceArray(std::move(a));
            },
            py::arg("layer"), py::arg("head") = -1, py::arg("begin") = 0, py::arg("end") = -1)
        .def(
            "factor",
            [](const TraceFile& t, int layer, const std::string& name, int head, int64_t begin,
               int64_t end) {
                data::Array a;
                {
                    py::gil_scoped_release release;
                    a = unwrap(t.reader().factor(layer, name, head, begin, endOr(end, t)));
                }
                return traceArray(std::move(a));
            },
            py::arg("layer"), py::arg("name"), py::arg("head"), py::arg("begin") = 0,
            py::arg("end") = -1);
    bindTiles(cls);
    bindAnalyses(m);
}
