#include "core/model/model.h"

namespace gatescope::core {

std::string_view toString(ComputeDType dtype) {
    return dtype == ComputeDType::BFloat16 ? "bfloat16" : "float32";
}

}  // namespace gatescope::core
