#include "core/tokenizer/sentencepiece_module.h"

#include <dlfcn.h>

#include <system_error>

#include <fmt/format.h>

namespace gatescope::core {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleName = "gatescope_sentencepiece.so";

Result<const GatescopeSpmApi*> loadModule() {
    const std::vector<fs::path> candidates = sentencePieceModuleCandidates();
    if (candidates.empty()) {
        return Error{ErrorKind::Unsupported,
                     "this build of gatescope has no SentencePiece module (install "
                     "libsentencepiece-dev and build again)",
                     {},
                     {}};
    }
    std::string tried;
    for (const fs::path& file : candidates) {
        std::error_code ec;
        if (!fs::exists(file, ec)) {
            tried += fmt::format("; {}: no such file", file.string());
            continue;
        }
        // A namespace of its own: the module's protobuf-lite never meets LibTorch's protobuf.
        void* handle = dlmopen(LM_ID_NEWLM, file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            tried += fmt::format("; {}: {}", file.string(), why ? why : "dlmopen failed");
            continue;
        }
        auto entry = reinterpret_cast<GatescopeSpmEntry>(dlsym(handle, GATESCOPE_SPM_ENTRY));
        const GatescopeSpmApi* api = entry ? entry(GATESCOPE_SPM_ABI_VERSION) : nullptr;
        if (api == nullptr) {
            tried += fmt::format("; {}: not a gatescope SentencePiece module of ABI version {}",
                                 file.string(), GATESCOPE_SPM_ABI_VERSION);
            dlclose(handle);
            continue;
        }
        return api;  // kept for the life of the process
    }
    return Error{ErrorKind::Unsupported,
                 fmt::format("the SentencePiece module could not be loaded{}", tried),
                 {},
                 {}};
}

}  // namespace

bool sentencePieceModuleBuilt() {
#ifdef GATESCOPE_SENTENCEPIECE_MODULE
    return true;
#else
    return false;
#endif
}

std::vector<fs::path> sentencePieceModuleCandidates() {
    std::vector<fs::path> out;
#ifdef GATESCOPE_SENTENCEPIECE_MODULE
    out.emplace_back(GATESCOPE_SENTENCEPIECE_MODULE);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back(exe.parent_path() / kModuleName);
        out.push_back(exe.parent_path().parent_path() / "lib" / kModuleName);
    }
#endif
    return out;
}

Result<const GatescopeSpmApi*> sentencePieceModule() {
    static const Result<const GatescopeSpmApi*> loaded = loadModule();  // thread-safe, once
    return loaded;
}

}  // namespace gatescope::core
