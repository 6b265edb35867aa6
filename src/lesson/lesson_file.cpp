#include "lesson/lesson_file.h"

#include "engine/input_error.h"
#include "io/json.h"
#include "io/tokenizer/utf8.h"
#include "lesson/field_limits.h"
#include "lesson/lesson_steps.h"
#include "lesson/playground.h"
#include "lesson/step_view.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include <limits>
#include <set>
#include <tuple>

namespace attnviz::lesson {

namespace {

constexpr std::string_view kFormat = "attnviz-lesson";
// Far above any classroom setting, low enough that nothing read is ever large.
constexpr int kMaxListItems = 100000;
// More heads than any model the app can hold has (Llama 3 70B: 80 layers of 64 query heads);
// each listed head is work in every run of the model.
constexpr std::size_t kMaxSwitchedOffHeads = 8192;

const char* maskName(MaskKind mask)
{
    switch (mask) {
    case MaskKind::None:
        return "none";
    case MaskKind::Causal:
        return "causal";
    case MaskKind::ValidLengths:
        return "valid_lengths";
    case MaskKind::Custom:
        return "custom";
    }
    return "none";
}

const char* positionName(PositionKind p)
{
    switch (p) {
    case PositionKind::None:
        return "none";
    case PositionKind::Sinusoidal:
        return "sinusoidal";
    case PositionKind::Rotary:
        return "rotary";
    case PositionKind::Alibi:
        return "alibi";
    }
    return "sinusoidal";
}

const char* queryKeyNormName(QueryKeyNormKind n)
{
    switch (n) {
    case QueryKeyNormKind::None:
        return "none";
    case QueryKeyNormKind::PerHead:
        return "per_head";
    case QueryKeyNormKind::WholeProjection:
        return "whole_projection";
    }
    return "none";
}

// Whether the playground uses a treatment of version 3 (QK-norm, partial rotary positions, a
// score scale, a cap, sinks, ALiBi), which a program reading version 2 would silently leave out.
bool usesVersion3(const PlaygroundSettings& s)
{
    return s.positions == PositionKind::Alibi || s.rotaryDim != 0 ||
        s.queryKeyNorm != QueryKeyNormKind::None || s.scoreScale != 0 || s.softCap != 0 ||
        s.learnedSinks;
}

nlohmann::ordered_json playgroundJson(const PlaygroundSettings& s)
{
    nlohmann::ordered_json cells = nlohmann::ordered_json::array();
    for (const auto& cell : s.blockedCells)
        cells.push_back({cell.first, cell.second});
    nlohmann::ordered_json out{
        {"query_sentences", s.querySentences},
        {"key_value_sentences", s.keyValueSentences},
        {"tokens", s.tokenUnit == TokenUnit::Character ? "characters" : "words"},
        {"positional_encoding", s.positions == PositionKind::Sinusoidal}};
    // Version 2's members only where they say something, so that a lesson without them is the
    // version 1 file it always was.
    if (s.positions == PositionKind::Rotary || s.positions == PositionKind::Alibi)
        out["positions"] = positionName(s.positions);
    if (s.positions == PositionKind::Rotary) {
        out["rope_theta"] = s.ropeTheta;
        if (s.rotaryDim != 0)
            out["rotary_dim"] = s.rotaryDim;
    }
    if (s.queryKeyNorm != QueryKeyNormKind::None) {
        out["qk_norm"] = queryKeyNormName(s.queryKeyNorm);
        out["qk_norm_unit_offset"] = s.queryKeyNormUnitOffset;
    }
    if (s.scoreScale != 0)
        out["score_scale"] = s.scoreScale;
    if (s.softCap != 0)
        out["attn_logit_softcapping"] = s.softCap;
    if (s.learnedSinks)
        out["learned_sinks"] = true;
    out["d_model"] = s.modelWidth;
    out["heads"] = s.heads;
    if (s.keyValueHeads != 0)
        out["kv_heads"] = s.keyValueHeads;
    out["d_k"] = s.queryKeySize;
    out["d_v"] = s.valueSize;
    out["d_out"] = s.outputWidth;
    out["bias"] = s.bias;
    out["mask"] = maskName(s.mask);
    out["blocked_cells"] = cells;
    out["valid_lengths"] = s.validLengths;
    if (s.slidingWindow != 0)
        out["sliding_window"] = s.slidingWindow;
    if (s.onlineSoftmaxTile != 0)
        out["online_softmax_tile"] = s.onlineSoftmaxTile;
    out["switched_off"] = s.ablatedHeads;
    out["seed"] = s.seed;
    return out;
}

// Reads members with one-sentence errors that name where the member is ("view.step").
class Reader {
public:
    Reader(const io::JsonValue& object, std::string where)
        : m_object(object)
        , m_where(std::move(where))
    {
    }

