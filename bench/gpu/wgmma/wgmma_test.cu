// Standalone check and benchmark of the sm_90a wgmma forward
// (kernels/cuda/attention_forward_wgmma.cu) against a float64 CPU reference and the mma.sync kernel
// (kernels/cuda/attention_forward_mma.cu).
//   wgmma_test            correctness cases, then a timing table (both kernels)
//   wgmma_test --max-n N  JSON lines in cuda_attention_bench's format (for compare_sdpa.py)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/gpu/bench_support.h"
#include "kernels/cuda/forward_launch.h"

namespace gc = gatescope::kernels::cuda;
namespace gd = gatescope::kernels::cuda::detail;

namespace {

using gatescope::benchgpu::check;
using gatescope::benchgpu::medianMs;

uint16_t toBits(float x, gc::DType dt) {
    uint16_t b;
    if (dt == gc::DType::BF16) {
        __nv_bfloat16 h = __float2bfloat16(x);
        std::memcpy(&b, &h, 2);
    } else {
        __half h = __float2half(x);
        std::memcpy(&b, &h, 2);
    }
    return b;
}
float fromBits(uint16_t b, gc::DType dt) {
    if (dt == gc::DType::BF16) {
        __nv_bfloat16 h;
        std::memcpy(&h, &b, 2);
        return __bfloat162float(h);
    }
    __half h;
    std::memcpy(&h, &b, 2);
    return __half2float(h);
}

std::vector<float> logDecayCumsum(int heads, int64_t n, std::mt19937& rng) {
    std::normal_distribution<float> nd;
    std::vector<float> c(size_t(heads) * n);
    for (int h = 0; h < heads; ++h) {
        double acc = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double x = nd(rng) * 1.5 + 2.0;
            acc += -std::log1p(std::exp(-x));  // logsigmoid
            c[h * n + i] = float(acc);
        }
    }
    return c;
}

struct Case {
    int n, d, heads, kvGroup;
    bool decay;
    int64_t window;
    gc::DType dt;
    bool strided;  // [n][heads][d] token-major layout
};

using Launch = std::string (*)(const gd::FlashParams&, int, int, gc::DType, cudaStream_t);

struct Result {
    double outErr, lseErr;
    bool allWritten;
};

