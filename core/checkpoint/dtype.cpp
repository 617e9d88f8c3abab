#include "core/checkpoint/dtype.h"

#include <array>
#include <utility>

namespace gatescope::core {
namespace {

struct DTypeEntry {
    DType dtype;
    std::string_view name;
    std::size_t size;
};

constexpr std::array<DTypeEntry, 10> kDTypes{{
    {DType::F64, "F64", 8},
    {DType::F32, "F32", 4},
    {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2},
    {DType::I64, "I64", 8},
    {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},
    {DType::I8, "I8", 1},
    {DType::U8, "U8", 1},
    {DType::Bool, "BOOL", 1},
}};

const DTypeEntry& entry(DType dtype) {
    for (const DTypeEntry& e : kDTypes) {
        if (e.dtype == dtype) return e;
    }
    return kDTypes[1];  // unreachable for valid enum values
}

}  // namespace

std::size_t dtypeSize(DType dtype) {
    return entry(dtype).size;
}

std::string_view dtypeName(DType dtype) {
    return entry(dtype).name;
}

std::optional<DType> parseDType(std::string_view name) {
    for (const DTypeEntry& e : kDTypes) {
        if (e.name == name) return e.dtype;
    }
    return std::nullopt;
}

bool isFloating(DType dtype) {
    return dtype == DType::F64 || dtype == DType::F32 || dtype == DType::F16 ||
           dtype == DType::BF16;
}

bool isInteger(DType dtype) {
    return dtype == DType::I64 || dtype == DType::I32 || dtype == DType::I16 ||
           dtype == DType::I8 || dtype == DType::U8;
}

}  // namespace gatescope::core
