#pragma once

#include <stdexcept>

namespace attnviz::io {

/// A model folder that cannot be used; the message is one sentence naming the file, the field or
/// tensor, what was expected and what was found.
class ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace attnviz::io