    const io::JsonValue* find(std::string_view key) const { return m_object.find(key); }

    std::string name(std::string_view key) const
    {
        return m_where.empty() ? std::string(key) : m_where + "." + std::string(key);
    }

    [[noreturn]] void fail(std::string_view key, const std::string& expected,
                           const io::JsonValue& found) const
    {
        throw engine::InputError("The lesson's “" + name(key) + "” must be " + expected + ", not " +
                                 found.describe() + ".");
    }

    std::string string(std::string_view key, std::string fallback) const
    {
        const io::JsonValue* v = find(key);
        if (!v)
            return fallback;
        if (!v->isString())
            fail(key, "a string", *v);
        return v->asString();
    }

    /// A string for a field holding at most `maxLength` UTF-16 units (field_limits.h).
    std::string text(std::string_view key, std::string fallback, int maxLength) const
    {
        std::string value = string(key, std::move(fallback));
        if (const std::size_t length = io::countUtf16Units(value);
            length > static_cast<std::size_t>(maxLength))
            throw engine::InputError(
                "The lesson's “" + name(key) + "” has " + std::to_string(length) +
                " characters; its field holds at most " + std::to_string(maxLength) + ".");
        return value;
    }

    bool boolean(std::string_view key, bool fallback) const
    {
        const io::JsonValue* v = find(key);
        if (!v)
            return fallback;
        if (!v->isBool())
            fail(key, "true or false", *v);
        return v->asBool();
    }

    std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t low,
                         std::int64_t high) const
    {
        const io::JsonValue* v = find(key);
        if (!v)
            return fallback;
        if (!v->isInteger() || v->asInteger() < low || v->asInteger() > high)
            fail(key, "a whole number from " + std::to_string(low) + " to " + std::to_string(high),
                 *v);
        return v->asInteger();
    }

    double number(std::string_view key, double fallback, double low, double high) const
    {
        const io::JsonValue* v = find(key);
        if (!v)
            return fallback;
        if (!v->isNumber() || !(v->asNumber() >= low && v->asNumber() <= high))
            fail(key, "a number from " + formatNumber(low) + " to " + formatNumber(high), *v);
        return v->asNumber();
    }

    int bounded(std::string_view key, int fallback, int low, int high) const
    {
        return static_cast<int>(integer(key, fallback, low, high));
    }

    const io::JsonValue::Array* array(std::string_view key,
                                      std::size_t maxItems = kMaxListItems) const
    {
        const io::JsonValue* v = find(key);
        if (!v)
            return nullptr;
        if (!v->isArray() || v->asArray().size() > maxItems)
            fail(key, "a list of at most " + std::to_string(maxItems) + " items", *v);
        return &v->asArray();
    }

    std::vector<std::string> strings(std::string_view key, std::vector<std::string> fallback) const
    {
        const io::JsonValue::Array* items = array(key);
        if (!items)
            return fallback;
        std::vector<std::string> out;
        for (const io::JsonValue& item : *items) {
            if (!item.isString())
                fail(key, "a list of strings", item);
            out.push_back(item.asString());
        }
        return out;
    }

