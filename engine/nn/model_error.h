// Private to core/: model code throws ModelError deep inside LibTorch work; loadModel / forward
// convert it (and c10::Error, std::bad_alloc) into gatescope::Error at the public boundary.
#pragma once

#include <stdexcept>

#include "data/common/result.h"

namespace gatescope::core {

struct ModelError : std::runtime_error {
    explicit ModelError(Error e) : std::runtime_error(e.describe()), error(std::move(e)) {}
    Error error;
};

[[noreturn]] inline void throwModelError(ErrorKind kind, std::string message, std::string file = {},
                                         std::string object = {}) {
    throw ModelError(Error{kind, std::move(message), std::move(file), std::move(object)});
}

}  // namespace gatescope::core
