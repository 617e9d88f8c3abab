// Element types found in checkpoints (safetensors names).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gatescope::core {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

/// Bytes per element.
std::size_t dtypeSize(DType dtype);
/// The safetensors spelling ("F32", "BF16", ...).
std::string_view dtypeName(DType dtype);
/// Parses a safetensors dtype string; nullopt for types we do not read.
std::optional<DType> parseDType(std::string_view name);
/// True for F64, F32, F16, BF16.
bool isFloating(DType dtype);
/// True for I64, I32, I16, I8, U8 (not Bool).
bool isInteger(DType dtype);

}  // namespace gatescope::core
