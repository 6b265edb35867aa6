#include "engine/key_value_cache.h"

namespace attnviz::engine {

bool isKeySide(AttentionStep step)
{
    const std::string_view axes = stepInfo(step).axes;
    return axes.find("key") != std::string_view::npos &&
        axes.find("query") == std::string_view::npos;
}

std::int64_t kvCacheBytes(std::int64_t tokens, std::int64_t layers, std::int64_t keyValueHeads,
                          std::int64_t keySize, std::int64_t valueSize, int bytesPerValue)
{
    return tokens * layers * keyValueHeads * (keySize + valueSize) * bytesPerValue;
}

} // namespace attnviz::engine
