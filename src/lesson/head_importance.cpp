#include "lesson/head_importance.h"

#include "engine/greedy_decoder.h"
#include "engine/input_error.h"
#include "io/input_file.h"
#include "io/safetensors.h"
#include "lesson/memory_budget.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnviz::lesson {
namespace {

// A held-out file is text for people to read; a few megabytes is already a very long one.
constexpr std::uint64_t kMaxHeldOutBytes = 16ull << 20;

// What one forward pass keeps for scoring: no intermediates, every position's logits.
engine::CapturePolicy scoringPolicy()
{
    engine::CapturePolicy policy;
    policy.attention = engine::AttentionKeep();
    policy.layerTensors = false;
    policy.allLogits = true;
    return policy;
}

// One forward pass's worth of input, with what its scoring compares against.
struct Example {
    engine::ModelInput input;
    std::vector<int> targets; ///< the token each decoder position should predict (Loss, Exact)
};

// log softmax(row)[target], computed stably.
double logProbability(const float* row, std::int64_t vocab, int target)
{
    const float top = *std::max_element(row, row + vocab);
    double sum = 0;
    for (std::int64_t v = 0; v < vocab; ++v)
        sum += std::exp(static_cast<double>(row[v] - top));
    return static_cast<double>(row[target] - top) - std::log(sum);
}

class Scorer {
public:
    Scorer(const io::LoadedModel& loaded, const EvaluationSet& data,
           std::optional<std::uint64_t> maxMemory)
        : m_model(*loaded.model)
        , m_config(loaded.model->config())
    {
        const io::Tokenizer& tokenizer = *loaded.tokenizer;
        const auto& c = m_config;
        if (c.architecture == engine::Architecture::EncoderOnly)
            m_metric = ImportanceMetric::OutputChange;
        else if (c.architecture == engine::Architecture::EncoderDecoder && !data.answers.empty())
            m_metric = ImportanceMetric::ExactMatch;
        else
            m_metric = ImportanceMetric::Loss;
        for (std::size_t i = 0; i < data.inputs.size(); ++i) {
            std::vector<int> ids;
            try {
                ids = tokenizer.encode(data.inputs[i]);
            } catch (const engine::InputError& e) {
                throw engine::InputError("Example " + std::to_string(i + 1) + ": " + e.what());
            }
            switch (c.architecture) {
            case engine::Architecture::EncoderOnly:
                addWindows(ids, false);
                break;
            case engine::Architecture::DecoderOnly:
                addWindows(ids, true);
                break;
            case engine::Architecture::EncoderDecoder: {
                checkLength(ids, i);
                std::vector<int> answer;
                if (data.answers.empty()) {
                    // No answer known: the intact model's own greedy output is the one to keep.
                    answer = engine::generatedIds(
                        m_model,
                        engine::decodeGreedily(m_model, ids, {*c.bosTokenId}, c.maxLength,
                                               tokenizer.size(), scoringPolicy()));
                } else {
                    try {
                        answer = tokenizer.encode(data.answers[i]);
                    } catch (const engine::InputError& e) {
                        throw engine::InputError("Example " + std::to_string(i + 1) +
                                                 "'s answer: " + e.what());
                    }
                }
                if (answer.size() + 1 > static_cast<std::size_t>(c.maxLength))
                    throw engine::InputError("Example " + std::to_string(i + 1) + "'s answer has " +
                                             std::to_string(answer.size()) +
                                             " tokens; after its start token this "
                                             "model's decoder takes at most " +
                                             std::to_string(c.maxLength - 1) + ".");
                Example e;
                e.input.source = ids;
                e.input.target = {*c.bosTokenId};
                e.input.target.insert(e.input.target.end(), answer.begin(), answer.end());
                e.targets = answer;
                if (c.eosTokenId)
                    e.targets.push_back(*c.eosTokenId);
                else
                    e.input.target.pop_back();
                m_examples.push_back(std::move(e));
                break;
            }
            }
        }
        if (m_examples.empty())
            throw engine::InputError("There is nothing to measure the heads on: the examples are "
                                     "empty or too short to predict a next token.");
        std::int64_t longest = 0;
        for (const Example& e : m_examples)
            longest = std::max<std::int64_t>(
                longest,
                static_cast<std::int64_t>(std::max(e.input.source.size(), e.input.target.size())));
        MemoryBudget::forThisMachine(maxMemory).check(
            modelWeightBytes(m_model) + modelRunBytes(c, longest, scoringPolicy()),
            "Measuring the heads on examples of " + std::to_string(longest) + " tokens");
    }