bool runCase(const Case& cs, std::mt19937& rng) {
    const int n = cs.n, d = cs.d, H = cs.heads, KH = cs.heads / cs.kvGroup;
    const float scale = 1.f / std::sqrt(float(d));
    std::normal_distribution<float> nd;
    std::vector<uint16_t> hq(size_t(n) * H * d), hk(size_t(n) * KH * d), hv(size_t(n) * KH * d);
    std::vector<float> fq(hq.size()), fk(hk.size()), fv(hv.size());
    for (size_t i = 0; i < hq.size(); ++i)
        fq[i] = fromBits(hq[i] = toBits(nd(rng), cs.dt), cs.dt);
    for (size_t i = 0; i < hk.size(); ++i)
        fk[i] = fromBits(hk[i] = toBits(nd(rng), cs.dt), cs.dt);
    for (size_t i = 0; i < hv.size(); ++i)
        fv[i] = fromBits(hv[i] = toBits(nd(rng), cs.dt), cs.dt);
    const std::vector<float> hc = logDecayCumsum(H, n, rng);
    // Element (head, token, col) offsets.
    auto qOff = [&](int h, int64_t i) {
        return cs.strided ? (i * H + h) * d : (h * int64_t(n) + i) * d;
    };
    auto kOff = [&](int h, int64_t i) {
        return cs.strided ? (i * KH + h) * d : (h * int64_t(n) + i) * d;
    };

    void *q, *k, *v, *out;
    float *lse, *c;
    check(cudaMalloc(&q, hq.size() * 2), "q");
    check(cudaMalloc(&k, hk.size() * 2), "k");
    check(cudaMalloc(&v, hv.size() * 2), "v");
    check(cudaMalloc(&out, hq.size() * 2), "out");
    check(cudaMalloc(&lse, size_t(H) * n * 4), "lse");
    check(cudaMalloc(&c, hc.size() * 4), "c");
    check(cudaMemcpy(q, hq.data(), hq.size() * 2, cudaMemcpyHostToDevice), "cp");
    check(cudaMemcpy(k, hk.data(), hk.size() * 2, cudaMemcpyHostToDevice), "cp");
    check(cudaMemcpy(v, hv.data(), hv.size() * 2, cudaMemcpyHostToDevice), "cp");
    check(cudaMemcpy(c, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice), "cp");

    gd::FlashParams p{};
    p.q = q;
    p.k = k;
    p.v = v;
    p.out = out;
    p.lse = lse;
    p.c = cs.decay ? c : nullptr;
    p.n = n;
    p.window = cs.window;
    p.qRow = cs.strided ? H * d : d;
    p.qHead = cs.strided ? d : int64_t(n) * d;
    p.kRow = p.vRow = cs.strided ? KH * d : d;
    p.kHead = p.vHead = cs.strided ? d : int64_t(n) * d;
    p.oRow = p.qRow;
    p.oHead = p.qHead;
    p.lseHead = n;
    p.cHead = n;
    p.kvGroup = cs.kvGroup;
    p.scaleLog2 = scale * 1.4426950408889634f;

    // Sampled reference rows.
    std::vector<int> rows;
    if (n <= 1200) {
        for (int i = 0; i < n; ++i)
            rows.push_back(i);
    } else {
        std::uniform_int_distribution<int> ud(0, n - 1);
        for (int r = 0; r < 96; ++r)
            rows.push_back(ud(rng));
        for (int i = 0; i < 8; ++i)
            rows.push_back(i), rows.push_back(n - 1 - i);
    }
    std::vector<double> ref(size_t(H) * rows.size() * d), refLse(size_t(H) * rows.size());
    for (int h = 0; h < H; ++h) {
        const int kh = h / cs.kvGroup;
        for (size_t r = 0; r < rows.size(); ++r) {
            const int i = rows[r];
            const int lo = cs.window > 0 ? std::max<int64_t>(0, i - cs.window + 1) : 0;
            std::vector<double> u(i + 1 - lo);
            double mx = -INFINITY;
            for (int j = lo; j <= i; ++j) {
                double dot = 0;
                for (int x = 0; x < d; ++x)
                    dot += double(fq[qOff(h, i) + x]) * fk[kOff(kh, j) + x];
                double val = scale * dot;
                if (cs.decay) val += double(hc[h * n + i]) - double(hc[h * n + j]);
                u[j - lo] = val;
                mx = std::max(mx, val);
            }
            double sum = 0;
            for (auto& e : u)
                sum += (e = std::exp(e - mx));
            for (int x = 0; x < d; ++x) {
                double o = 0;
                for (int j = lo; j <= i; ++j)
                    o += u[j - lo] * fv[kOff(kh, j) + x];
                ref[(h * rows.size() + r) * d + x] = o / sum;
            }
            refLse[h * rows.size() + r] = mx + std::log(sum);
        }
    }

    auto evaluate = [&](Launch launch, Result& res) {
        check(cudaMemset(out, 0xff, hq.size() * 2), "poison");
        check(cudaMemset(lse, 0xff, size_t(H) * n * 4), "poison");
        check(launch(p, H, d, cs.dt, nullptr));
        check(cudaDeviceSynchronize(), "run");
        std::vector<uint16_t> ho(hq.size());
        std::vector<float> hl(size_t(H) * n);
        check(cudaMemcpy(ho.data(), out, ho.size() * 2, cudaMemcpyDeviceToHost), "cp");
        check(cudaMemcpy(hl.data(), lse, hl.size() * 4, cudaMemcpyDeviceToHost), "cp");
        res.allWritten = true;
        for (auto b : ho)
            res.allWritten &= std::isfinite(fromBits(b, cs.dt));
        for (auto x : hl)
            res.allWritten &= std::isfinite(x);
        double num = 0, den = 0, lseErr = 0;
        for (int h = 0; h < H; ++h)
            for (size_t r = 0; r < rows.size(); ++r) {
                const int i = rows[r];
                for (int x = 0; x < d; ++x) {
                    const double o = fromBits(ho[qOff(h, i) + x], cs.dt);
                    const double e = ref[(h * rows.size() + r) * d + x];
                    num += (o - e) * (o - e);
                    den += e * e;
                }
                const double rl = refLse[h * rows.size() + r];
                const double dl =
                    std::fabs(hl[h * int64_t(n) + i] - rl) / std::max(1.0, std::fabs(rl));
                lseErr = std::max(lseErr, std::isfinite(dl) ? dl : 1e30);
            }
        res.outErr = std::sqrt(num / std::max(den, 1e-300));
        if (!std::isfinite(res.outErr)) res.outErr = 1e30;
        res.lseErr = lseErr;
    };
    Result ours{}, base{};
    evaluate(gd::launchWgmma, ours);
    evaluate(gd::launchTensorCore, base);
    const bool ok =
        ours.allWritten && ours.outErr < std::max(2e-2, 2 * base.outErr) && ours.lseErr < 1e-3;
    std::printf(
        "%s n=%d d=%d H=%d g=%d %s w=%lld %s %s | wgmma err %.2e lse %.1e written %d | mma err "
        "%.2e lse %.1e\n",
        ok ? "PASS" : "FAIL", n, d, H, cs.kvGroup, cs.decay ? "fox" : "plain", (long long)cs.window,
        cs.dt == gc::DType::BF16 ? "bf16" : "fp16", cs.strided ? "strided" : "contig", ours.outErr,
        ours.lseErr, int(ours.allWritten), base.outErr, base.lseErr);
    std::fflush(stdout);
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(out);
    cudaFree(lse);
    cudaFree(c);
    return ok;
}

