// UTF-8 helpers for streaming text: character boundaries and validation.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace crux::utf8 {

// Number of bytes of the character whose lead byte is `lead`: 1-4, or 0 for a continuation
// byte or an invalid lead.
int SequenceLength(unsigned char lead);

// Length of the longest prefix of `text` that does not end inside a possibly unfinished
// multi-byte character. Bytes that can never complete a character (invalid sequences) count
// as complete, so they are never held forever. At most 3 bytes are cut off.
size_t CompletePrefixLength(std::string_view text);

// True when `text` is entirely well-formed UTF-8.
bool IsValid(std::string_view text);

// Appends the UTF-8 encoding of `code_point` (replacement character when out of range).
void AppendCodePoint(std::string& out, char32_t code_point);

}  // namespace crux::utf8
