#include "io/tokenizer/post_processor.h"

#include "io/safetensors.h"
#include "io/tokenizer/tokenizer_json.h"

namespace attnviz::io {
namespace {

/// The ids TemplateProcessing's special_tokens give the name `name`.
std::vector<int> specialIds(const JsonValue& processor, const std::string& name, int vocabSize)
{
    const JsonValue* specials = processor.find("special_tokens");
    const JsonValue* entry = specials ? specials->find(name) : nullptr;
    const JsonValue* ids = entry ? entry->find("ids") : nullptr;
    if (!ids || !ids->isArray())
        throw FormatError("tokenizer.json's TemplateProcessing names the special token \"" +
                          printable(name) +
                          "\" without its ids; expected it in special_tokens with \"ids\"");
    std::vector<int> result;
    for (const JsonValue& id : ids->asArray()) {
        if (!id.isInteger() || id.asInteger() < 0 || id.asInteger() >= vocabSize)
            throw FormatError("tokenizer.json's TemplateProcessing gives \"" + printable(name) +
                              "\" the id " + id.describe() + "; expected one from 0 to " +
                              std::to_string(vocabSize - 1));
        result.push_back(static_cast<int>(id.asInteger()));
    }
    return result;
}

SpecialTokenTemplate readTemplate(const JsonValue& processor, int vocabSize)
{
    const JsonValue* single = processor.find("single");
    if (!single || !single->isArray())
        throw FormatError("tokenizer.json's TemplateProcessing has no \"single\" array; expected "
                          "the template of one text");
    SpecialTokenTemplate result;
    bool sequenceSeen = false;
    for (const JsonValue& item : single->asArray()) {
        const JsonValue* special = item.find("SpecialToken");
        const JsonValue* sequence = item.find("Sequence");
        const JsonValue* specialName = special ? special->find("id") : nullptr;
        const JsonValue* sequenceName = sequence ? sequence->find("id") : nullptr;
        if (specialName && specialName->isString()) {
            std::vector<int>& side = sequenceSeen ? result.after : result.before;
            for (const int id : specialIds(processor, specialName->asString(), vocabSize))
                side.push_back(id);
        } else if (sequenceName && sequenceName->isString() && sequenceName->asString() == "A" &&
                   !sequenceSeen) {
            sequenceSeen = true;
        } else {
            throw FormatError("tokenizer.json's TemplateProcessing has the item " +
                              item.describe() +
                              " in its single template; expected SpecialToken items around one "
                              "Sequence A");
        }
    }
    if (!sequenceSeen)
        throw FormatError("tokenizer.json's TemplateProcessing single template has no Sequence "
                          "A; expected the text's place in it");
    return result;
}

void add(const JsonValue& processor, int vocabSize, SpecialTokenTemplate& result)
{
    const std::string type = stepTypeOf(processor);
    if (type == "ByteLevel")
        return; // trims offsets only
    if (type == "TemplateProcessing") {
        // a later step wraps what the earlier ones made
        SpecialTokenTemplate outer = readTemplate(processor, vocabSize);
        outer.before.insert(outer.before.end(), result.before.begin(), result.before.end());
        result.after.insert(result.after.end(), outer.after.begin(), outer.after.end());
        result.before = std::move(outer.before);
        return;
    }
    if (type == "Sequence") {
        const JsonValue* steps = processor.find("processors");
        if (!steps || !steps->isArray())
            throw FormatError("tokenizer.json's Sequence post-processor has no \"processors\" "
                              "array; expected the list of its steps");
        for (const JsonValue& step : steps->asArray())
            add(step, vocabSize, result);
        return;
    }
    throw FormatError("tokenizer.json's post-processor is " + type +
                      "; AttnViz reads TemplateProcessing, ByteLevel and Sequence of these, or "
                      "none");
}

} // namespace

SpecialTokenTemplate readPostProcessor(const JsonValue* postProcessor, int vocabSize)
{
    SpecialTokenTemplate result;
    if (postProcessor && !postProcessor->isNull())
        add(*postProcessor, vocabSize, result);
    return result;
}

} // namespace attnviz::io
