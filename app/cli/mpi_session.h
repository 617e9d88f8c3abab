// When gatescope runs under mpirun (OpenMPI, or any launcher that sets PMI_* variables), the
// rank and size of this process, and a barrier. Built with MPI (GATESCOPE_WITH_MPI), it is a real
// MPI session (MPI_Init ... MPI_Finalize); without, ranks come from the launcher's environment
// (core::readLaunchEnvironment) and there is no barrier.
#pragma once

#include <memory>
#include <string>

#include "core/batch/launch_environment.h"

namespace gatescope::app {

class MpiSession {
public:
    /// A session when `launch` says an MPI launcher (mpirun, mpiexec) started the process, else
    /// null (srun and single processes have no MPI session).
    static std::unique_ptr<MpiSession> startIfLaunched(const core::LaunchEnvironment& launch);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    /// Whether barrier() really waits for every rank (built with MPI).
    bool canSynchronize() const;
    /// Waits for every rank (a no-op without MPI).
    void barrier();
    /// Rank 0's `proposal`, in every rank (built with MPI); else `proposal` itself. Collective:
    /// every rank calls it.
    std::string shareLaunchId(const std::string& proposal);

private:
    MpiSession(int rank, int size) : m_rank(rank), m_size(size) {}
    int m_rank = 0, m_size = 1;
};

}  // namespace gatescope::app
