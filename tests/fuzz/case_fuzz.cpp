// io::loadAttentionCase on a parsed safetensors file, as `attnviz-cli mha` reads a case. A case the
// loader accepts goes on to the engine's MultiHeadAttention, whose constructor and forward() check
// what the loader leaves to them (sizes that disagree between tensors); the forward pass runs
// only when its work and memory are small, so that a few kilobytes cannot ask for gigabytes.
#include "fuzz_support.h"

#include "engine/multi_head_attention.h"
#include "engine/thread_count.h"
#include "io/attention_case.h"

namespace attnviz::fuzz {

void fuzzCase(std::string_view input)
{
    static const bool singleThread = [] {
        engine::setThreadCount(1);
        return true;
    }();
    (void)singleThread;
    acceptingDocumentedRejections([&] {
        const io::SafetensorsFile file = io::SafetensorsFile::parse(std::string(input));
        io::AttentionCase c = io::loadAttentionCase(file);
        require(c.description.queryHeads >= 1 && c.description.keyValueHeads >= 1,
                "a case with no heads was accepted");
        const engine::MultiHeadAttention module(c.weights, c.description);
        const double batch = static_cast<double>(c.query.dim(0));
        const double queries = static_cast<double>(c.query.dim(1));
        const double keys = static_cast<double>(c.key.dim(1));
        const double projected = static_cast<double>(c.weights.wQ.rows() + c.weights.wK.rows() +
                                                     c.weights.wV.rows() + c.weights.wO.rows());
        const double inputs = static_cast<double>(c.query.dim(2) + c.key.dim(2) + c.value.dim(2));
        const double scores = batch * c.description.queryHeads * queries * keys;
        const double products = batch * (queries + keys) * projected * inputs;
        if (scores > 1 << 16 || products > 1 << 22)
            return;
        engine::AttentionOptions options;
        options.positions = c.positions;
        const engine::AttentionTrace trace =
            module.forward(c.query, c.key, c.value, c.mask, options);
        require(trace.output.dim(0) == c.query.dim(0) && trace.output.dim(1) == c.query.dim(1) &&
                    trace.output.dim(2) == c.weights.wO.rows(),
                "the output is not [batch, query, Po]");
    });
}

} // namespace attnviz::fuzz

ATTNVIZ_FUZZ_ENTRY_POINT(attnviz::fuzz::fuzzCase)