// --quick: d = 64 only, wgmma only (A/B runs); --profile N: one FoX d = 64 launch of N keys
// after a warm-up (for ncu).
bool gQuick = false;
int64_t gProfileN = 0;

void bench(int64_t maxN, bool json) {
    std::mt19937 rng(42);
    const int64_t tokens = std::max<int64_t>(16384, maxN);
    const size_t elems = size_t(tokens) * 2048;
    void *q, *k, *v, *out;
    float *lse, *c;
    check(cudaMalloc(&q, elems * 2), "q");
    check(cudaMalloc(&k, elems * 2), "k");
    check(cudaMalloc(&v, elems * 2), "v");
    check(cudaMalloc(&out, elems * 2), "out");
    check(cudaMalloc(&lse, size_t(tokens) * 32 * 4), "lse");
    check(cudaMalloc(&c, size_t(tokens) * 32 * 4), "c");
    {
        // Approximately normal (a sum of four uniforms, scaled): fast enough for 400M values.
        uint64_t state = rng();
        auto uniform = [&] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return float(state >> 40) * (1.f / 16777216.f);
        };
        std::vector<uint16_t> h(elems);
        for (void* dst : {q, k, v}) {
            for (auto& x : h)
                x = toBits((uniform() + uniform() + uniform() + uniform() - 2.f) * 1.7320508f,
                           gc::DType::BF16);
            check(cudaMemcpy(dst, h.data(), elems * 2, cudaMemcpyHostToDevice), "cp");
        }
        const std::vector<float> hc = logDecayCumsum(32, tokens, rng);
        check(cudaMemcpy(c, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice), "cp");
    }
    if (json) std::printf("{\"device\": \"wgmma_test\"}\n");
    for (int d : {64, 128})
        for (int64_t n = 1024; n <= maxN; n *= 2) {
            if ((gQuick || gProfileN) && d != 64) continue;
            if (gProfileN && n != gProfileN) continue;
            const int heads = 2048 / d;
            const int batch = static_cast<int>(std::max<int64_t>(1, 16384 / n));
            const int bh = batch * heads;
            for (const bool decay : {false, true}) {
                if (gProfileN && !decay) continue;
                gd::FlashParams p{};
                p.q = q;
                p.k = k;
                p.v = v;
                p.out = out;
                p.lse = lse;
                p.c = decay ? c : nullptr;
                p.n = n;
                p.window = 0;
                p.qRow = p.kRow = p.vRow = p.oRow = d;
                p.qHead = p.kHead = p.vHead = p.oHead = n * d;
                p.lseHead = p.cHead = n;
                p.kvGroup = 1;
                p.scaleLog2 = 1.f / std::sqrt(float(d)) * 1.4426950408889634f;
                const double flops = 4.0 * bh * double(n) * n * d / 2.0;
                const int reps = n >= 32768 ? 10 : 20;
                if (gProfileN) {
                    for (int r = 0; r < 2; ++r)
                        check(gd::launchWgmma(p, bh, d, gc::DType::BF16, nullptr));
                    check(cudaDeviceSynchronize(), "profile");
                    return;
                }
                const double wg = medianMs(
                    [&] { check(gd::launchWgmma(p, bh, d, gc::DType::BF16, nullptr)); }, 3, reps);
                const double mm =
                    gQuick
                        ? wg
                        : medianMs(
                              [&] {
                                  check(gd::launchTensorCore(p, bh, d, gc::DType::BF16, nullptr));
                              },
                              3, reps);
                const char* kind = decay ? "fox" : "transformer";
                if (json) {
                    std::printf(
                        "{\"kernel\": \"gatescope_%s\", \"d\": %d, \"n\": %lld, \"batch\": %d, "
                        "\"heads\": %d, \"ms\": %.4f, \"tflops\": %.1f}\n",
                        kind, d, (long long)n, batch, heads, wg, flops / wg / 1e9);
                    std::printf(
                        "{\"kernel\": \"mma_%s\", \"d\": %d, \"n\": %lld, \"ms\": %.4f, "
                        "\"tflops\": %.1f}\n",
                        kind, d, (long long)n, mm, flops / mm / 1e9);
                } else {
                    std::printf(
                        "bench d=%d n=%lld %-11s wgmma %6.1f TFLOP/s  mma %6.1f TFLOP/s  (%.2fx)\n",
                        d, (long long)n, kind, flops / wg / 1e9, flops / mm / 1e9, mm / wg);
                }
                std::fflush(stdout);
            }
        }
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(out);
    cudaFree(lse);
    cudaFree(c);
}

}  // namespace

