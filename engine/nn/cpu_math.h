// Private to core/: readying LibTorch's CPU math before a forward, a training run or a probe.
#pragma once

namespace gatescope::core {

/// Sets LibTorch's intra-op thread count (`threads` > 0; 0 keeps its default), then, once per
/// process, calls every float unary op that LibTorch routes to MKL's vector math (VML) on one
/// element, in float32 and float64, from this thread.
///
/// Why: oneMKL 2024.2 (the MKL inside PyTorch 2.10/2.11 wheels, so the GPU machine's LibTorch)
/// picks each VML function's kernel on its first call. When that first call comes from several
/// intra-op workers at once (any op on 2048 or more elements), one worker can run a
/// low-accuracy kernel for its whole chunk (pytorch/pytorch#188792). On the H100 machine that
/// was the GSA fixture's first exp (write = 1 - alpha): one 2048-element block off by about
/// 1e-4 in 9 of 98 CPU traces, enough to fail the GPU-vs-CPU trace test. A serial first call
/// settles the choice. Builds without MKL (Debian's LibTorch) just run the ops.
///
/// Thread-safe; the warm-up runs once however many threads call this. Errors: none expected; a
/// LibTorch exception (c10::Error) would propagate.
void prepareCpuMath(int threads);

}  // namespace gatescope::core
