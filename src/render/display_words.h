#pragma once

#include <QString>

#include <string_view>

namespace attnviz::render {

/// The words the lesson layer writes into titles, axis names, shape lines and mask notes
/// ("head 2 · softmax", "query", "weights (batch=1, head=4, …)", "the output of encoder layer 0")
/// in the interface's language. The lesson layer stays in English because the CLI and exported
/// file names speak English to scripts; the screen translates here, with one table of phrases.
/// Tokens are never translated: a token "key" is the text typed, not the axis. Pass tokens
/// separately, or in “quotes”, which this leaves as they are.
/// Without a translator installed (English, attnviz-cli) the text is returned unchanged.
QString displayed(std::string_view english);

} // namespace attnviz::render
