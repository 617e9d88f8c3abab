// What every gatescope extension module shares: errors as Python exceptions (the classes of
// gatescope/_errors.py, carrying the core's kind, file and object), arrays handed to NumPy
// without a copy, and JSON documents as plain Python objects. Header-only, so each module has its
// own copy of the (small, stateless) glue; call these with the GIL held.
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include "data/common/result.h"

namespace gatescope::python {

namespace py = pybind11;

/// A core Error on its way to Python: thrown by unwrap(), turned into gatescope.Error (or its
/// subclass for the kind) by the translator registerErrors() installs.
struct CoreError : std::exception {
    explicit CoreError(Error e) : error(std::move(e)), text(error.describe()) {}
    const char* what() const noexcept override { return text.c_str(); }
    Error error;
    std::string text;
};

/// The value of `r`, or a CoreError. Safe without the GIL (it only throws C++).
template <class T>
T unwrap(Result<T>&& r) {
    if (!r) throw CoreError(r.error());
    return std::move(r).value();
}

inline void registerErrors() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const CoreError& e) {
            const py::object make = py::module_::import("gatescope._errors").attr("_make");
            const py::object exc =
                make(toString(e.error.kind), e.error.describe(), e.error.file, e.error.object);
            PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
        }
    });
}

/// `values` as a C-contiguous array of `shape`, owned by the array (moved, not copied).
template <class T>
py::array_t<T> toArray(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
    if (values.empty()) return py::array_t<T>(shape);
    auto* owner = new std::vector<T>(std::move(values));
    py::capsule free(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(shape, owner->data(), free);
}

/// `values` (elements of `Elem`, e.g. std::array<int64_t, 2>) as an array of `T` of `shape`,
/// owned by the array: a view of the same bytes, without a copy.
template <class T, class Elem>
py::array_t<T> viewAs(std::vector<Elem>&& values, std::vector<py::ssize_t> shape) {
    static_assert(sizeof(Elem) % sizeof(T) == 0 && alignof(Elem) >= alignof(T));
    if (values.empty()) return py::array_t<T>(shape);
    auto* owner = new std::vector<Elem>(std::move(values));
    py::capsule free(owner, [](void* p) { delete static_cast<std::vector<Elem>*>(p); });
    return py::array_t<T>(shape, reinterpret_cast<const T*>(owner->data()), free);
}

/// A JSON document as Python's json module reads its text (NaN already written as null), so a
/// dict from here equals json.load() of the CLI's file.
inline py::object toPython(const nlohmann::json& j) {
    return py::module_::import("json").attr("loads")(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace gatescope::python
