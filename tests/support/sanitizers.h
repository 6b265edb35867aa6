#pragma once

// ATTNVIZ_UNDER_ASAN is defined when the code is built with AddressSanitizer (the asan preset),
// for the tests whose bounds on memory differ there: its shadow memory and its quarantine of
// freed blocks make a process's peak larger, and grow with churn. GCC says so with
// __SANITIZE_ADDRESS__, clang (the asan preset's compiler) with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define ATTNVIZ_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNVIZ_UNDER_ASAN 1
#endif
#endif
