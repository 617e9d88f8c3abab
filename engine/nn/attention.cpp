#include "engine/nn/attention.h"

#include <vector>

#include "engine/nn/model_error.h"
#include "engine/nn/tensor_convert.h"
#include "kernels/cpu/attention_forward.h"
#ifdef GATESCOPE_HAS_CUDA
#include "kernels/cuda/attention_cuda.h"
#endif

namespace gatescope::core {

namespace {

AttentionOutput cudaAttention(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                              double scale, int64_t window, bool bf16Probs) {
#ifndef GATESCOPE_HAS_CUDA
    throwModelError(ErrorKind::Unsupported, "CUDA tensors, but this build has no CUDA kernels");
#else
    // bf16: the operands already hold bf16 values (bf16 GEMM outputs), so the cast is exact and
    // the tensor-core kernel runs; fp32: the fp32 fallback kernel, exact like the CPU path.
    const auto dtype = bf16Probs ? torch::kBFloat16 : torch::kFloat32;
    auto qc = q.to(dtype).contiguous();
    auto kc = k.to(dtype).contiguous();
    auto vc = v.to(dtype).contiguous();
    torch::Tensor cc;
    if (logDecayCumsum.defined()) cc = logDecayCumsum.to(torch::kFloat32).contiguous();
    const int64_t heads = qc.size(0), n = qc.size(1), dk = qc.size(2);
    const int64_t kvHeads = kc.size(0), dv = vc.size(2);

    AttentionOutput result{torch::empty({heads, n, dv}, qc.options()),
                           torch::empty({heads, n}, qc.options().dtype(torch::kFloat32))};
    kernels::cuda::AdditiveDecayBatch batch;
    batch.heads = static_cast<int>(heads);
    batch.n = n;
    batch.dk = static_cast<int>(dk);
    batch.dv = static_cast<int>(dv);
    batch.kvGroup = static_cast<int>(heads / kvHeads);
    batch.dtype = bf16Probs ? kernels::cuda::DType::BF16 : kernels::cuda::DType::F32;
    batch.q = qc.data_ptr();
    batch.k = kc.data_ptr();
    batch.v = vc.data_ptr();
    batch.qHeadStride = n * dk;
    batch.qRowStride = dk;
    batch.kHeadStride = n * dk;
    batch.kRowStride = dk;
    batch.vHeadStride = n * dv;
    batch.vRowStride = dv;
    batch.logDecayCumsum = cc.defined() ? cc.data_ptr<float>() : nullptr;
    batch.decayHeadStride = n;
    batch.scale = static_cast<float>(scale);
    batch.window = window;
    kernels::cuda::ForwardOutputs outputs;
    outputs.out = result.out.data_ptr();
    outputs.outHeadStride = n * dv;
    outputs.outRowStride = dv;
    outputs.lse = result.lse.data_ptr<float>();
    outputs.lseHeadStride = n;
    // The legacy default stream: the one LibTorch's ops run on here, so ordering is kept.
    const std::string error = kernels::cuda::attentionForward(batch, outputs, nullptr);
    if (!error.empty()) throwModelError(ErrorKind::Internal, "CUDA attention: " + error);
    result.out = result.out.to(torch::kFloat32);
    return result;
#endif
}

struct DeviceFactorTensors {
    torch::Tensor q, k, lse, logDecayCumsum;
};

struct DeviceArrayTensors {
    std::shared_ptr<const void> previous;
    std::vector<torch::Tensor> arrays;
};

}  // namespace

AttentionOutput additiveDecayAttention(const torch::Tensor& q, const torch::Tensor& k,
                                       const torch::Tensor& v, const torch::Tensor& logDecayCumsum,
                                       double scale, int64_t window, bool bf16Probs, int threads) {
    if (q.is_cuda()) return cudaAttention(q, k, v, logDecayCumsum, scale, window, bf16Probs);
    auto qc = q.to(torch::kFloat32).contiguous();
    auto kc = k.to(torch::kFloat32).contiguous();
    auto vc = v.to(torch::kFloat32).contiguous();
    torch::Tensor cc;
    if (logDecayCumsum.defined()) cc = logDecayCumsum.to(torch::kFloat32).contiguous();

    const int64_t heads = qc.size(0), n = qc.size(1), dk = qc.size(2);
    const int64_t kvHeads = kc.size(0), dv = vc.size(2);
    const int64_t group = heads / kvHeads;

    AttentionOutput result{torch::empty({heads, n, dv}, torch::kFloat32),
                           torch::empty({heads, n}, torch::kFloat32)};
    std::vector<kernels::AdditiveDecayHead> views(heads);
    std::vector<float*> outs(heads), lses(heads);
    for (int64_t h = 0; h < heads; ++h) {
        auto& view = views[h];
        view.n = n;
        view.dk = static_cast<int>(dk);
        view.dv = static_cast<int>(dv);
        view.q = qc.data_ptr<float>() + h * n * dk;
        view.k = kc.data_ptr<float>() + (h / group) * n * dk;
        view.v = vc.data_ptr<float>() + (h / group) * n * dv;
        view.logDecayCumsum = cc.defined() ? cc.data_ptr<float>() + h * n : nullptr;
        view.scale = static_cast<float>(scale);
        view.window = window;
        outs[h] = result.out.data_ptr<float>() + h * n * dv;
        lses[h] = result.lse.data_ptr<float>() + h * n;
    }
    kernels::ForwardOptions options;
    options.roundProbsToBf16 = bf16Probs;
    kernels::attentionForwardHeads(views.data(), static_cast<int>(heads), outs.data(), lses.data(),
                                   options, threads);
    return result;
}

void attachDeviceFactors(LayerRecord& record, const torch::Tensor& q, const torch::Tensor& k,
                         const torch::Tensor& lse, const torch::Tensor& logDecayCumsum) {
    if (!q.is_cuda()) return;
    auto tensors = std::make_shared<DeviceFactorTensors>();
    tensors->q = q.to(torch::kFloat32).contiguous();
    tensors->k = k.to(torch::kFloat32).contiguous();
    tensors->lse = lse.to(torch::kFloat32).contiguous();
    if (logDecayCumsum.defined())
        tensors->logDecayCumsum = logDecayCumsum.to(torch::kFloat32).contiguous();
    auto factors = std::make_shared<DeviceFactors>();
    factors->n = tensors->q.size(1);
    factors->heads = static_cast<int>(tensors->q.size(0));
    factors->kvHeads = static_cast<int>(tensors->k.size(0));
    factors->dk = static_cast<int>(tensors->q.size(2));
    factors->q = tensors->q.data_ptr<float>();
    factors->k = tensors->k.data_ptr<float>();
    factors->lse = tensors->lse.data_ptr<float>();
    if (tensors->logDecayCumsum.defined())
        factors->logDecayCumsum = tensors->logDecayCumsum.data_ptr<float>();
    factors->owner = tensors;
    record.deviceFactors = std::move(factors);
}

void recordFactors(LayerRecord& record, const Probe& probe,
                   const std::vector<std::pair<std::string, torch::Tensor>>& factors,
                   const torch::Tensor& logRetention) {
    const bool onDevice =
        probe.takesDeviceArrays() && !factors.empty() && factors.front().second.is_cuda();
    if (!onDevice) {
        for (const auto& [name, tensor] : factors) {
            if (probe.wantsFactor(name)) record.factors[name] = toFloatArray(tensor);
        }
        if (logRetention.defined()) record.logRetention = toFloatArray(logRetention);
        return;
    }
    auto device = record.deviceFactors ? std::make_shared<DeviceFactors>(*record.deviceFactors)
                                       : std::make_shared<DeviceFactors>();
    auto tensors = std::make_shared<DeviceArrayTensors>();
    tensors->previous = device->owner;
    auto add = [&](const std::string& name, const torch::Tensor& tensor) {
        const bool bf16 = tensor.scalar_type() == torch::kBFloat16;
        auto kept = (bf16 ? tensor : tensor.to(torch::kFloat32)).contiguous();
        DeviceArray array;
        array.shape = kept.sizes().vec();
        array.data = kept.data_ptr();
        array.bf16 = bf16;
        device->arrays[name] = std::move(array);
        tensors->arrays.push_back(std::move(kept));
    };
    for (const auto& [name, tensor] : factors) {
        if (probe.wantsFactor(name)) add(name, tensor);
    }
    if (logRetention.defined()) add("log_retention", logRetention);
    device->owner = tensors;
    record.deviceFactors = std::move(device);
}

std::vector<std::pair<std::string, torch::Tensor>> attentionFactors(const torch::Tensor& q,
                                                                    const torch::Tensor& k,
                                                                    const torch::Tensor& v,
                                                                    const torch::Tensor& lse) {
    return {{"q", q.permute({1, 0, 2})}, {"k", k.permute({1, 0, 2})}, {"v", v}, {"lse", lse}};
}

}  // namespace gatescope::core