int main(int argc, char** argv) {
    int64_t maxN = 0;
    bool testsOnly = false, benchOnly = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-n") && i + 1 < argc) maxN = std::atoll(argv[++i]);
        if (!std::strcmp(argv[i], "--tests")) testsOnly = true;
        if (!std::strcmp(argv[i], "--bench")) benchOnly = true;
        if (!std::strcmp(argv[i], "--quick")) gQuick = benchOnly = true;
        if (!std::strcmp(argv[i], "--profile") && i + 1 < argc) gProfileN = std::atoll(argv[++i]);
    }
    if (gProfileN > 0) {
        bench(gProfileN, false);
        return 0;
    }
    if (maxN > 0) {
        bench(maxN, true);
        return 0;
    }
    int fails = 0;
    if (!benchOnly) {
        std::mt19937 rng(1234);
        using gc::DType;
        std::vector<Case> cases;
        for (int d : {64, 128})
            for (DType dt : {DType::BF16, DType::F16})
                for (bool decay : {false, true})
                    for (int n : {1, 63, 100, 1000, 4097})
                        cases.push_back({n, d, 2, 1, decay, 0, dt, false});
        for (int d : {64, 128}) {
            cases.push_back({16384 + 7, d, 2, 1, true, 0, DType::BF16, false});
            cases.push_back({16384 + 7, d, 2, 1, false, 0, DType::BF16, false});
            cases.push_back({1000, d, 4, 2, true, 0, DType::BF16, true});  // GQA, strided
            cases.push_back({4097, d, 4, 4, true, 0, DType::F16, true});
            for (int64_t w : {1, 37, 128, 300, 1000})
                for (bool decay : {false, true})
                    cases.push_back({4097, d, 2, 1, decay, w, DType::BF16, false});
            cases.push_back({1000, d, 4, 2, true, 200, DType::BF16, true});
            // Around the d = 64 ping-pong threshold (4096 keys), windows in it too.
            cases.push_back({4095, d, 2, 1, true, 0, DType::BF16, false});
            cases.push_back({4096, d, 2, 1, true, 0, DType::BF16, false});
            cases.push_back({4097, d, 2, 1, false, 0, DType::F16, false});
            cases.push_back({4096, d, 2, 1, true, 129, DType::BF16, false});
            cases.push_back({2047, d, 2, 1, true, 0, DType::BF16, false});
        }
        for (const Case& cs : cases)
            fails += !runCase(cs, rng);
        std::printf("tests: %d failed of %zu\n", fails, cases.size());
    }
    if (!testsOnly) bench(65536, false);
    return fails ? 1 : 0;
}