    ImportanceMetric metric() const { return m_metric; }
    int passes() const { return static_cast<int>(m_examples.size()); }

    /// The metric over every example with `ablation`, calling `onePass` after each.
    double score(const engine::Ablation& ablation, const std::function<void()>& onePass)
    {
        const bool intact = ablation.empty();
        double total = 0;
        std::size_t count = 0;
        for (std::size_t i = 0; i < m_examples.size(); ++i) {
            const Example& e = m_examples[i];
            const engine::ModelTrace t = m_model.forward(e.input, scoringPolicy(), ablation);
            switch (m_metric) {
            case ImportanceMetric::OutputChange: {
                const engine::Tensor& h = t.encoder->output;
                if (intact) {
                    m_intactOutputs.push_back(h);
                    ++count;
                    break;
                }
                const engine::Tensor& h0 = m_intactOutputs[i];
                double diff = 0, norm = 0;
                for (std::size_t k = 0; k < h.values().size(); ++k) {
                    const double d = h.values()[k] - h0.values()[k];
                    diff += d * d;
                    norm += static_cast<double>(h0.values()[k]) * h0.values()[k];
                }
                total += norm > 0 ? std::sqrt(diff / norm) : 0;
                ++count;
                break;
            }
            case ImportanceMetric::ExactMatch:
            case ImportanceMetric::Loss: {
                const std::int64_t vocab = t.logits.dim(2);
                const std::int64_t first = static_cast<std::int64_t>(e.input.target.size()) -
                    static_cast<std::int64_t>(e.targets.size());
                bool all = true;
                for (std::size_t p = 0; p < e.targets.size(); ++p) {
                    const float* row =
                        t.logits.data() + (first + static_cast<std::int64_t>(p)) * vocab;
                    if (m_metric == ImportanceMetric::Loss) {
                        total -= logProbability(row, vocab, e.targets[p]);
                        ++count;
                    } else if (std::max_element(row, row + vocab) - row != e.targets[p]) {
                        all = false;
                    }
                }
                if (m_metric == ImportanceMetric::ExactMatch) {
                    total += all ? 1 : 0;
                    ++count;
                }
                break;
            }
            }
            onePass();
        }
        return count ? total / static_cast<double>(count) : 0;
    }

private:
    // A decoder reads a window and predicts each next token; an encoder reads it whole. Texts
    // longer than the model's context are cut into windows of its length.
    void addWindows(const std::vector<int>& ids, bool decoder)
    {
        // A decoder's window is one longer than what it reads: the last token is only predicted.
        // Windows overlap by that token, so every token but the text's first is predicted once.
        const std::size_t length = static_cast<std::size_t>(std::max(m_config.maxLength, 1));
        for (std::size_t start = 0; start < ids.size(); start += length) {
            const std::size_t end = std::min(ids.size(), start + length + (decoder ? 1 : 0));
            Example e;
            std::vector<int> window(ids.begin() + static_cast<std::ptrdiff_t>(start),
                                    ids.begin() + static_cast<std::ptrdiff_t>(end));
            if (decoder) {
                if (window.size() < 2)
                    continue;
                e.targets.assign(window.begin() + 1, window.end());
                window.pop_back();
                e.input.target = std::move(window);
            } else {
                if (m_config.tokenTypes > 1)
                    e.input.sourceTypes.assign(window.size(), 0);
                e.input.source = std::move(window);
            }
            m_examples.push_back(std::move(e));
        }
    }

    void checkLength(const std::vector<int>& ids, std::size_t i) const
    {
        if (ids.size() > static_cast<std::size_t>(m_config.maxLength))
            throw engine::InputError("Example " + std::to_string(i + 1) + "'s input has " +
                                     std::to_string(ids.size()) +
                                     " tokens; this model takes at "
                                     "most " +
                                     std::to_string(m_config.maxLength) + ".");
    }

