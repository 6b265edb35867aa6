#include "io/tokenizer/oniguruma_regex.h"

#include "engine/input_error.h"
#include "io/file_error.h"
#include "io/safetensors.h"
#include "io/tokenizer/unicode.h"

#include <oniguruma.h>

#include <mutex>

namespace attnviz::io {
namespace {

/// Oniguruma's own default per match (the onig crate keeps it): enough for a backtracking run
/// over a megabyte of spaces, small enough to stop an exponential pattern within a second.
constexpr unsigned long kRetryLimitInMatch = 10'000'000;
/// Per search, over all the start positions it tries: this plus kRetriesPerByte per byte left.
constexpr unsigned long kRetryLimitInSearch = 10'000'000;
constexpr unsigned long kRetriesPerByte = 100;

const OnigUChar* bytes(std::string_view text)
{
    return reinterpret_cast<const OnigUChar*>(text.data());
}

/// onig_new is not thread-safe (the onig crate serialises it too); searching is.
std::mutex& compileMutex()
{
    static std::mutex mutex;
    return mutex;
}

void initialiseOniguruma()
{
    static const bool initialised = [] {
        OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
        return onig_initialize(encodings, 1) == ONIG_NORMAL;
    }();
    (void)initialised;
}

struct RegionDeleter {
    void operator()(OnigRegion* region) const { onig_region_free(region, 1); }
};
struct MatchParamDeleter {
    void operator()(OnigMatchParam* param) const { onig_free_match_param(param); }
};

} // namespace

struct OnigurumaRegex::Compiled {
    OnigRegex regex = nullptr;
    ~Compiled()
    {
        if (regex)
            onig_free(regex);
    }
};

OnigurumaRegex::OnigurumaRegex(std::string_view pattern, std::string_view where)
    : m_compiled(std::make_unique<Compiled>())
    , m_where(where)
{
    const std::string place(where);
    if (!isValidUtf8(pattern))
        throw FormatError(place + " \"" + printable(pattern) + "\" is not UTF-8; expected a " +
                          "regular expression in UTF-8");
    initialiseOniguruma();
    OnigErrorInfo info{};
    int status;
    {
        const std::lock_guard lock(compileMutex());
        // ONIG_SYNTAX_ONIGURUMA is what the onig crate's Syntax::default() is in Oniguruma 6.
        status = onig_new(&m_compiled->regex, bytes(pattern), bytes(pattern) + pattern.size(),
                          ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_ONIGURUMA, &info);
    }
    if (status != ONIG_NORMAL) {
        m_compiled->regex = nullptr;
        OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
        const int length = onig_error_code_to_str(message, status, &info);
        throw FormatError(place + " \"" + printable(pattern, 120) + "\" does not compile (" +
                          printable(std::string_view(reinterpret_cast<const char*>(message),
                                                     length > 0 ? length : 0)) +
                          "); expected a regular expression Oniguruma accepts");
    }
}

OnigurumaRegex::~OnigurumaRegex() = default;

std::vector<OnigurumaRegex::Match> OnigurumaRegex::findAll(
    std::string_view utf8, std::chrono::steady_clock::time_point deadline) const
{
    const std::unique_ptr<OnigRegion, RegionDeleter> region(onig_region_new());
    const std::unique_ptr<OnigMatchParam, MatchParamDeleter> param(onig_new_match_param());
    if (!region || !param)
        throw std::bad_alloc();
    onig_initialize_match_param(param.get());
    onig_set_retry_limit_in_match_of_match_param(param.get(), kRetryLimitInMatch);

    const OnigUChar* begin = bytes(utf8);
    const OnigUChar* end = begin + utf8.size();
    std::vector<Match> matches;
    // onig's FindMatches: search from the end of the last match; after an empty match step one
    // character on, and drop an empty match that directly follows a non-empty one.
    std::size_t lastEnd = 0;
    bool skipNextEmpty = false;
    while (lastEnd <= utf8.size()) {
        if (std::chrono::steady_clock::now() > deadline)
            throw engine::InputError(printable(m_where) +
                                     " took too long on this text (it backtracks too much); "
                                     "shorten the text.");
        onig_set_retry_limit_in_search_of_match_param(
            param.get(), kRetryLimitInSearch + kRetriesPerByte * (utf8.size() - lastEnd));
        onig_region_clear(region.get());
        const int found = onig_search_with_param(m_compiled->regex, begin, end, begin + lastEnd,
                                                 end, region.get(), ONIG_OPTION_NONE, param.get());
        if (found == ONIG_MISMATCH)
            break;
        if (found < 0)
            throw engine::InputError(printable(m_where) +
                                     " gave up on this text (it backtracks too much); shorten "
                                     "the text.");
        const auto start = static_cast<std::size_t>(region->beg[0]);
        const auto stop = static_cast<std::size_t>(region->end[0]);
        lastEnd = stop;
        if (start == stop) {
            lastEnd += stop < utf8.size() ? decodeUtf8(utf8, stop).length : 1;
            if (skipNextEmpty) {
                skipNextEmpty = false;
                continue;
            }
        } else {
            skipNextEmpty = true;
        }
        matches.emplace_back(start, stop);
    }
    return matches;
}

bool OnigurumaRegex::matchesAtStart(std::string_view utf8) const
{
    const std::unique_ptr<OnigRegion, RegionDeleter> region(onig_region_new());
    if (!region)
        throw std::bad_alloc();
    const OnigUChar* begin = bytes(utf8);
    return onig_match(m_compiled->regex, begin, begin + utf8.size(), begin, region.get(),
                      ONIG_OPTION_NONE) >= 0;
}

} // namespace attnviz::io
