#include "engine/key_value_cache.h"

namespace attnviz::engine {

std::int64_t kvCacheBytes(std::int64_t tokens, std::int64_t layers, std::int64_t keyValueHeads,
                          std::int64_t keySize, std::int64_t valueSize, int bytesPerValue)
{
    return tokens * layers * keyValueHeads * (keySize + valueSize) * bytesPerValue;
}

} // namespace attnviz::engine
