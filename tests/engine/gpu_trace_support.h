// Test support for the GPU trace tests (gpu_trace_test.cpp, gpu_intervention_test.cpp): a
// checkpoint and input traced by core::runTraceJob on the CPU and on the GPU, and the two files
// compared (per-token loss, gates, every stored factor and every pyramid tile) within dtype
// tolerances.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/model.h"
#include "core/trace/trace_request.h"
#include "data/trace/trace_reader.h"
#include "wall_reference_model.h"

namespace gatescope::test::gpu {

/// A fresh folder under the temporary directory, removed with everything in it on destruction.
struct ScratchDir {
    std::filesystem::path path;
    explicit ScratchDir(const std::string& name);
    ~ScratchDir();
};

/// Whether `--device cuda` can run here; when not, `why` gets the device check's message.
bool gpuUsable(std::string* why = nullptr);

#define GATESCOPE_REQUIRE_GPU()                                                          \
    do {                                                                                 \
        std::string why;                                                                 \
        if (!::gatescope::test::gpu::gpuUsable(&why)) GTEST_SKIP() << "no GPU: " << why; \
    } while (0)

struct Tolerances {
    double loss, gates, factors, pyramids;
};

/// What two traces of one dtype may differ by (comments in the .cpp say why).
Tolerances tolerancesFor(core::ComputeDType dtype);

struct Differences {
    double loss = 0, gates = 0, factors = 0, pyramids = 0;  ///< gates, factors: relative to max
    std::string worstFactor;
    int64_t tiles = 0;
};

/// Largest |a_i - b_i| (NaN in both counts as equal, NaN in one as infinite).
double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b);

/// Every per-token value, gate, factor and pyramid tile of `gpu` against `cpu`.
Differences compareTraces(const data::TraceReader& cpu, const data::TraceReader& gpu);

/// Traces `request` on the CPU (dir/cpu.h5) and on the GPU (dir/gpu.h5) and compares the two
/// files; both files stay. `tolerances` default to tolerancesFor(request.dtype); `measured`, when
/// given, gets the differences.
void traceBothAndCompare(core::TraceRequest request, const std::filesystem::path& dir,
                         const std::string& what,
                         std::optional<Tolerances> tolerances = std::nullopt,
                         Differences* measured = nullptr);

/// A trace request for fixture `model` on its own input (expected.safetensors' input_ids) in
/// `dtype`, uncompressed.
core::TraceRequest fixtureRequest(const std::filesystem::path& model, core::ComputeDType dtype);

/// A random Wall checkpoint of `c` (the float64 reference model's weights) in dir/model and a
/// trace request for `tokens` token ids of it, uncompressed.
core::TraceRequest wallRequest(const std::filesystem::path& dir, const WallRefConfig& c,
                               unsigned seed, int tokens);

/// Wall's tolerances: float32 ones, the loss 1e-3 (the .cpp says why).
Tolerances wallTolerances();

}  // namespace gatescope::test::gpu
