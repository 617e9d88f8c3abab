#!/usr/bin/env bash
# On the GPU machine: evidence for the engine_tests crash (docs/gpu.md: two C++ runtimes). The
# NEEDED entries of engine_tests and of the CLI, who loads Open MPI, the HDF5 include folders of the
# build, whether the binaries carry their own (static) libstdc++; then one CPU-only test under the
# crash backtrace aid.
# Usage: scripts/gpu-crash-diag.sh BUILD
build=${1:-build/g}
core=$build/tests/engine_tests
echo "== NEEDED of engine_tests"; readelf -d "$core" | grep NEEDED | awk '{print $5}' | paste -sd' '
echo "== NEEDED of gatescope"; readelf -d "$build/app/gatescope" | grep NEEDED | awk '{print $5}' | paste -sd' '
echo "== libraries of engine_tests that need libmpi"
for l in $(ldd "$core" | awk '/=>/{print $3}'); do
    readelf -d "$l" 2>/dev/null | grep -q 'libmpi' && echo "$l"
done
echo "== MPI symbols engine_tests references"; nm -D --undefined-only "$core" | grep -iE "mpi|ompi" | head
echo "== HDF5 include dirs in the build"; grep -ohE "hdf5/(serial|openmpi|mpich)[^ ]*" "$build/build.ninja" | sort | uniq -c
grep -h "H5_HAVE_PARALLEL" /usr/include/hdf5/*/H5pubconf.h /usr/include/H5pubconf.h 2>/dev/null | head -4
ls -l /usr/include/hdf5.h /etc/alternatives/hdf5* 2>/dev/null | head
echo "== libstdc++: the compiler's, and C++ runtime symbols the executable defines and exports"
"${CXX:-g++}" --version | head -1; ls /opt/gcc/lib64/libstdc++* /opt/gcc/lib/libstdc++* 2>/dev/null
nm -D --defined-only "$core" | grep -cE ' (T|W|V|u) (_ZNSt|_ZSt|__cxa_|__gxx_)'
echo "== one CPU test, GATESCOPE_CRASH_BACKTRACE=1"
GATESCOPE_CRASH_BACKTRACE=1 "$core" --gtest_filter='PowerErrors.OddDegreeIsRefused' 2>&1 | tail -6
echo "== experiment: engine_tests relinked with the system's shared libstdc++ first in the link"
link=$(ninja -C "$build" -t commands tests/engine_tests | tail -1)
link=${link/ -o tests\/engine_tests / -o tests\/engine_tests_relinked }
link="${link%% *} -Wl,--no-as-needed -lstdc++ -Wl,--as-needed ${link#* }"
(cd "$build" && eval "$link") && {
    readelf -d "$build/tests/engine_tests_relinked" | grep NEEDED | awk '{print $5}' | paste -sd' '
    "$build/tests/engine_tests_relinked" --gtest_filter='LossCurves.*:CheckpointOpen.*' \
        >/tmp/relinked.log 2>&1
    echo "exit $?"
    tail -3 /tmp/relinked.log
}
