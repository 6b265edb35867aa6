#pragma once

namespace attnviz::engine {

/// The most threads the engine accepts: far more than a desktop has cores, and few enough that
/// OpenMP's thread pool cannot exhaust the machine (100000 threads crashed inside libgomp).
inline constexpr int kMaxThreads = 256;

/// Sets how many threads the engine uses for its matrix products and its loop over heads
/// (0 = as many as the machine has cores). Throws InputError outside 0 … kMaxThreads.
void setThreadCount(int threads);

} // namespace attnviz::engine
