#include "engine/thread_count.h"

#include <Eigen/Core>

#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnviz::engine {

void setThreadCount(int threads)
{
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    Eigen::setNbThreads(threads);
}

int threadCount()
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

} // namespace attnviz::engine