    Reader object(std::string_view key) const
    {
        static const io::JsonValue empty{io::JsonValue::Object{}};
        const io::JsonValue* v = find(key);
        if (!v)
            return {empty, name(key)};
        if (!v->isObject())
            fail(key, "an object", *v);
        return {*v, name(key)};
    }

private:
    const io::JsonValue& m_object;
    std::string m_where;
};

engine::Block readBlock(const Reader& r, std::string_view key, engine::Block fallback)
{
    const io::JsonValue* v = r.find(key);
    if (!v)
        return fallback;
    if (v->isString())
        for (const engine::Block b : engine::kAttentionBlocks)
            if (v->asString() == engine::blockName(b))
                return b;
    r.fail(key, "self, masked_self or cross", *v);
}

PlaygroundSettings readPlayground(const Reader& r)
{
    PlaygroundSettings s;
    s.querySentences = r.strings("query_sentences", s.querySentences);
    s.keyValueSentences = r.strings("key_value_sentences", {});
    const std::string tokens = r.string("tokens", "words");
    if (tokens != "words" && tokens != "characters")
        r.fail("tokens", "words or characters", io::JsonValue(tokens));
    s.tokenUnit = tokens == "characters" ? TokenUnit::Character : TokenUnit::Word;
    // The playground's own limits, checked before the sentences reach a text field that would
    // take minutes to lay them out.
    for (const auto& [key, sentences] : {std::pair{"query_sentences", &s.querySentences},
                                         std::pair{"key_value_sentences", &s.keyValueSentences}})
        if (const std::string beyond = sentencesBeyondLimits(*sentences, s.tokenUnit);
            !beyond.empty())
            throw engine::InputError("The lesson's “" + r.name(key) + "” is more than the " +
                                     "playground takes: " + beyond + ".");
    // Version 1 knew only a sinusoidal encoding, on or off.
    s.positions =
        r.boolean("positional_encoding", true) ? PositionKind::Sinusoidal : PositionKind::None;
    if (r.find("positions")) {
        const std::string positions = r.string("positions", "sinusoidal");
        bool known = false;
        for (const PositionKind p : {PositionKind::None, PositionKind::Sinusoidal,
                                     PositionKind::Rotary, PositionKind::Alibi})
            if (positions == positionName(p)) {
                s.positions = p;
                known = true;
            }
        if (!known)
            r.fail("positions", "none, sinusoidal, rotary or alibi", io::JsonValue(positions));
    }
    s.rotaryDim = r.bounded("rotary_dim", 0, 0, kMaxSizeField);
    const std::string norm = r.string("qk_norm", "none");
    bool knownNorm = false;
    for (const QueryKeyNormKind n :
         {QueryKeyNormKind::None, QueryKeyNormKind::PerHead, QueryKeyNormKind::WholeProjection})
        if (norm == queryKeyNormName(n)) {
            s.queryKeyNorm = n;
            knownNorm = true;
        }
    if (!knownNorm)
        r.fail("qk_norm", "none, per_head or whole_projection", io::JsonValue(norm));
    s.queryKeyNormUnitOffset = r.boolean("qk_norm_unit_offset", false);
    s.scoreScale = r.number("score_scale", 0, 0, kMaxScoreScale);
    s.softCap = r.number("attn_logit_softcapping", 0, 0, kMaxSoftCap);
    // Their fields show so many decimals, and would round the rest away.
    for (const auto& [key, value, decimals] :
         {std::tuple{"score_scale", s.scoreScale, kScoreScaleDecimals},
          std::tuple{"attn_logit_softcapping", s.softCap, kSoftCapDecimals}}) {
        const double unit = std::pow(10.0, decimals);
        if (std::abs(std::round(value * unit) / unit - value) > 1e-12 * std::max(1.0, value))
            r.fail(key, "a number with at most " + std::to_string(decimals) + " decimals",
                   *r.find(key));
    }
    s.learnedSinks = r.boolean("learned_sinks", false);
    s.ropeTheta = r.number("rope_theta", s.ropeTheta, kMinRopeTheta, kMaxRopeTheta);
    // Its field shows whole numbers only, and would round a fraction away.
    if (s.ropeTheta != std::floor(s.ropeTheta))
        r.fail("rope_theta",
               "a whole number from " + formatNumber(kMinRopeTheta) + " to " +
                   formatNumber(kMaxRopeTheta),
               *r.find("rope_theta"));
    // The sizes are bounded here by what their fields hold; the playground's own checks say
    // what fits (a message under the field, as when typed).
    s.keyValueHeads = r.bounded("kv_heads", 0, 0, kMaxHeadsField);
    s.slidingWindow = r.bounded("sliding_window", 0, 0, kMaxWindowField);
    s.onlineSoftmaxTile = r.bounded("online_softmax_tile", 0, 0, kMaxWindowField);
    s.modelWidth = r.bounded("d_model", s.modelWidth, 0, kMaxSizeField);
    s.heads = r.bounded("heads", s.heads, 0, kMaxHeadsField);
    s.queryKeySize = r.bounded("d_k", 0, 0, kMaxSizeField);
    s.valueSize = r.bounded("d_v", 0, 0, kMaxSizeField);
    s.outputWidth = r.bounded("d_out", 0, 0, kMaxSizeField);
    s.bias = r.boolean("bias", s.bias);
    const std::string mask = r.string("mask", "none");
    bool knownMask = false;
    for (const MaskKind m :
         {MaskKind::None, MaskKind::Causal, MaskKind::ValidLengths, MaskKind::Custom})
        if (mask == maskName(m)) {
            s.mask = m;
            knownMask = true;
        }
    if (!knownMask)
        r.fail("mask", "none, causal, valid_lengths or custom", io::JsonValue(mask));
    if (const io::JsonValue::Array* cells = r.array("blocked_cells"))
        for (const io::JsonValue& cell : *cells) {
            const bool pair = cell.isArray() && cell.asArray().size() == 2 &&
                cell.asArray()[0].isInteger() && cell.asArray()[1].isInteger() &&
                cell.asArray()[0].asInteger() >= 0 && cell.asArray()[1].asInteger() >= 0 &&
                cell.asArray()[0].asInteger() < kMaxListItems &&
                cell.asArray()[1].asInteger() < kMaxListItems;
            if (!pair)
                r.fail("blocked_cells", "a list of [query, key] pairs of positions", cell);
            s.blockedCells.insert({static_cast<int>(cell.asArray()[0].asInteger()),
                                   static_cast<int>(cell.asArray()[1].asInteger())});
        }
    s.validLengths = r.text("valid_lengths", "", kMaxValidLengthsLength);
    // A head listed again is the same head (a set); no head is numbered beyond its field's H.
    if (const io::JsonValue::Array* heads = r.array("switched_off", kMaxSwitchedOffHeads))
        for (const io::JsonValue& head : *heads) {
            if (!head.isInteger() || head.asInteger() < 0 || head.asInteger() >= kMaxHeadsField)
                r.fail("switched_off",
                       "a list of head numbers from 0 to " + std::to_string(kMaxHeadsField - 1),
                       head);
            s.ablatedHeads.insert(static_cast<int>(head.asInteger()));
        }
    s.seed = static_cast<std::uint32_t>(r.bounded("seed", static_cast<int>(s.seed), 0, kMaxSeed));
    return s;
}

engine::Ablation readAblation(const Reader& r)
{
    engine::Ablation ablation;
    const io::JsonValue::Array* heads = r.array("switched_off", kMaxSwitchedOffHeads);
    if (!heads)
        return ablation;
    // A head listed again is dropped, as --ablate drops it: it is switched off once, and one
    // click switches it on again (the panel removes one entry).
    std::set<std::tuple<int, engine::Block, int>> listed;
    for (const io::JsonValue& item : *heads) {
        if (!item.isObject())
            r.fail("switched_off", "a list of {\"layer\", \"block\", \"head\"} objects", item);
        const Reader head(item, r.name("switched_off"));
        engine::Ablation::Head h;
        h.layer = static_cast<int>(head.integer("layer", 0, 0, kMaxListItems));
        h.block = readBlock(head, "block", engine::Block::Self);
        h.head = static_cast<int>(head.integer("head", 0, 0, kMaxListItems));
        if (listed.insert({h.layer, h.block, h.head}).second)
            ablation.heads.push_back(h);
    }
    return ablation;
}

} // namespace

