#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz::io {

// GPT-2's byte alphabet (bytes_to_unicode), which every byte-level BPE spells its vocabulary in:
// printable Latin-1 bytes stand for themselves and the other 68 bytes take U+0100 onwards in
// byte order, so that every byte has a visible, non-space symbol ("Ġ" is a space, "Ċ" a newline).

/// The symbol of each byte.
const std::array<char32_t, 256>& byteSymbols();

/// Appends `bytes` spelled in the byte alphabet (one symbol per byte, any bytes accepted).
void appendByteSymbols(std::string& out, std::string_view bytes);

/// The bytes a token spelled in the byte alphabet stands for; nullopt when a character of it is no
/// byte symbol (an added token such as "<|endoftext|>" may have one).
std::optional<std::string> bytesOfSymbols(std::string_view token);

} // namespace attnviz::io
