#include "engine/thread_count.h"

#include "engine/input_error.h"

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <string>
#include <thread>

namespace attnviz::engine {

void setThreadCount(int threads)
{
    if (threads < 0 || threads > kMaxThreads)
        throw InputError("The thread count " + std::to_string(threads) +
                         " is out of range; expected 0 (all cores) to " +
                         std::to_string(kMaxThreads) + ".");
    if (threads == 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    omp_set_num_threads(threads);
    Eigen::setNbThreads(threads);
}

} // namespace attnviz::engine
