#include "io/tokenizer/bert_pre_tokenizer.h"

#include "io/tokenizer/unicode.h"

namespace attnviz::io {

std::vector<std::string> bertWords(std::string_view text)
{
    // pass 1: normalise character by character; every step of BertNormalizer is per character
    std::string normalized;
    normalized.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        const Utf8Char c = decodeUtf8(text, pos);
        appendBertNormalized(normalized, c.codePoint);
        pos += c.length;
    }

    // pass 2: split at whitespace (which the normaliser has made plain spaces) and around
    // punctuation
    std::vector<std::string> words;
    std::string word;
    const auto finishWord = [&] {
        if (!word.empty())
            words.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t pos = 0; pos < normalized.size();) {
        const Utf8Char c = decodeUtf8(normalized, pos);
        const std::string_view bytes = std::string_view(normalized).substr(pos, c.length);
        pos += c.length;
        if (isWhitespace(c.codePoint)) {
            finishWord();
        } else if (isBertPunctuation(c.codePoint)) {
            finishWord();
            words.emplace_back(bytes);
        } else {
            word += bytes;
        }
    }
    finishWord();
    return words;
}

} // namespace attnviz::io
