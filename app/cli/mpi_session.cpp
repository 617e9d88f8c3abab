#include "app/cli/mpi_session.h"

#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
// The C API only: OpenMPI's header otherwise drags in its deprecated C++ bindings (not linked).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace gatescope::app {

std::unique_ptr<MpiSession> MpiSession::startIfLaunched(const core::LaunchEnvironment& launch) {
    if (!launch.launcher.starts_with("mpirun") && !launch.launcher.starts_with("mpiexec"))
        return nullptr;
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    MPI_Init(nullptr, nullptr);
    int rank = 0, worldSize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    return std::unique_ptr<MpiSession>(new MpiSession(rank, worldSize));
#else
    return std::unique_ptr<MpiSession>(new MpiSession(launch.rank, launch.size));
#endif
}

MpiSession::~MpiSession() {
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    MPI_Finalize();
#endif
}

bool MpiSession::canSynchronize() const {
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    return true;
#else
    return false;
#endif
}

void MpiSession::barrier() {
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::string MpiSession::shareLaunchId(const std::string& proposal) {
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    char buffer[128] = {};
    if (m_rank == 0) proposal.copy(buffer, sizeof buffer - 1);
    MPI_Bcast(buffer, sizeof buffer, MPI_CHAR, 0, MPI_COMM_WORLD);
    return buffer;
#else
    return proposal;
#endif
}

}  // namespace gatescope::app
