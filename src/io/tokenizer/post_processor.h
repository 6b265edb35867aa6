#pragma once

#include "io/json.h"

#include <vector>

namespace attnviz::io {

/// What tokenizer.json's "post_processor" puts around the ids of one text: the special tokens of
/// TemplateProcessing's "single" template before and after $A (Llama 2's <s> $A). ByteLevel
/// changes no id and null adds nothing; Sequence applies its steps in turn.
struct SpecialTokenTemplate {
    std::vector<int> before;
    std::vector<int> after;
};

/// Reads the post-processor; its ids must be below `vocabSize`. Throws FormatError naming an
/// unsupported type or a template AttnViz cannot read.
SpecialTokenTemplate readPostProcessor(const JsonValue* postProcessor, int vocabSize);

} // namespace attnviz::io
