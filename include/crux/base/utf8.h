// UTF-8 helpers for streaming text: character boundaries and validation.
#pragma once

#include <cstddef>
#include <cstdint>
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

// The character at the front of `text` (not empty): `length` bytes, well-formed when `valid`.
// When not, `length` is the maximal ill-formed subpart there (1-3 bytes: the longest prefix
// of a well-formed sequence, or the one byte that starts none), which one U+FFFD replaces.
struct CharSpan {
  uint8_t length;
  bool valid;
};
CharSpan NextChar(std::string_view text);

// Appends `text` with every maximal ill-formed subpart replaced by U+FFFD (Unicode's
// recommended practice, and what nlohmann::json's error_handler_t::replace writes), so
// repairing pieces cut on character boundaries equals repairing the whole.
void AppendRepaired(std::string& out, std::string_view text);

}  // namespace crux::utf8
