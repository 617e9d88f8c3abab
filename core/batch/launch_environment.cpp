#include "core/batch/launch_environment.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace gatescope::core {

namespace {

std::optional<int> number(const EnvLookup& env, const char* name) {
    const char* text = env(name);
    if (!text || !*text) return std::nullopt;
    const std::string_view view(text);
    int value = 0;
    const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (ec != std::errc() || end != view.data() + view.size() || value < 0) return std::nullopt;
    return value;
}

std::string text(const EnvLookup& env, const char* name) {
    const char* value = env(name);
    return value ? value : "";
}

struct LauncherVariables {
    const char* launcher;
    const char *rank, *size, *localRank;
};

}  // namespace

LaunchEnvironment readLaunchEnvironment(const EnvLookup& env) {
    static const LauncherVariables kLaunchers[] = {
        {"mpirun (Open MPI)", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
         "OMPI_COMM_WORLD_LOCAL_RANK"},
        {"srun (Slurm)", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
        {"mpiexec (PMI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    };
    LaunchEnvironment out;
    for (const auto& l : kLaunchers) {
        const auto rank = number(env, l.rank), size = number(env, l.size);
        if (!rank || !size || *size < 1 || *rank >= *size) continue;
        out.launcher = l.launcher;
        out.rank = *rank;
        out.size = *size;
        out.localRank = number(env, l.localRank).value_or(0);
        if (out.launcher.starts_with("mpirun")) {
            out.launchId = text(env, "OMPI_MCA_ess_base_jobid");
            if (out.launchId.empty()) out.launchId = text(env, "PMIX_NAMESPACE");
        } else if (out.launcher.starts_with("srun")) {
            const auto job = text(env, "SLURM_JOB_ID");
            if (!job.empty()) out.launchId = job + "." + text(env, "SLURM_STEP_ID");
        } else {
            out.launchId = text(env, "PMI_KVSNAME");
        }
        return out;
    }
    return out;
}

LaunchEnvironment readLaunchEnvironment() {
    return readLaunchEnvironment([](const char* name) { return std::getenv(name); });
}

Result<std::string> assignDevice(const std::string& requested, const std::vector<int>& devices,
                                 int localRank, int visibleGpus) {
    if (requested != "cuda") {
        if (!devices.empty() && requested == "cpu")
            return Error{ErrorKind::Usage,
                         "the recipe lists GPU `devices` but traces on the CPU: set trace.device "
                         "to \"cuda\" (or drop `devices`)",
                         {},
                         "devices"};
        return requested;
    }
    if (!devices.empty()) {
        for (int d : devices)
            if (d < 0 || (visibleGpus > 0 && d >= visibleGpus))
                return Error{ErrorKind::Usage,
                             fmt::format("GPU {} is not visible here ({} visible: 0..{})", d,
                                         visibleGpus, visibleGpus - 1),
                             {},
                             "devices"};
        if (visibleGpus == 0) return requested;
        return fmt::format("cuda:{}", devices[localRank % devices.size()]);
    }
    if (visibleGpus == 0) return requested;
    return fmt::format("cuda:{}", localRank % visibleGpus);
}

}  // namespace gatescope::core
