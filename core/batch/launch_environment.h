// Where this process sits in a parallel launch, read from the variables launchers set: its rank
// among all processes, its local rank on this host (which GPU it takes), and an id shared by every
// process of one launch (so claims of a killed launch are not mistaken for live ones). And the
// GPU a rank traces on. Pure functions of the environment: no MPI and no CUDA calls here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "data/common/result.h"

namespace gatescope::core {

struct LaunchEnvironment {
    std::string launcher;  ///< "mpirun (Open MPI)", "srun (Slurm)", "mpiexec (PMI)", "" = none
    int rank = 0, size = 1;
    int localRank = 0;     ///< among the processes of this host: picks the GPU
    std::string launchId;  ///< the same in every process of one launch; "" when unknown
};

/// getenv-like: the value of a variable, or null.
using EnvLookup = std::function<const char*(const char*)>;

/// Reads Open MPI's OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK} and job id (OMPI_MCA_ess_base_jobid or
/// PMIX_NAMESPACE), Slurm's SLURM_{PROCID,NTASKS,LOCALID} and SLURM_JOB_ID.SLURM_STEP_ID, or the
/// PMI variables of MPICH's Hydra (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, PMI_KVSNAME), in that
/// order. Without any, a single process (rank 0 of 1). Malformed numbers count as absent.
LaunchEnvironment readLaunchEnvironment(const EnvLookup& env);

/// The same, from this process's environment.
LaunchEnvironment readLaunchEnvironment();

/// The device a rank traces on. `requested` is the recipe's or the command line's device:
/// "cpu" and "cuda:N" are kept; "cuda" becomes "cuda:K" with K = devices[localRank %
/// devices.size()] when the recipe lists `devices`, else localRank % visibleGpus (the launcher may
/// have narrowed CUDA_VISIBLE_DEVICES to one GPU per rank: then K = 0). With no GPU visible, "cuda"
/// is returned as is, for the trace to fail with checkDevice's explanation. Errors: a listed device
/// that is not visible (Usage, naming the recipe key `devices`), `devices` with a CPU run.
Result<std::string> assignDevice(const std::string& requested, const std::vector<int>& devices,
                                 int localRank, int visibleGpus);

}  // namespace gatescope::core
