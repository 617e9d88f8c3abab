#include "app/engine_module.h"

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gatescope::app {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> candidates() {
    std::vector<fs::path> out;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) out.push_back(exe.parent_path() / core::kEngineModuleFile);
    out.emplace_back(GATESCOPE_ENGINE_MODULE);
    return out;
}

Result<const core::EngineApi*> openModule() {
    std::string tried;
    for (const fs::path& file : candidates()) {
        std::error_code ec;
        if (!fs::exists(file, ec)) {
            tried += fmt::format("; {}: no such file", file.string());
            continue;
        }
        // RTLD_NOW: a symbol the executable does not provide fails here, not mid-job.
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            return Error{
                ErrorKind::Unsupported,
                fmt::format("cannot load the model engine: {}", why ? why : "dlopen failed"),
                file.string(),
                {}};
        }
        using Entry = const core::EngineApi* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, core::kEngineApiSymbol));
        const core::EngineApi* api = entry ? entry() : nullptr;
        if (api == nullptr || api->size != sizeof(core::EngineApi))
            return Error{ErrorKind::Unsupported,
                         "is not the model engine of this build of gatescope (rebuild: ninja -C "
                         "<build> gatescope)",
                         file.string(),
                         {}};
        return api;  // never closed: the process keeps LibTorch once loaded
    }
    return Error{
        ErrorKind::Unsupported,
        fmt::format("the model engine ({}) was not found{}", core::kEngineModuleFile, tried),
        {},
        {}};
}

}  // namespace

Result<const core::EngineApi*> loadEngine() {
    static const Result<const core::EngineApi*> loaded = openModule();  // thread-safe, once
    return loaded;
}

}  // namespace gatescope::app
