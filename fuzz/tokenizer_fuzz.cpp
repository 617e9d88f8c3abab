// libFuzzer target: a GPT-2 byte-level BPE tokenizer folder, loaded as a checkpoint's tokenizer is
// (loadTokenizer), then a text encoded and the ids decoded. One input holds several files,
// separated by the two bytes "\0\0":
//   mode byte ('j': tokenizer.json, otherwise vocab.json + merges.txt), then
//   main file \0\0 merges.txt \0\0 tokenizer_config.json \0\0 text to encode.
// Absent parts leave the file out. Seeds: fuzz/corpus/tokenizer/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/tokenizer/load_tokenizer.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    using namespace gatescope;
    if (size < 1) return 0;
    const bool tokenizerJson = data[0] == 'j';
    const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    const auto parts = fuzz::splitParts(rest, std::string_view("\0\0", 2), 4);
    for (const char* name : {"tokenizer.json", "vocab.json", "merges.txt", "tokenizer_config.json"})
        fuzz::removeScratch(name);
    fuzz::writeScratch(tokenizerJson ? "tokenizer.json" : "vocab.json", parts[0]);
    if (parts.size() > 1 && !tokenizerJson) fuzz::writeScratch("merges.txt", parts[1]);
    if (parts.size() > 2 && !parts[2].empty())
        fuzz::writeScratch("tokenizer_config.json", parts[2]);
    auto tokenizer = core::loadTokenizer(fuzz::scratchDir(), nlohmann::json::object());
    if (!tokenizer) return 0;
    const std::string_view text = parts.size() > 3 ? parts[3] : std::string_view("hello world");
    auto encoded = (*tokenizer)->encode(text);
    if (encoded) {
        auto decoded = (*tokenizer)->decodeWithOffsets(encoded->ids);
        (void)decoded;
        for (int32_t id : encoded->ids)
            (void)(*tokenizer)->tokenText(id);
    }
    (void)(*tokenizer)->tokenText(-1);
    (void)(*tokenizer)->tokenText((*tokenizer)->vocabSize());
    (void)(*tokenizer)->identity().dump();
    return 0;
}
