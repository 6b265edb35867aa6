#include "io/tokenizer/pre_tokenizer.h"

#include "io/safetensors.h"
#include "io/tokenizer/byte_alphabet.h"
#include "io/tokenizer/tokenizer_json.h"
#include "io/tokenizer/unicode.h"
#include "io/tokenizer/utf8.h"

#include <utf8proc.h>

#include <algorithm>
#include <functional>

namespace attnviz::io {
namespace {

/// GPT-2's pattern, which ByteLevel's use_regex runs (Hugging Face's byte_level.rs).
const OnigurumaRegex& gpt2Pattern()
{
    static const OnigurumaRegex pattern(
        R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
        "GPT-2's pattern");
    return pattern;
}

/// A stretch of a text that a split pattern matched, or did not.
struct Span {
    std::size_t start;
    std::size_t end;
    bool matched;
};

/// The matched and unmatched spans covering a text of `length` bytes, in order, from its matches.
std::vector<Span> spansOf(std::size_t length, const std::vector<OnigurumaRegex::Match>& matches)
{
    std::vector<Span> spans;
    std::size_t previous = 0;
    for (const auto& [start, end] : matches) {
        if (previous != start)
            spans.push_back({previous, start, false});
        spans.push_back({start, end, true});
        previous = end;
    }
    if (previous != length)
        spans.push_back({previous, length, false});
    return spans;
}

/// Each character for which `predicate` holds, as a match of its own.
std::vector<OnigurumaRegex::Match> characterMatches(std::string_view utf8,
                                                    const std::function<bool(char32_t)>& predicate)
{
    std::vector<OnigurumaRegex::Match> matches;
    for (std::size_t pos = 0; pos < utf8.size();) {
        const Utf8Char c = decodeUtf8(utf8, pos);
        if (predicate(c.codePoint))
            matches.emplace_back(pos, pos + c.length);
        pos += c.length;
    }
    return matches;
}

std::vector<OnigurumaRegex::Match> stringMatches(std::string_view text, std::string_view needle)
{
    std::vector<OnigurumaRegex::Match> matches;
    for (std::size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size()))
        matches.emplace_back(at, at + needle.size());
    return matches;
}

/// Rust's char::is_numeric, which the Digits pre-tokenizer splits at: categories Nd, Nl and No.
bool isNumeric(char32_t codePoint)
{
    const utf8proc_category_t category =
        utf8proc_category(static_cast<utf8proc_int32_t>(codePoint));
    return category == UTF8PROC_CATEGORY_ND || category == UTF8PROC_CATEGORY_NL ||
        category == UTF8PROC_CATEGORY_NO;
}

/// The byte ranges to keep after a split, as Hugging Face's NormalizedString::split computes them.
std::vector<std::pair<std::size_t, std::size_t>> keptRanges(std::vector<Span> spans,
                                                            PreTokenizer::Behavior behavior,
                                                            bool invert)
{
    using Behavior = PreTokenizer::Behavior;
    if (invert)
        for (Span& span : spans)
            span.matched = !span.matched;
    std::vector<std::pair<std::size_t, std::size_t>> kept;
    bool previousMatched = false;
    switch (behavior) {
    case Behavior::Isolated:
        for (const Span& span : spans)
            kept.emplace_back(span.start, span.end);
        break;
    case Behavior::Removed:
        for (const Span& span : spans)
            if (!span.matched)
                kept.emplace_back(span.start, span.end);
        break;
    case Behavior::Contiguous:
        for (const Span& span : spans) {
            if (span.matched == previousMatched && !kept.empty())
                kept.back().second = span.end;
            else
                kept.emplace_back(span.start, span.end);
            previousMatched = span.matched;
        }
        break;
    case Behavior::MergedWithPrevious:
        for (const Span& span : spans) {
            if (span.matched && !previousMatched && !kept.empty())
                kept.back().second = span.end;
            else
                kept.emplace_back(span.start, span.end);
            previousMatched = span.matched;
        }
        break;
    case Behavior::MergedWithNext:
        for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
            if (span->matched && !previousMatched && !kept.empty())
                kept.back().first = span->start;
            else
                kept.emplace_back(span->start, span->end);
            previousMatched = span->matched;
        }
        std::reverse(kept.begin(), kept.end());
        break;
    }
    return kept;
}

