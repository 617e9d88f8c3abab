// Trace throughput and peak memory of `gatescope trace`'s engine for a FoX (Pro) model at the
// paper's 125M size (random weights), with and without pyramids, against this machine's own
// measured GEMM throughput. Each configuration runs in a child process so its peak RSS is its own.
//
//   build/default/bench/trace_bench [--tokens 2048,8192] [--threads 0] [--workdir /tmp/gs-bench]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "core/sample/random_fox_checkpoint.h"
#include "engine/diagnostics/matmul_probe.h"
#include "engine/trace/trace_job.h"

namespace {

using namespace gatescope;

constexpr int kLayers = 12, kHidden = 768, kHeads = 12, kVocab = 50257;

/// Forward FLOPs: 2 x (weights touched per token) x N plus causal attention (QK^T and PV).
double forwardFlops(int64_t n) {
    const double inter = 256.0 * ((int(kHidden * 3.5 * 2 / 3) + 255) / 256);
    const double perLayer = 5.0 * kHidden * kHidden +
                            2.0 * kHeads * kHidden                         // q k v o ogate, gates
                            + 3.0 * kHidden * inter;                       // gate/up + down
    const double weights = kLayers * perLayer + double(kVocab) * kHidden;  // + lm_head
    const double attention = kLayers * 2.0 * 2.0 * (n * (n + 1) / 2.0) * kHidden;
    return 2.0 * weights * n + attention;
}

struct Run {
    double seconds = 0;
    double cpuSeconds = 0;  ///< user + system time of the child, all threads
    long peakRssMb = 0;
    bool ok = false;
};

Run runChild(const std::filesystem::path& model, const std::filesystem::path& text, int64_t tokens,
             bool pyramids, int threads, const std::filesystem::path& out) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        core::TraceRequest request;
        request.modelDir = model;
        request.input.path = text;
        request.input.kind = core::InputKind::Ids;
        request.input.end = tokens;
        request.out = out;
        request.threads = threads;
        request.storePyramids = pyramids;
        auto outcome = core::runTraceJob(request, {}, nullptr);
        double seconds = outcome ? outcome->seconds : -1;
        if (!outcome) std::fprintf(stderr, "%s\n", outcome.error().describe().c_str());
        (void)!write(pipefd[1], &seconds, sizeof seconds);
        _exit(outcome ? 0 : 1);
    }
    close(pipefd[1]);
    Run run;
    (void)!read(pipefd[0], &run.seconds, sizeof run.seconds);
    close(pipefd[0]);
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    run.peakRssMb = usage.ru_maxrss / 1024;
    run.cpuSeconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                     usage.ru_stime.tv_usec / 1e6;
    return run;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int64_t> sizes = {2048, 8192};
    int threads = 0;
    std::filesystem::path work = "/tmp/gatescope-trace-bench";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--workdir")) work = argv[i + 1];
        if (!std::strcmp(argv[i], "--tokens")) {
            sizes.clear();
            for (std::string s = argv[i + 1]; !s.empty();) {
                const auto comma = s.find(',');
                sizes.push_back(std::stoll(s.substr(0, comma)));
                s = comma == std::string::npos ? "" : s.substr(comma + 1);
            }
        }
    }
    const auto model = work / "fox-pro-125m-random";
    if (!std::filesystem::exists(model / "model.safetensors")) {
        core::RandomFoxSpec spec{kLayers, kHidden, kHeads, kVocab, true, true, 3.5, 7};
        if (auto st = core::writeRandomFoxCheckpoint(model, spec); !st) {
            fmt::print(stderr, "{}\n", st.error().describe());
            return 1;
        }
    }
    // GPT-2-size vocabulary, so the input is token ids (seeded, uniform over the vocabulary).
    const auto text = work / "input.ids";
    {
        std::ofstream out(text);
        std::mt19937 rng(11);
        const int64_t maxTokens = *std::max_element(sizes.begin(), sizes.end());
        for (int64_t i = 0; i < maxTokens; ++i)
            out << rng() % kVocab << ' ';
    }
    const double gemm = core::measureMatmulGflops(2048, kHidden, kHidden, threads);
    fmt::print("machine GEMM (fp32 [2048x768]x[768x768], LibTorch): {:.1f} GFLOP/s\n", gemm);
    fmt::print("{:>7} {:>9} {:>10} {:>10} {:>10} {:>9} {:>12}\n", "tokens", "pyramids", "seconds",
               "cpu s", "tokens/s", "peak MB", "GEMM frac.");
    for (int64_t n : sizes) {
        for (bool pyramids : {false, true}) {
            auto run = runChild(model, text, n, pyramids, threads, work / "bench.h5");
            if (!run.ok) {
                fmt::print("{:>7} {:>9} failed\n", n, pyramids ? "yes" : "no");
                continue;
            }
            const double flops = forwardFlops(n);
            fmt::print("{:>7} {:>9} {:>10.2f} {:>10.2f} {:>10.0f} {:>9} {:>11.1f}%\n", n,
                       pyramids ? "yes" : "no", run.seconds, run.cpuSeconds, n / run.seconds,
                       run.peakRssMb, 100.0 * flops / run.seconds / 1e9 / gemm);
        }
    }
    return 0;
}
