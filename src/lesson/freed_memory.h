#pragma once

namespace attnviz::lesson {

/// Asks the C library to serve large allocations from the heap and to keep up to 1 GiB of what is
/// freed for the next ones, rather than map each anew and give it straight back. A pass over a
/// model that streams its layers allocates and frees a quarter of a GB a layer; mapped afresh,
/// every page is faulted in and zeroed again by the kernel, which took 2.4 s of a 5.2 s trace of
/// the 1B Llama on one token. Called once, first thing, by the app and the CLI.
void keepFreedMemoryForReuse();

} // namespace attnviz::lesson
