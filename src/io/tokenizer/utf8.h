#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz::io {

/// The characters of a UTF-8 text, each as its own string. A byte that does not start a valid
/// sequence (or a sequence cut short by the end of the text) stands alone, so nothing is lost
/// and nothing is read past the end. Every character tokenizer of AttnViz splits with this.
std::vector<std::string> splitUtf8Characters(std::string_view text);

/// How many characters splitUtf8Characters finds in a text, without splitting it.
std::size_t countUtf8Characters(std::string_view text);

/// The text's length in UTF-16 units, as a Qt text field counts it once decoded: two for a
/// character outside the Basic Multilingual Plane, one for any other, and one for each byte
/// that starts no character (Qt shows it as a U+FFFD).
std::size_t countUtf16Units(std::string_view text);

/// The whitespace-separated words of a text (ASCII space, tab, newline, carriage return, form
/// feed and vertical tab).
std::vector<std::string> splitWords(std::string_view text);

} // namespace attnviz::io