/// `piece` cut at `matches`: the non-empty pieces `behavior` keeps.
void cut(const PreToken& piece, const std::vector<OnigurumaRegex::Match>& matches,
         PreTokenizer::Behavior behavior, bool invert, std::vector<PreToken>& out)
{
    for (const auto& [start, end] :
         keptRanges(spansOf(piece.text.size(), matches), behavior, invert))
        if (end > start)
            out.push_back({piece.text.substr(start, end - start), piece.startsText && start == 0});
}

bool boolSetting(const JsonValue& step, std::string_view key, bool fallback, std::string_view type)
{
    const JsonValue* value = step.find(key);
    if (!value || value->isNull())
        return fallback;
    if (!value->isBool())
        throw FormatError("tokenizer.json's " + std::string(type) + " pre-tokenizer has " +
                          std::string(key) + " " + value->describe() + "; expected true or false");
    return value->asBool();
}

PreTokenizer::Behavior behaviorOf(const JsonValue& split)
{
    using Behavior = PreTokenizer::Behavior;
    static const std::pair<std::string_view, Behavior> kNames[] = {
        {"Removed", Behavior::Removed},
        {"Isolated", Behavior::Isolated},
        {"MergedWithPrevious", Behavior::MergedWithPrevious},
        {"MergedWithNext", Behavior::MergedWithNext},
        {"Contiguous", Behavior::Contiguous}};
    const JsonValue* value = split.find("behavior");
    if (value && value->isString())
        for (const auto& [name, behavior] : kNames)
            if (value->asString() == name)
                return behavior;
    throw FormatError("tokenizer.json's Split pre-tokenizer has the behavior " +
                      (value ? value->describe() : std::string("missing")) +
                      "; expected Removed, Isolated, MergedWithPrevious, MergedWithNext or "
                      "Contiguous");
}

} // namespace

PreTokenizer PreTokenizer::fromJson(const JsonValue* preTokenizer)
{
    PreTokenizer result;
    if (preTokenizer && !preTokenizer->isNull())
        result.add(*preTokenizer);
    return result;
}

void PreTokenizer::add(const JsonValue& preTokenizer)
{
    const std::string type = stepTypeOf(preTokenizer);
    if (type == "Split") {
        Step step{Step::Kind::SplitRegex};
        step.behavior = behaviorOf(preTokenizer);
        step.invert = boolSetting(preTokenizer, "invert", false, type);
        const JsonValue* pattern = preTokenizer.find("pattern");
        const JsonValue* literal = pattern ? pattern->find("String") : nullptr;
        const JsonValue* regex = pattern ? pattern->find("Regex") : nullptr;
        if (literal && literal->isString() && !literal->asString().empty()) {
            step.kind = Step::Kind::SplitString;
            step.text = literal->asString();
        } else if (regex && regex->isString()) {
            step.regex = std::make_shared<const OnigurumaRegex>(regex->asString(),
                                                                "tokenizer.json's Split pattern");
        } else {
            throw FormatError("tokenizer.json's Split pre-tokenizer has the pattern " +
                              (pattern ? pattern->describe() : std::string("missing")) +
                              "; expected {\"String\": \"…\"} (not empty) or {\"Regex\": \"…\"}");
        }
        m_steps.push_back(std::move(step));
    } else if (type == "ByteLevel") {
        Step step{Step::Kind::ByteLevel};
        step.addPrefixSpace = boolSetting(preTokenizer, "add_prefix_space", true, type);
        step.useRegex = boolSetting(preTokenizer, "use_regex", true, type);
        m_steps.push_back(std::move(step));
    } else if (type == "Digits") {
        Step step{Step::Kind::Digits};
        step.individualDigits = boolSetting(preTokenizer, "individual_digits", false, type);
        m_steps.push_back(std::move(step));
    } else if (type == "Metaspace") {
        Step step{Step::Kind::Metaspace};
        const JsonValue* replacement = preTokenizer.find("replacement");
        if (!replacement || !replacement->isString() ||
            countUtf8Characters(replacement->asString()) != 1 ||
            !isValidUtf8(replacement->asString()))
            throw FormatError("tokenizer.json's Metaspace pre-tokenizer has the replacement " +
                              (replacement ? replacement->describe() : std::string("missing")) +
                              "; expected one character such as \"▁\"");
        step.text = replacement->asString();
        step.split = boolSetting(preTokenizer, "split", true, type);
        const JsonValue* scheme = preTokenizer.find("prepend_scheme");
        if (scheme && !scheme->isNull()) {
            if (scheme->isString() && scheme->asString() == "always")
                step.prepend = Step::Prepend::Always;
            else if (scheme->isString() && scheme->asString() == "first")
                step.prepend = Step::Prepend::First;
            else if (scheme->isString() && scheme->asString() == "never")
                step.prepend = Step::Prepend::Never;
            else
                throw FormatError("tokenizer.json's Metaspace pre-tokenizer has the "
                                  "prepend_scheme " +
                                  scheme->describe() + "; expected always, first or never");
        } else { // files written before prepend_scheme say add_prefix_space
            step.prepend = boolSetting(preTokenizer, "add_prefix_space", true, type)
                ? Step::Prepend::Always
                : Step::Prepend::Never;
        }
        m_steps.push_back(std::move(step));
    } else if (type == "Sequence") {
        const JsonValue* steps = preTokenizer.find("pretokenizers");
        if (!steps || !steps->isArray())
            throw FormatError("tokenizer.json's Sequence pre-tokenizer has no \"pretokenizers\" "
                              "array; expected the list of its steps");
        for (const JsonValue& step : steps->asArray())
            add(step);
    } else {
        throw FormatError("tokenizer.json's pre-tokenizer is " + type +
                          "; AttnViz reads Split, ByteLevel, Digits, Metaspace and Sequence of "
                          "these, or none");
    }
}

