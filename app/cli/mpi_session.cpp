#include "app/cli/mpi_session.h"

#include <cstdlib>
#include <string>

#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
// The C API only: OpenMPI's header otherwise drags in its deprecated C++ bindings (not linked).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace gatescope::app {

namespace {

int envInt(const char* a, const char* b) {
    for (const char* name : {a, b})
        if (const char* v = std::getenv(name)) return std::atoi(v);
    return -1;
}

}  // namespace

std::unique_ptr<MpiSession> MpiSession::startIfLaunched() {
    const int size = envInt("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
    if (size < 1) return nullptr;
#if defined(GATESCOPE_WITH_MPI) && GATESCOPE_WITH_MPI
    MPI_Init(nullptr, nullptr);
    int rank = 0, worldSize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    return std::unique_ptr<MpiSession>(new MpiSession(rank, worldSize));
#else
    const int rank = envInt("OMPI_COMM_WORLD_RANK", "PMI_RANK");
    return std::unique_ptr<MpiSession>(new MpiSession(rank < 0 ? 0 : rank, size));
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
