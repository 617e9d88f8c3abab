// TraceFile.tile and TraceFile.row: the work runs without the GIL; results move into NumPy.
#include <pybind11/stl.h>

#include "bindings.h"

namespace gatescope::python {

namespace {

py::array_t<float> tile(const TraceFile& t, int layer, int head, int64_t row0, int64_t row1,
                        int64_t col0, int64_t col1, const std::string& map, int level,
                        const std::string& pool) {
    RegionRequest q;
    q.layer = layer;
    q.head = head;
    q.row0 = row0;
    q.row1 = row1;
    q.col0 = col0;
    q.col1 = col1;
    const auto kind = parseRegionMap(map);
    if (!kind)
        throw CoreError(Error{ErrorKind::Usage, "map must be attention, decay or product", {}, {}});
    q.map = *kind;
    if (level >= 0) q.level = level;
    const auto p = data::parsePool(pool);
    if (!p) throw CoreError(Error{ErrorKind::Usage, "pool must be max or mean", {}, {}});
    q.pool = *p;
    Region r;
    {
        py::gil_scoped_release release;
        r = unwrap(t.region(q));
    }
    return toArray(std::move(r.values), {r.rows, r.cols});
}

py::dict row(const TraceFile& t, int layer, int head, int64_t query, int topK) {
    core::QueryRow r;
    {
        py::gil_scoped_release release;
        r = unwrap(t.row(layer, head, query, topK));
    }
    const auto keys = static_cast<py::ssize_t>(r.attention.size());
    const auto top = static_cast<py::ssize_t>(r.topKeys.size());
    py::dict out;
    out["query"] = r.query;
    out["attention"] = toArray(std::move(r.attention), {keys});
    out["logit"] =
        r.logit.empty() ? py::object(py::none()) : py::object(toArray(std::move(r.logit), {keys}));
    out["content"] = r.content.empty() ? py::object(py::none())
                                       : py::object(toArray(std::move(r.content), {keys}));
    out["forget"] = r.forget.empty() ? py::object(py::none())
                                     : py::object(toArray(std::move(r.forget), {keys}));
    out["top_keys"] = toArray(std::move(r.topKeys), {top});
    out["top_weights"] = toArray(std::move(r.topWeights), {top});
    return out;
}

}  // namespace

void bindTiles(TraceFileClass& cls) {
    cls.def("tile", &tile, py::arg("layer"), py::arg("head"), py::arg("row0"), py::arg("row1"),
            py::arg("col0"), py::arg("col1"), py::arg("map"), py::arg("level"), py::arg("pool"));
    cls.def("row", &row, py::arg("layer"), py::arg("head"), py::arg("query"), py::arg("top_k"));
}

}  // namespace gatescope::python