bool PreTokenizer::byteLevel() const
{
    for (const Step& step : m_steps)
        if (step.kind == Step::Kind::ByteLevel)
            return true;
    return false;
}

std::vector<PreToken> PreTokenizer::apply(PreToken stretch,
                                          std::chrono::steady_clock::time_point deadline) const
{
    std::vector<PreToken> pieces;
    if (!stretch.text.empty())
        pieces.push_back(std::move(stretch));
    for (const Step& step : m_steps)
        applyStep(step, pieces, deadline);
    return pieces;
}

void PreTokenizer::applyStep(const Step& step, std::vector<PreToken>& pieces,
                             std::chrono::steady_clock::time_point deadline) const
{
    std::vector<PreToken> out;
    out.reserve(pieces.size());
    for (PreToken& piece : pieces) {
        switch (step.kind) {
        case Step::Kind::SplitRegex:
            cut(piece, step.regex->findAll(piece.text, deadline), step.behavior, step.invert, out);
            break;
        case Step::Kind::SplitString:
            cut(piece, stringMatches(piece.text, step.text), step.behavior, step.invert, out);
            break;
        case Step::Kind::Digits:
            cut(piece, characterMatches(piece.text, isNumeric),
                step.individualDigits ? Behavior::Isolated : Behavior::Contiguous, false, out);
            break;
        case Step::Kind::ByteLevel: {
            if (step.addPrefixSpace && !piece.text.starts_with(' '))
                piece.text.insert(0, 1, ' ');
            const std::size_t first = out.size();
            if (step.useRegex)
                cut(piece, gpt2Pattern().findAll(piece.text, deadline), Behavior::Isolated, false,
                    out);
            else
                out.push_back(std::move(piece));
            for (std::size_t k = first; k < out.size(); ++k) {
                std::string spelled;
                appendByteSymbols(spelled, out[k].text);
                out[k].text = std::move(spelled);
            }
            break;
        }
        case Step::Kind::Metaspace: {
            std::string replaced;
            for (const char c : piece.text) {
                if (c == ' ')
                    replaced += step.text;
                else
                    replaced += c;
            }
            const bool prepend = !replaced.starts_with(step.text) &&
                (step.prepend == Step::Prepend::Always ||
                 (step.prepend == Step::Prepend::First && piece.startsText));
            if (prepend)
                replaced.insert(0, step.text);
            const PreToken spaced{std::move(replaced), piece.startsText};
            if (step.split)
                cut(spaced, stringMatches(spaced.text, step.text), Behavior::MergedWithNext, false,
                    out);
            else if (!spaced.text.empty())
                out.push_back(spaced);
            break;
        }
        }
    }
    pieces = std::move(out);
}

} // namespace attnviz::io
