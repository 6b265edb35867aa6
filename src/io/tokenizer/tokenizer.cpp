#include "io/tokenizer/tokenizer.h"

namespace attnviz::io {

std::vector<std::string> Tokenizer::tokens(const std::vector<int>& ids) const
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const int id : ids)
        out.push_back(token(id));
    return out;
}

std::vector<std::string> Tokenizer::displayTokens(const std::vector<int>& ids) const
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (const int id : ids)
        out.push_back(displayToken(id));
    return out;
}

} // namespace attnviz::io
