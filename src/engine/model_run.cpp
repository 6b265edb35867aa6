#include "engine/model_run.h"

#include "engine/input_error.h"

namespace attnviz::engine {

ModelRun runModelOnText(const TransformerModel& model, const std::string& text,
                        const std::optional<std::string>& target, int generate)
{
    const ModelConfig& c = model.config();
    const Vocabulary& vocab = model.vocabulary();
    ModelRun run;
    const std::vector<int> ids = vocab.encode(text, c.tokenizer);
    switch (c.architecture) {
    case Architecture::EncoderOnly:
        if (target)
            throw InputError("An encoder-only model reads only the text; it has no decoder for a target.");
        run.trace = std::make_shared<ModelTrace>(model.forward(ids, {}));
        break;
    case Architecture::EncoderDecoder: {
        std::vector<int> decoderInput{*vocab.id(*c.bosToken)};
        if (target) {
            const std::vector<int> t = vocab.encode(*target, c.tokenizer);
            decoderInput.insert(decoderInput.end(), t.begin(), t.end());
        } else {
            run.decoding = decodeGreedily(model, ids, decoderInput, c.maxLength);
            const std::vector<int> out = generatedIds(model, run.decoding);
            run.generated = vocab.decode(out, c.tokenizer);
            decoderInput.insert(decoderInput.end(), out.begin(), out.end());
            if (static_cast<int>(decoderInput.size()) > c.maxLength)
                decoderInput.resize(static_cast<std::size_t>(c.maxLength));
        }
        run.trace = std::make_shared<ModelTrace>(model.forward(ids, decoderInput));
        break;
    }
    case Architecture::DecoderOnly: {
        if (target)
            throw InputError("A decoder-only model reads only the text; give the whole sequence as the text.");
        std::vector<int> input = ids;
        if (generate > 0) {
            run.decoding = decodeGreedily(model, {}, ids, generate);
            const std::vector<int> out = generatedIds(model, run.decoding);
            run.generated = vocab.decode(out, c.tokenizer);
            input.insert(input.end(), out.begin(), out.end());
            if (static_cast<int>(input.size()) > c.maxLength)
                input.resize(static_cast<std::size_t>(c.maxLength));
        }
        run.trace = std::make_shared<ModelTrace>(model.forward({}, input));
        break;
    }
    }
    return run;
}

} // namespace attnviz::engine
