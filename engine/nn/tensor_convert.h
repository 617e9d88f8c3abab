// Private to core/: LibTorch tensor <-> public FloatArray, and guarded entry points.
#pragma once

#include <functional>
#include <new>

#include "core/model/float_array.h"
#include "data/common/result.h"
#include "engine/nn/model_error.h"
#include "engine/torch_pch.h"
#include "kernels/cpu/cancel.h"

namespace gatescope::core {

/// Copies any tensor into an owned float32 FloatArray (contiguous, row-major).
FloatArray toFloatArray(const torch::Tensor& tensor);

/// Runs `body`, converting ModelError, kernels::Cancelled, c10::Error and std::bad_alloc into an
/// Error.
template <class T>
Result<T> guarded(const std::function<T()>& body, const std::string& file = {}) {
    try {
        return body();
    } catch (const ModelError& e) {
        return e.error;
    } catch (const kernels::Cancelled&) {
        return Error{ErrorKind::Cancelled, "cancelled", file, {}};
    } catch (const std::bad_alloc&) {
        return Error{
            ErrorKind::Io, "out of memory (try a shorter --range or fewer layers)", file, {}};
    } catch (const c10::Error& e) {
        return Error{
            ErrorKind::Internal, std::string("LibTorch: ") + e.what_without_backtrace(), file, {}};
    }
}

}  // namespace gatescope::core
