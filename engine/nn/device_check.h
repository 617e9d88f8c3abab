// Which devices a forward can run on here (RunOptions::device). No LibTorch types: app/ asks
// these before it starts jobs (batch workers), engine/nn/device.h turns the answer into tensors.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "data/common/result.h"

namespace gatescope::core {

/// Whether RunOptions::device `device` can run here: "cpu", or "cuda" / "cuda:N" (visible device
/// N; "cuda" is device 0) when this build has the CUDA kernels, its LibTorch has CUDA and that GPU
/// is visible. Returns a description for manifests that names the physical GPU ("cpu",
/// "cuda:1: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, PCI 0000:1b:00.0, GPU-...)"); errors say which
/// of those is missing. Makes that GPU the calling thread's current CUDA device.
Result<std::string> checkDevice(std::string_view device);

/// The visible CUDA device a RunOptions::device names: "cuda" -> 0, "cuda:N" -> N; nullopt for
/// "cpu" and for anything that is not a device name.
std::optional<int> cudaDeviceIndex(std::string_view device);

/// CUDA devices this process can use (CUDA_VISIBLE_DEVICES applied); 0 in builds without the
/// CUDA kernels or on machines without a GPU or driver.
int visibleCudaDevices();

}  // namespace gatescope::core
