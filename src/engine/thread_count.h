#pragma once

namespace attnviz::engine {

/// Sets how many threads the engine uses for its matrix products and its loop over heads
/// (0 = as many as the machine has cores). Without OpenMP the engine runs on one thread.
void setThreadCount(int threads);
int threadCount();

} // namespace attnviz::engine
