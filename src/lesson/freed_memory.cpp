#include "lesson/freed_memory.h"

#include <malloc.h>

namespace attnviz::lesson {

void keepFreedMemoryForReuse()
{
    constexpr int kGiB = 1 << 30;
    // Both are hints: where the C library ignores them, allocation works as before.
    ::mallopt(M_MMAP_THRESHOLD, kGiB);
    ::mallopt(M_TRIM_THRESHOLD, kGiB);
}

} // namespace attnviz::lesson
