#include "render/display_words.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <mutex>
#include <vector>

namespace attnviz::render {
namespace {

// Longest phrases first: a sentence is translated whole before its words are. {1}, {2} stand
// for numbers, which the translation places where its grammar wants them.
constexpr const char* kContext = "DisplayWords";
constexpr const char* kPhrases[] = {
    QT_TRANSLATE_NOOP("DisplayWords",
                      "A causal mask on cross-attention compares positions of two "
                      "different sequences by their index: query i loses the "
                      "source positions after i for no reason. Cross-attention "
                      "needs no causal mask."),
    // The playground's settings problems, the sentences a class meets when it tries D = 16, H = 5.
    QT_TRANSLATE_NOOP("DisplayWords",
                      "D = {1} cannot be split into {2} equal heads: choose D as a "
                      "multiple of H, or set d_k yourself."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "D = {1} cannot be split into {2} equal heads: choose D as a "
                      "multiple of H, or set d_v yourself."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Sliding window of {1} keys: query i sees keys i − {2} … i only, so each "
                      "row's allowed cells are a band along the diagonal; information from "
                      "further back reaches it through the layers below."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "A sliding window limits how far back a causal query looks: choose the "
                      "causal mask, or set the window to 0."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "θ of the rotary positions must be a number above 1, at most 1e9 (Llama "
                      "uses 10000 or 500000)."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Rotary positions turn the features of a head in pairs: d_k = {1} must be "
                      "even."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "{1} K/V heads cannot serve {2} query heads in equal groups: choose a "
                      "divisor of H."),
    QT_TRANSLATE_NOOP("DisplayWords", "no positions added (rotary: q and k turn by position)"),
    QT_TRANSLATE_NOOP("DisplayWords", "The number of K/V heads {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "The sliding window {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "K/V head {1} (heads {2}–{3})"),
    QT_TRANSLATE_NOOP("DisplayWords", "K/V head {1} (head {2})"),
    QT_TRANSLATE_NOOP("DisplayWords", "head {1} (K/V head {2})"),
    QT_TRANSLATE_NOOP("DisplayWords", "K/V head {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "+ bias"),
    QT_TRANSLATE_NOOP("DisplayWords", "Type a sentence: there is nothing to attend over."),
    QT_TRANSLATE_NOOP("DisplayWords", "Batch item {1} has no tokens; remove the empty line."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Batch item {1} has {2} characters, more than the {3} a sentence may have."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Batch item {1} has a word of {2} characters, more than the {3} a word may "
                      "have."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "There are {1} sentences, more than the {2} the playground takes."),
    // The valid lengths typed in D2L's notation (lesson::parseValidLengths).
    QT_TRANSLATE_NOOP("DisplayWords",
                      "A valid length of {1} is more than the {2} keys of batch item {3}: a "
                      "length counts real keys, from 0 up to the sentence's length."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The row of batch item {1} in the valid lengths has {2} lengths; per-query "
                      "lengths need one per query ({3})."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The valid lengths give {1} items but there are {2} sentences: write one "
                      "length per sentence."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The valid lengths give {1} items but there are {2} sentences: write one "
                      "row per sentence."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The valid lengths give {1} item but there are {2} sentences: write one "
                      "length per sentence."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The valid lengths give {1} items but there is {2} sentence: write one "
                      "length per sentence."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Valid lengths nest at most two levels of brackets, as in [[1, 3], [2, "
                      "4]]."),
    QT_TRANSLATE_NOOP("DisplayWords", "A ] in the valid lengths has no [ to close."),
    QT_TRANSLATE_NOOP("DisplayWords", "A [ in the valid lengths is never closed."),
    QT_TRANSLATE_NOOP("DisplayWords", "A valid length cannot be negative."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Valid lengths are whole numbers separated by commas, e.g. 3, 2."),
    QT_TRANSLATE_NOOP("DisplayWords", "Type one valid length per sentence, e.g. 3, 2."),
    QT_TRANSLATE_NOOP("DisplayWords", "A sentence has more than {1} tokens."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "Cross-attention needs one key/value sentence per query "
                      "sentence ({1}), not {2}."),
    QT_TRANSLATE_NOOP("DisplayWords", "The key/value sentence of batch item {1} has no tokens."),
    QT_TRANSLATE_NOOP("DisplayWords", "The model width D must be at least 1"),
    QT_TRANSLATE_NOOP("DisplayWords", "The model width D {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "The number of heads H must be at least 1"),
    QT_TRANSLATE_NOOP("DisplayWords", "The number of heads H {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "The output width {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "The output width must be at least 1"),
    QT_TRANSLATE_NOOP("DisplayWords", "d_k must be at least 1"),
    QT_TRANSLATE_NOOP("DisplayWords", "d_v must be at least 1"),
    QT_TRANSLATE_NOOP("DisplayWords", "d_k {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "d_v {1} is above the limit of {2}"),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "The drawn mask has a cell outside the {1} × {2} score "
                      "matrix; clear it and draw again."),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "query i of an item sees the keys before its own length; "
                      "each row of the mask has its own cut."),
    QT_TRANSLATE_NOOP("DisplayWords", "Keys at or after an item's length are blocked."),
    QT_TRANSLATE_NOOP("DisplayWords", "Valid lengths per query"),
    QT_TRANSLATE_NOOP("DisplayWords", "Valid lengths"),
    QT_TRANSLATE_NOOP("DisplayWords", "item {1} sees keys {2}–{3}"),
    QT_TRANSLATE_NOOP("DisplayWords", "item {1} sees key {2}"),
    QT_TRANSLATE_NOOP("DisplayWords", "item {1} sees no key"),
    QT_TRANSLATE_NOOP("DisplayWords",
                      "the stream after the masked self-attention of decoder layer {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "the output of encoder layer {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "the output of decoder layer {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "encoder embedding + position"),
    QT_TRANSLATE_NOOP("DisplayWords", "decoder embedding + position"),
    QT_TRANSLATE_NOOP("DisplayWords", "the encoder's output"),
    QT_TRANSLATE_NOOP("DisplayWords", "the module: {1} ({2} without biases)"),
    QT_TRANSLATE_NOOP("DisplayWords", "{1} parameters"),
    QT_TRANSLATE_NOOP("DisplayWords", "(nothing: the scores stay as they are)"),
    QT_TRANSLATE_NOOP("DisplayWords", "(the number of heads)"),
    QT_TRANSLATE_NOOP("DisplayWords", "all {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "{1} bytes"),
    QT_TRANSLATE_NOOP("DisplayWords", "{1} tokens"),
    QT_TRANSLATE_NOOP("DisplayWords", "{1} keys"),
    QT_TRANSLATE_NOOP("DisplayWords", "{1} key"),
    QT_TRANSLATE_NOOP("DisplayWords", "key {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "none"),
    QT_TRANSLATE_NOOP("DisplayWords", "encoder-decoder"),
    QT_TRANSLATE_NOOP("DisplayWords", "decoder-only"),
    QT_TRANSLATE_NOOP("DisplayWords", "encoder-only"),
    QT_TRANSLATE_NOOP("DisplayWords", "pre-norm"),
    QT_TRANSLATE_NOOP("DisplayWords", "post-norm"),
    QT_TRANSLATE_NOOP("DisplayWords", "token embedding"),
    QT_TRANSLATE_NOOP("DisplayWords", "positional encoding (off)"),
    QT_TRANSLATE_NOOP("DisplayWords", "positional encoding"),
    QT_TRANSLATE_NOOP("DisplayWords", "(switched off)"),
    QT_TRANSLATE_NOOP("DisplayWords", "keys, values"),
    QT_TRANSLATE_NOOP("DisplayWords", "cached K (turned)"),
    QT_TRANSLATE_NOOP("DisplayWords", "cached K"),
    QT_TRANSLATE_NOOP("DisplayWords", "cached V"),
    QT_TRANSLATE_NOOP("DisplayWords", "angle = position × frequency (radians, wrapped)"),
    QT_TRANSLATE_NOOP("DisplayWords", "queries"),
    QT_TRANSLATE_NOOP("DisplayWords", "head {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "layer {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "batch {1}"),
    QT_TRANSLATE_NOOP("DisplayWords", "query"),
    QT_TRANSLATE_NOOP("DisplayWords", "key"),
    QT_TRANSLATE_NOOP("DisplayWords", "tile"),
    QT_TRANSLATE_NOOP("DisplayWords", "pair"),
    QT_TRANSLATE_NOOP("DisplayWords", "token"),
    QT_TRANSLATE_NOOP("DisplayWords", "feature"),
    QT_TRANSLATE_NOOP("DisplayWords", "position"),
    QT_TRANSLATE_NOOP("DisplayWords", "head"),
    QT_TRANSLATE_NOOP("DisplayWords", "batch"),
    QT_TRANSLATE_NOOP("DisplayWords", "scores"),
    QT_TRANSLATE_NOOP("DisplayWords", "scaled"),
    QT_TRANSLATE_NOOP("DisplayWords", "biased"),
    QT_TRANSLATE_NOOP("DisplayWords", "masked"),
    QT_TRANSLATE_NOOP("DisplayWords", "weights"),
    QT_TRANSLATE_NOOP("DisplayWords", "context"),
    QT_TRANSLATE_NOOP("DisplayWords", "concat"),
    QT_TRANSLATE_NOOP("DisplayWords", "output"),
};

struct Rule {
    QRegularExpression english;
    QString translated; ///< with {1}, {2} where the numbers go
};

// A number as the lesson layer writes it, with digit-group separators ("1,088", "1 088").
const QString kNumber = QStringLiteral("(\\d(?:[\\d,\\x{202F}\\x{2009} ]*\\d)?)");

Rule ruleFor(const char* phrase)
{
    QString pattern = QRegularExpression::escape(QString::fromUtf8(phrase));
    for (int n = 1; n <= 3; ++n)
        pattern.replace(QRegularExpression::escape(QStringLiteral("{%1}").arg(n)), kNumber);
    // Whole words only: "key" is not the start of "keys", nor part of "W_key".
    return {QRegularExpression(QStringLiteral("(?<![A-Za-z_])") + pattern +
                               QStringLiteral("(?![A-Za-z_])")),
            QCoreApplication::translate(kContext, phrase)};
}

QString translatedPart(QString out, const std::vector<Rule>& rules)
{
    for (const Rule& rule : rules) {
        if (!out.contains(rule.english))
            continue;
        QString result;
        qsizetype done = 0;
        for (auto it = rule.english.globalMatch(out); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            QString replacement = rule.translated;
            for (int n = 1; n <= m.lastCapturedIndex(); ++n)
                replacement.replace(QStringLiteral("{%1}").arg(n), m.captured(n));
            result += out.mid(done, m.capturedStart() - done) + replacement;
            done = m.capturedEnd();
        }
        out = result + out.mid(done);
    }
    return out;
}

} // namespace

QString displayed(std::string_view english)
{
    const QString text = QString::fromUtf8(english.data(), static_cast<qsizetype>(english.size()));
    // The translation of one word tells whether a language other than English is installed and
    // which: the rules are rebuilt when it changes (the menu switches language at run time).
    const QString probe = QCoreApplication::translate(kContext, "query");
    if (probe == QLatin1String("query"))
        return text;
    static std::mutex guard;
    static QString builtFor;
    static std::vector<Rule> rules;
    std::lock_guard lock(guard);
    if (builtFor != probe) {
        rules.clear();
        for (const char* phrase : kPhrases)
            rules.push_back(ruleFor(phrase));
        builtFor = probe;
    }
    // Text in “quotes” is a token, the user's own words: it is never translated.
    static const QRegularExpression quoted(QStringLiteral("“[^”]*”"));
    QString out;
    qsizetype from = 0;
    for (auto it = quoted.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += translatedPart(text.mid(from, m.capturedStart() - from), rules) + m.captured();
        from = m.capturedEnd();
    }
    return out + translatedPart(text.mid(from), rules);
}

} // namespace attnviz::render
