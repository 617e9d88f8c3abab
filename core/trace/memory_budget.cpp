#include "core/trace/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "data/common/input_file.h"

namespace gatescope::core {

namespace {

constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();

// "MemAvailable:   123456 kB" -> bytes.
uint64_t memAvailable() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit) {
        if (key == "MemAvailable:") return kb * 1024;
    }
    return kUnknown;
}

uint64_t readNumber(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.empty() || text == "max") return kUnknown;
    try {
        return std::stoull(text);
    } catch (...) {
        return kUnknown;
    }
}

uint64_t cgroupLeft() {
    const uint64_t limit = readNumber("/sys/fs/cgroup/memory.max");
    if (limit == kUnknown) return kUnknown;
    const uint64_t used = readNumber("/sys/fs/cgroup/memory.current");
    return used == kUnknown || used >= limit ? (used == kUnknown ? limit : 0) : limit - used;
}

// What is left under an rlimit, given the pages already counted against it.
uint64_t rlimitLeft(int resource, uint64_t usedBytes) {
    struct rlimit limit {};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnknown;
    const auto cap = static_cast<uint64_t>(limit.rlim_cur);
    return usedBytes >= cap ? 0 : cap - usedBytes;
}

}  // namespace

uint64_t availableMemoryBytes() {
    uint64_t best = std::min(memAvailable(), cgroupLeft());
    // /proc/self/statm: size resident shared text lib data dt, in pages.
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
    if (statm >> size >> resident >> shared >> text >> lib >> data) {
        const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
        best = std::min(best, rlimitLeft(RLIMIT_AS, size * page));
        best = std::min(best, rlimitLeft(RLIMIT_DATA, data * page));
    }
    return best;
}

uint64_t traceBytesPerToken(const ModelInfo& info) {
    const uint64_t d = std::max(info.hiddenSize, 1);
    const uint64_t qk = uint64_t(std::max(info.heads, 1)) * std::max(info.headDim, 1);
    // float32 numbers per token alive at the peak of a layer: the residual stream and norms (4d),
    // the MLP's gate/up/hidden/down (16d for the usual 4d intermediate), q, k, v, their float32
    // head-major copies, the attention output and the recorded factors (12 q-sized arrays), and
    // slack for LibTorch's temporaries (x 1.5). Plus the per-token tables: ids, targets, loss,
    // rank, entropy, offsets and token texts (256 bytes).
    return (20 * d + 12 * qk) * 4 * 3 / 2 + 256;
}

Status checkTraceMemory(int64_t tokens, const ModelInfo& info, uint64_t fixedBytes,
                        const std::filesystem::path& input) {
    const uint64_t available = availableMemoryBytes();
    if (available == kUnknown || tokens <= 0) return Ok{};
    const uint64_t perToken = traceBytesPerToken(info);
    const auto n = static_cast<uint64_t>(tokens);
    const uint64_t needed =
        n > (kUnknown - fixedBytes) / perToken ? kUnknown : n * perToken + fixedBytes;
    if (needed <= available) return Ok{};
    const uint64_t fit = available > fixedBytes ? (available - fixedBytes) / perToken : 0;
    return Error{ErrorKind::Io,
                 fmt::format("{} tokens need about {} of memory for this model ({} per token), "
                             "but about {} is available: about {} tokens fit; trace a part of "
                             "the input with --range START:END (or max_tokens in a batch recipe)",
                             tokens, data::formatBytes(needed), data::formatBytes(perToken),
                             data::formatBytes(available), fit),
                 input.string(),
                 {}};
}

Status checkTokenizeMemory(uint64_t bytes, const std::filesystem::path& input) {
    const uint64_t available = availableMemoryBytes();
    if (available == kUnknown) return Ok{};
    const uint64_t needed =
        bytes > kUnknown / kTokenizeBytesPerByte ? kUnknown : bytes * kTokenizeBytesPerByte;
    if (needed <= available) return Ok{};
    return Error{ErrorKind::Io,
                 fmt::format("a text of {} needs about {} of memory to tokenize, but about {} is "
                             "available: split the file",
                             data::formatBytes(bytes), data::formatBytes(needed),
                             data::formatBytes(available)),
                 input.string(),
                 {}};
}

}  // namespace gatescope::core
