#pragma once

#include <QString>

#include <string>

namespace attnviz::render {

/// A checkpoint's description in the interface's language. Descriptions are written by whoever
/// made the checkpoint (config.json) or by the layout that read it, in English; a translation in
/// resources/<language>/models/ names the English text it translates (its "source" field) and is
/// used only while that text is unchanged, so an edited description never shows a stale one.
/// Returns `english` itself where no translation matches.
QString localisedModelDescription(const std::string& english);

} // namespace attnviz::render
