#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz::io {

/// A regular expression as Hugging Face's tokenizers compile and run it: Oniguruma (the onig
/// crate's Regex::new: Oniguruma's own syntax, UTF-8, no options) and onig's find_iter for all
/// matches. Split patterns of tokenizer.json files are written for exactly this engine (\p{L},
/// (?i:...), lookaheads), so AttnViz runs the same one rather than imitating it.
///
/// Text given to it must be valid UTF-8 (Oniguruma's behaviour is undefined otherwise); the
/// tokenizer pipeline cuts invalid bytes out before any pattern sees the text.
class OnigurumaRegex {
public:
    /// A match as byte offsets [first, second) into the searched text.
    using Match = std::pair<std::size_t, std::size_t>;

    /// Compiles `pattern`. Throws FormatError with one sentence naming `where` ("tokenizer.json's
    /// Split pattern") when the pattern is not UTF-8 or does not compile, with Oniguruma's reason.
    OnigurumaRegex(std::string_view pattern, std::string_view where);
    ~OnigurumaRegex();
    OnigurumaRegex(const OnigurumaRegex&) = delete;
    OnigurumaRegex& operator=(const OnigurumaRegex&) = delete;

    /// Every match in `utf8`, in order, as onig's find_iter yields them (an empty match right after
    /// a match is skipped). A pattern that backtracks without end on this text is stopped:
    /// Oniguruma's retry limits bound each search and `deadline` the whole call (one deadline
    /// for every pattern an encode runs); then engine::InputError names this pattern in one
    /// sentence.
    std::vector<Match> findAll(std::string_view utf8,
                               std::chrono::steady_clock::time_point deadline) const;

    /// Whether the pattern matches `utf8` starting exactly at its first byte.
    bool matchesAtStart(std::string_view utf8) const;

private:
    struct Compiled;
    std::unique_ptr<Compiled> m_compiled;
    std::string m_where; ///< what the messages call it: "tokenizer.json's Replace pattern"
};

} // namespace attnviz::io
