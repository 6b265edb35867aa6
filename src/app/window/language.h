#pragma once

#include <QString>

#include <array>

namespace attnviz::app {

/// A language the interface speaks: its Qt locale code (the suffix of its catalogue,
/// resources/translations/attnviz_<code>.ts, and the folder of its lesson texts,
/// resources/<code>/) and its name as its speakers write it, for the menu.
struct Language {
    const char* code;
    const char* nativeName;
};

/// Every language of the interface; English is the source language and needs no catalogue.
inline constexpr std::array kLanguages{
    Language{"en", "English"},
    Language{"zh_CN", "简体中文"},
};

/// The language of the system locale when the interface speaks it (any Chinese locale gets
/// Simplified Chinese), else English.
QString systemLanguage();

/// Makes `code` the interface's language: AttnViz's catalogue and Qt's own (standard buttons,
/// dialogs) are installed, and it becomes QLocale's default, which also picks the lesson texts
/// (render::readTextResource). An unknown code means English. Widgets built afterwards speak it.
void applyLanguage(const QString& code);

/// The code applied last ("en" before any).
QString currentLanguage();

} // namespace attnviz::app
