// libFuzzer target: the bytes of a .npy file of token ids (magic, version, header dict, data), as
// `gatescope trace --input ids.npy` parses them. Seeds: fuzz/corpus/npy/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/input/npy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)gatescope::core::parseNpyIds(bytes, "fuzz.npy");
    return 0;
}
