// Tensor maps for the wgmma forward (tensor_map.h). The driver's encoder is looked up through the
// runtime (cudaGetDriverEntryPointByVersion), so that nothing links libcuda itself.
#include "kernels/cuda/tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <string>
#include <utility>

namespace gatescope::kernels::cuda::detail {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* found = nullptr;
        cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
        const cudaError_t error = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", &found, 12000, cudaEnableDefault, &status);
#else  // CUDA 12.0-12.4: the versioned lookup does not exist yet
        const cudaError_t error =
            cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &found, cudaEnableDefault, &status);
#endif
        if (error != cudaSuccess || status != cudaDriverEntryPointSuccess) found = nullptr;
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(found);
    }();
    return fn;
}

}  // namespace

std::string encodeTileMap(TileMap& map, const void* base, int dim, int64_t rows, int heads,
                          int64_t rowStride, int64_t headStride, int boxRows) {
    auto encode = encoder();
    if (!encode) return "cuTensorMapEncodeTiled is not available from the driver";
    // One head: its stride is never used, and the map stays (column, row, head).
    map.headsInner = heads > 1 && headStride < rowStride ? 1 : 0;
    cuuint64_t sizes[3] = {cuuint64_t(dim), cuuint64_t(rows), cuuint64_t(heads)};
    cuuint64_t strides[2] = {cuuint64_t(rowStride) * 2,
                             cuuint64_t(heads > 1 ? headStride : rows * rowStride) * 2};
    cuuint32_t box[3] = {64, cuuint32_t(boxRows), 1};
    if (map.headsInner) {
        std::swap(sizes[1], sizes[2]);
        std::swap(strides[0], strides[1]);
        std::swap(box[1], box[2]);
    }
    const cuuint32_t elementStrides[3] = {1, 1, 1};
    const CUresult result =
        encode(&map.map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, const_cast<void*>(base), sizes, strides,
               box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        return "cuTensorMapEncodeTiled failed (" + std::to_string(int(result)) + "): dim " +
               std::to_string(dim) + ", rows " + std::to_string(rows) + ", heads " +
               std::to_string(heads) + ", strides " + std::to_string(rowStride) + " / " +
               std::to_string(headStride) + " elements";
    return {};
}

}  // namespace gatescope::kernels::cuda::detail
