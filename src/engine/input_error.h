#pragma once

#include <stdexcept>
#include <string>

namespace attnviz::engine {

/// Raised when the caller hands the engine something it cannot compute with: shapes that do not
/// agree, an impossible head split, a mask of the wrong size. The message is one sentence for a
/// person, naming the offending tensor as the case files and docs name it (`w_q`, `valid_lens`)
/// and saying what was expected.
class InputError : public std::invalid_argument {
public:
    explicit InputError(const std::string& message)
        : std::invalid_argument(message)
    {
    }
};

} // namespace attnviz::engine
