#!/usr/bin/env bash
# On the GPU machine (../shared/design/DEVICE.md): configures the headless project (no GUI) in
# BUILD against the machine's PyTorch LibTorch (CUDA), once. Sourced by gpu-test.sh and
# gpu-train-samples.sh. Usage: scripts/gpu-configure.sh BUILD LOGS [FIXTURES]
# FMT_HEADER_ONLY: PyTorch's include folder carries its own fmt (v12) headers, which shadow the
# system's fmt 9 in core/ (LibTorch's include dirs come first there); header-only fmt keeps every
# translation unit self-contained whichever headers it sees. OMPI_SKIP_MPICXX: Open MPI's
# deprecated C++ bindings (pulled in by mpi.h) are not in the machine's libmpi.
set -uo pipefail
build=$1
logs=$2
fixtures=${3:-}
export PATH=/usr/local/cuda/bin:$PATH TORCH_CUDA_ARCH_LIST=9.0
# ISA-L for the trace's deflate, carried as build/isal (scripts/gpu-carry-isal.sh): the machine
# has no libisal and cannot install it.
if [[ -f build/isal/lib/pkgconfig/libisal.pc ]]; then
    export PKG_CONFIG_PATH=$PWD/build/isal/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
fi
# /opt/gcc's g++ (first on PATH there) links its libstdc++ statically, while PyTorch's LibTorch
# uses the system's shared libstdc++.so.6: two C++ runtimes in one process made every thrown
# exception (and so most engine_tests) crash. Linking the shared one first makes it the only one,
# in the executables and in the modules (libgatescope_engine.so, which the executable loads).
stdcxx=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 .*x86-64/{print $NF; exit}')
if [[ -n $stdcxx && -f $build/build.ninja ]] && ! grep -q "MODULE_LINKER_FLAGS.*$stdcxx" "$build/CMakeCache.txt"; then
    rm -f "$build/build.ninja"  # configured before this fix: configure again (a relink only)
fi
if [[ ! -f $build/build.ninja ]]; then
    torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGATESCOPE_GUI=OFF \
        -DGATESCOPE_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$torch_prefix" \
        ${fixtures:+-DGATESCOPE_FIXTURES_DIR="$fixtures"} \
        ${stdcxx:+-DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed $stdcxx -Wl,--as-needed"} \
        ${stdcxx:+-DCMAKE_MODULE_LINKER_FLAGS="-Wl,--no-as-needed $stdcxx -Wl,--as-needed"} \
        ${stdcxx:+-DCMAKE_SHARED_LINKER_FLAGS="-Wl,--no-as-needed $stdcxx -Wl,--as-needed"} \
        -DCMAKE_CXX_FLAGS="-DFMT_HEADER_ONLY=1 -DOMPI_SKIP_MPICXX=1" >"$logs/configure.log" 2>&1 ||
        { tail -40 "$logs/configure.log"; exit 1; }
fi