    const engine::TransformerModel& m_model;
    const engine::ModelConfig& m_config;
    ImportanceMetric m_metric = ImportanceMetric::Loss;
    std::vector<Example> m_examples;
    std::vector<engine::Tensor> m_intactOutputs;
};

} // namespace

EvaluationSet firstExamples(EvaluationSet data, std::size_t count)
{
    if (count >= data.inputs.size())
        return data;
    data.inputs.resize(count);
    if (!data.answers.empty())
        data.answers.resize(count);
    data.description = "the first " + std::to_string(count) + " of " + data.description;
    return data;
}

std::optional<EvaluationSet> readEvaluationSet(const std::filesystem::path& folder)
{
    const std::filesystem::path path = folder / "heldout.txt";
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return std::nullopt;
    const std::string text = io::readFile(path.string(), kMaxHeldOutBytes);
    EvaluationSet set;
    std::size_t lineNumber = 0;
    std::size_t withTab = 0;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        const std::size_t tab = line.find('\t');
        if (tab != std::string::npos) {
            ++withTab;
            set.answers.push_back(line.substr(tab + 1));
            line.resize(tab);
        }
        if (withTab != 0 && withTab != set.inputs.size() + 1)
            throw io::FormatError(path.filename().string() + " line " + std::to_string(lineNumber) +
                                  ": every line must be input<TAB>answer once one is; this one "
                                  "has no tab.");
        set.inputs.push_back(std::move(line));
    }
    if (withTab != 0 && withTab != set.inputs.size())
        throw io::FormatError(path.filename().string() +
                              ": the first lines have no tab but later ones do; expected "
                              "input<TAB>answer on every line or on none.");
    set.description = std::to_string(set.inputs.size()) + " held-out examples (heldout.txt)";
    return set;
}

std::vector<std::size_t> ImportanceReport::ranking() const
{
    std::vector<std::size_t> order(heads.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return heads[a].harm > heads[b].harm; });
    return order;
}

std::string metricName(ImportanceMetric metric)
{
    switch (metric) {
    case ImportanceMetric::ExactMatch:
        return "exact-match accuracy";
    case ImportanceMetric::Loss:
        return "loss (nats per token)";
    case ImportanceMetric::OutputChange:
        return "relative change of the encoder output";
    }
    return {};
}

bool higherIsBetter(ImportanceMetric metric)
{
    return metric == ImportanceMetric::ExactMatch;
}

ImportanceReport headImportance(const io::LoadedModel& model, const EvaluationSet& data,
                                const std::function<void(int done, int total)>& progress,
                                std::optional<std::uint64_t> maxMemory)
{
    if (data.inputs.empty())
        throw engine::InputError("There is nothing to measure the heads on: no examples given.");
    Scorer scorer(model, data, maxMemory);
    const engine::ModelConfig& c = model.model->config();

    std::vector<engine::Ablation::Head> heads;
    for (int layer = 0; layer < std::max(c.encoderLayers, c.decoderLayers); ++layer) {
        for (const engine::Block b : engine::attentionBlocksOfLayer(c, layer))
            for (int h = 0; h < c.numHeads; ++h)
                heads.push_back({layer, b, h});
    }

    const int total = scorer.passes() * (static_cast<int>(heads.size()) + 1);
    int done = 0;
    const auto onePass = [&] {
        ++done;
        if (progress)
            progress(done, total);
    };
    ImportanceReport report;
    report.metric = scorer.metric();
    report.data = data.description;
    report.baseline = scorer.score({}, onePass);
    const double sign = higherIsBetter(report.metric) ? -1 : 1;
    for (const engine::Ablation::Head& head : heads) {
        HeadImportance h;
        h.head = head;
        h.value = scorer.score(engine::Ablation{{head}}, onePass);
        h.harm = report.metric == ImportanceMetric::OutputChange
            ? h.value
            : sign * (h.value - report.baseline);
        report.heads.push_back(h);
    }
    return report;
}

} // namespace attnviz::lesson
