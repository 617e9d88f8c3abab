// Model-level expectations on a checkpoint's tensors, for model loaders: one call per parameter
// yields a clear error naming the file and the tensor ("expected [512, 128] got [512, 64]").
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint.h"

namespace gatescope::core {

/// F64, F32, F16, BF16: what a float weight may be stored as.
inline const std::vector<DType> kFloatDTypes = {DType::F64, DType::F32, DType::F16, DType::BF16};

/// The tensor `name` exists, its dtype is one of `dtypes` (any dtype when empty), and its shape is
/// `shape` exactly. Errors: Missing (file = the weight file, or the folder when sharded; object =
/// name), Shape (file = the shard holding it; "expected dtype F32 or BF16, got I64" or "expected
/// shape [..] got [..]"). Pure function; thread-safe.
Status expectTensor(const Checkpoint& checkpoint, const std::string& name,
                    const std::vector<DType>& dtypes, const std::vector<int64_t>& shape);

/// expectTensor, then the tensor itself (valid while the checkpoint lives).
Result<const TensorInfo*> requireTensor(const Checkpoint& checkpoint, const std::string& name,
                                        const std::vector<DType>& dtypes,
                                        const std::vector<int64_t>& shape);

/// Every tensor of the checkpoint is in `used`; otherwise a Format error naming the first
/// unexpected tensor and how many there are (a sign of a wrong config or model variant).
Status expectNoUnexpectedTensors(const Checkpoint& checkpoint, const std::set<std::string>& used);

}  // namespace gatescope::core