std::string lessonFileText(const LessonFile& lesson)
{
    nlohmann::ordered_json file;
    file["format"] = kFormat;
    // A lesson that a program of version 1 would read as another module says it needs 2.
    const PlaygroundSettings& p = lesson.playground;
    const bool variant = (lesson.model.playground() &&
                          (p.keyValueHeads != 0 || p.positions == PositionKind::Rotary ||
                           p.slidingWindow != 0 || p.onlineSoftmaxTile != 0)) ||
        !lesson.model.image.empty();
    file["version"] = lesson.model.playground() && usesVersion3(p) ? LessonFile::kVersion
        : variant                                                  ? 2
                                                                   : 1;
    file["language"] = lesson.language;
    if (lesson.model.playground()) {
        file["playground"] = playgroundJson(lesson.playground);
    } else {
        const ModelSource& source = lesson.model;
        nlohmann::ordered_json model{{"folder", source.folder}, {"text", source.text}};
        if (source.target)
            model["target"] = *source.target;
        model["generate"] = source.generate;
        if (!source.image.empty())
            model["image"] = source.image;
        nlohmann::ordered_json heads = nlohmann::ordered_json::array();
        for (const engine::Ablation::Head& h : source.ablation.heads)
            heads.push_back(
                {{"layer", h.layer}, {"block", engine::blockName(h.block)}, {"head", h.head}});
        model["switched_off"] = heads;
        file["model"] = model;
    }
    file["view"] = {{"step", lesson.step},
                    {"layer", lesson.choice.layer},
                    {"block", engine::blockName(lesson.choice.block)},
                    {"decoding_step", lesson.choice.decodingStep},
                    {"view", lesson.alternative},
                    {"batch_item", lesson.batch},
                    {"head", lesson.focusedHead},
                    {"colour_range", lesson.sharedColourRange ? "shared" : "per_head"},
                    {"numbers_in_cells", lesson.numbersInCells}};
    // Invalid UTF-8 in a typed text is replaced rather than refused: the lesson is still saved.
    return file.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

LessonFile parseLessonFile(std::string_view text)
{
    io::JsonValue document;
    try {
        document = io::parseJson(text, "the lesson");
    } catch (const io::JsonError& e) {
        throw engine::InputError(std::string("The lesson is not valid JSON: ") + e.what() + ".");
    }
    if (!document.isObject())
        throw engine::InputError("The file is not an AttnViz lesson: expected a JSON object, not " +
                                 document.describe() + ".");
    const Reader root(document, "");
    const io::JsonValue* format = root.find("format");
    if (!format || !format->isString() || format->asString() != kFormat)
        throw engine::InputError(
            "The file is not an AttnViz lesson: its “format” must be \"attnviz-lesson\".");
    const std::int64_t version = root.integer("version", 0, 1, std::numeric_limits<int>::max());
    if (version > LessonFile::kVersion)
        throw engine::InputError("The lesson was saved by a newer AttnViz (format version " +
                                 std::to_string(version) + "; this one reads version " +
                                 std::to_string(LessonFile::kVersion) +
                                 "): update AttnViz to open it.");
    if (version < 1)
        root.fail("version", "1", io::JsonValue(0.0, true));

    LessonFile lesson;
    lesson.language = root.string("language", lesson.language);
    const bool hasModel = root.find("model") != nullptr;
    const bool hasPlayground = root.find("playground") != nullptr;
    if (hasModel == hasPlayground)
        throw engine::InputError(
            "The lesson must name either a “model” or a “playground”, exactly one of them.");
    if (hasModel) {
        const Reader model = root.object("model");
        ModelSource& source = lesson.model;
        source.folder = model.string("folder", "");
        if (source.playground())
            throw engine::InputError("The lesson's “model.folder” must name a model: a folder or "
                                     "a bundled demo such as \"reverse\".");
        source.text = model.text("text", "", kMaxModelTextLength);
        if (model.find("target"))
            source.target = model.text("target", "", kMaxModelTextLength);
        source.generate = model.bounded("generate", 0, 0, kMaxGenerate);
        if (model.find("image"))
            source.image = model.text("image", "", kMaxPicturePathLength);
        source.ablation = readAblation(model);
    } else {
        lesson.playground = readPlayground(root.object("playground"));
    }

    const Reader view = root.object("view");
    lesson.step = view.string("step", lesson.step);
    if (!lessonStepIndex(lesson.step)) {
        std::string keys;
        for (const LessonStep& step : kLessonSteps)
            keys += (keys.empty() ? "" : ", ") + std::string(step.key);
        view.fail("step", "the key of a step (" + keys + ")", io::JsonValue(lesson.step));
    }
    lesson.choice.layer = static_cast<int>(view.integer("layer", 0, 0, kMaxListItems));
    lesson.choice.block = readBlock(view, "block", engine::Block::Self);
    lesson.choice.decodingStep =
        static_cast<int>(view.integer("decoding_step", -1, -1, kMaxListItems));
    lesson.alternative = static_cast<int>(view.integer("view", 0, 0, 64));
    lesson.batch = static_cast<int>(view.integer("batch_item", 0, 0, kMaxListItems));
    lesson.focusedHead = static_cast<int>(view.integer("head", -1, -1, kMaxListItems));
    const std::string range = view.string("colour_range", "per_head");
    if (range != "per_head" && range != "shared")
        view.fail("colour_range", "per_head or shared", io::JsonValue(range));
    lesson.sharedColourRange = range == "shared";
    lesson.numbersInCells = view.boolean("numbers_in_cells", false);
    return lesson;
}

} // namespace attnviz::lesson
