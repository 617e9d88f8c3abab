// libFuzzer target: a whole safetensors file held in memory (8-byte header length, JSON header,
// data), as SafetensorsFile::open sees it after mapping, then every tensor converted as a model
// loader would. Seeds: fuzz/corpus/safetensors_header/.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/checkpoint/safetensors_file.h"
#include "core/checkpoint/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    using namespace gatescope::core;
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto parsed = parseSafetensorsBytes(bytes, "fuzz.safetensors");
    if (!parsed) return 0;
    for (const auto& [name, tensor] : parsed->tensors) {
        (void)tensor.numel();
        (void)formatShape(tensor.shape);
        if (isInteger(tensor.dtype))
            (void)toInt64(tensor);
        else
            (void)toFloat32(tensor);
    }
    return 0;
}
