#!/usr/bin/env bash
# Installs every build, test and run dependency of gatescope from Debian 12 packages, when missing.
# Runs as root, or through sudo. The Debian archive is the only source of what gatescope builds
# and runs with; tests also get the Hugging Face tokenizers as shipped on npm (the reference the
# tokenizer.json tests compare with), into .tools/npm (ignored by git), when npm is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    build-essential cmake ninja-build ccache lld pkg-config git clang-format
    libtorch-dev libopenblas0-pthread libhdf5-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
    zlib1g-dev libzstd-dev liblz4-dev libicu-dev libgtest-dev libgmock-dev libbenchmark-dev
    libisal-dev  # ISA-L igzip: the fast deflate of trace chunks (data/h5/chunk_codec.h)
    qt6-base-dev libqt6opengl6-dev qt6-svg-dev libimgui-dev libgl-dev
    openmpi-bin libopenmpi-dev
    libtomlplusplus-dev  # TOML batch recipes
    xvfb xauth openbox libgl1-mesa-dri mesa-utils python3 python3-h5py python3-numpy
    fonts-dejavu-core  # the fixed font of exported figures (widgets/figures)
    hdf5-filter-plugin  # the reference lz4 HDF5 plugin: h5py reads gatescope's lz4 traces in tests
    clang libclang-rt-14-dev  # libFuzzer and the sanitizers of the `fuzz` preset (scripts/fuzz.sh)
    libsentencepiece-dev  # tokenizer.model (SentencePiece) of Llama / Mistral / GSA checkpoints
    sentencepiece         # spm_train / spm_encode: the reference of the SentencePiece tests
    python3-dev pybind11-dev python3-pytest  # the Python module (python/) and its tests
)

# The tokenizer.json reference tests run Hugging Face's tokenizers in Node (transformers.js);
# they skip when it is absent. Idempotent: nothing is fetched when the pinned version is there.
hf_version=4.3.1
hf_prefix=.tools/npm
install_hf_tokenizers() {
    local installed=$hf_prefix/node_modules/@huggingface/transformers/package.json
    if [[ -f $installed ]] && grep -q "\"version\": \"$hf_version\"" "$installed"; then
        return 0
    fi
    if ! command -v npm >/dev/null; then
        echo "setup: no npm; the Hugging Face tokenizer reference tests will skip"
        return 0
    fi
    echo "setup: npm install @huggingface/transformers@$hf_version into $hf_prefix"
    mkdir -p "$hf_prefix"
    npm install --prefix "$hf_prefix" --no-save --no-audit --no-fund --ignore-scripts \
        --loglevel=error "@huggingface/transformers@$hf_version" >/dev/null ||
        echo "setup: npm install failed; the Hugging Face tokenizer reference tests will skip"
}

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]} == 0)); then
    echo "setup: all ${#packages[@]} dependencies present"
    install_hf_tokenizers
    exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) != 0 ]]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_hf_tokenizers
