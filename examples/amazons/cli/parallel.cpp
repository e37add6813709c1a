// The `amazons` command under mpirun: MPI is started only when the process was launched by an
// MPI launcher (so that a plain `amazons match` needs no MPI runtime), and only where the
// build has MPI (GSEARCH_HAVE_MPI).
#include <cstdlib>

#include "cli/command.hpp"

#ifdef GSEARCH_HAVE_MPI
#include "gsearch/arena/mpi.hpp"
#endif

namespace amazons::cli {
namespace {
int g_rank = 0, g_size = 1;
[[maybe_unused]] bool g_started = false;
}  // namespace

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

MpiSession::MpiSession([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#ifdef GSEARCH_HAVE_MPI
  if (!launched_by_mpirun()) return;
  int provided = 0;  // only the main thread calls MPI; agents and matches may start threads
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  g_started = true;
  g_rank = gsearch::arena::mpi_rank();
  g_size = gsearch::arena::mpi_size();
#endif
}

MpiSession::~MpiSession() {
#ifdef GSEARCH_HAVE_MPI
  if (g_started) MPI_Finalize();
#endif
}

int world_rank() { return g_rank; }
int world_size() { return g_size; }

void end_mpi_job([[maybe_unused]] int code) {
#ifdef GSEARCH_HAVE_MPI
  if (g_started && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
}

void broadcast_from_root([[maybe_unused]] std::vector<char>& bytes) {
#ifdef GSEARCH_HAVE_MPI
  if (g_started && g_size > 1)
    MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
}

}  // namespace amazons::cli
