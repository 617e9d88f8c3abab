// Errors as values. Everything that reaches the UI or the CLI is a Result<T>: either a value or an
// Error that names the file and the object (tensor, dataset, key) at fault. Libraries may throw
// internally at foreign-API boundaries; they convert to Error before returning to a caller.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace gatescope {

/// Broad class of failure; lets the CLI choose an exit code and the GUI an icon.
enum class ErrorKind {
    Io,           ///< cannot open, read, write, rename; disk full
    Format,       ///< the bytes are not what the format says (truncated, corrupt header, not HDF5)
    Version,      ///< a known format of a version we do not read
    Missing,      ///< a required tensor, dataset or key is absent
    Shape,        ///< wrong shape or dtype
    Unsupported,  ///< valid input that we refuse rather than compute wrongly
    Usage,        ///< bad arguments
    Cancelled,    ///< the user stopped the job
    Internal,     ///< a bug: an invariant did not hold
};

/// What went wrong, where. Copyable, cheap, thread-agnostic.
struct Error {
    ErrorKind kind = ErrorKind::Internal;
    std::string message;  ///< human sentence, no trailing period required
    std::string file;     ///< the file at fault, if any
    std::string object;   ///< the object inside the file (dataset path, tensor name), if any

    /// "FILE: OBJECT: MESSAGE", omitting empty parts.
    std::string describe() const {
        std::string out;
        if (!file.empty()) out += file + ": ";
        if (!object.empty()) out += object + ": ";
        return out + message;
    }
};

inline const char* toString(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::Io:
            return "io";
        case ErrorKind::Format:
            return "format";
        case ErrorKind::Version:
            return "version";
        case ErrorKind::Missing:
            return "missing";
        case ErrorKind::Shape:
            return "shape";
        case ErrorKind::Unsupported:
            return "unsupported";
        case ErrorKind::Usage:
            return "usage";
        case ErrorKind::Cancelled:
            return "cancelled";
        case ErrorKind::Internal:
            return "internal";
    }
    return "internal";
}

/// Either a T or an Error (a small std::expected for C++20).
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<T>(m_state);
    }
    const T& value() const& {
        assert(ok());
        return std::get<T>(m_state);
    }
    T&& value() && {
        assert(ok());
        return std::get<T>(std::move(m_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<Error>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace gatescope
