#!/usr/bin/env bash
# Installs every build, test and run dependency of gatescope from Debian 12 packages, when missing.
# Runs as root, or through sudo. Nothing is downloaded from anywhere but the Debian archive.
set -euo pipefail

packages=(
    build-essential cmake ninja-build ccache lld pkg-config git clang-format
    libtorch-dev libopenblas0-pthread libhdf5-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
    zlib1g-dev libzstd-dev liblz4-dev libicu-dev libgtest-dev libgmock-dev libbenchmark-dev
    qt6-base-dev libqt6opengl6-dev qt6-svg-dev libimgui-dev libgl-dev
    openmpi-bin libopenmpi-dev
    libtomlplusplus-dev  # TOML batch recipes
    xvfb xauth libgl1-mesa-dri mesa-utils python3 python3-h5py python3-numpy
    fonts-dejavu-core  # the fixed font of exported figures (widgets/figures)
    hdf5-filter-plugin  # the reference lz4 HDF5 plugin: h5py reads gatescope's lz4 traces in tests
    clang libclang-rt-14-dev  # libFuzzer and the sanitizers of the `fuzz` preset (scripts/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} dependencies present"
    exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) != 0 ]]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
