#include "crux/base/utf8.h"

namespace crux::utf8 {

int SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;  // continuation byte or overlong lead
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF5) return 4;
  return 0;
}

size_t CompletePrefixLength(std::string_view text) {
  const size_t size = text.size();
  // Look back over at most three bytes for the lead byte of the last character.
  for (size_t back = 1; back <= 3 && back <= size; ++back) {
    const auto byte = static_cast<unsigned char>(text[size - back]);
    if ((byte & 0xC0) == 0x80) continue;  // continuation: keep looking for the lead
    const int need = SequenceLength(byte);
    if (need == 0 || static_cast<size_t>(need) <= back) return size;  // complete or invalid
    // The lead wants more bytes than are here. Hold it only if the bytes so far are valid
    // continuations (they are, by the loop) so the character can still complete.
    return size - back;
  }
  return size;
}

bool IsValid(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int need = SequenceLength(lead);
    if (need == 0 || i + need > text.size()) return false;
    for (int k = 1; k < need; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    if (need == 3) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      if (lead == 0xE0 && second < 0xA0) return false;   // overlong
      if (lead == 0xED && second >= 0xA0) return false;  // surrogate
    } else if (need == 4) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      if (lead == 0xF0 && second < 0x90) return false;   // overlong
      if (lead == 0xF4 && second >= 0x90) return false;  // > U+10FFFF
    }
    i += need;
  }
  return true;
}

void AppendCodePoint(std::string& out, char32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

CharSpan NextChar(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  const int need = SequenceLength(lead);
  if (need == 0) return {1, false};
  if (need == 1) return {1, true};
  // The second byte's range depends on the lead (no overlongs, surrogates or > U+10FFFF);
  // later bytes are plain continuations.
  unsigned char low = 0x80, high = 0xBF;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  for (int k = 1; k < need; ++k) {
    if (static_cast<size_t>(k) >= text.size()) return {static_cast<uint8_t>(k), false};
    const auto byte = static_cast<unsigned char>(text[k]);
    const bool ok = k == 1 ? byte >= low && byte <= high : (byte & 0xC0) == 0x80;
    if (!ok) return {static_cast<uint8_t>(k), false};
  }
  return {static_cast<uint8_t>(need), true};
}

void AppendRepaired(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    // Runs of ASCII and of well-formed characters are copied in one append.
    const size_t start = i;
    CharSpan span{0, true};
    while (i < text.size()) {
      if (static_cast<unsigned char>(text[i]) < 0x80) {
        ++i;
        continue;
      }
      span = NextChar(text.substr(i));
      if (!span.valid) break;
      i += span.length;
    }
    out.append(text.substr(start, i - start));
    if (i < text.size()) {
      out.append("\xEF\xBF\xBD");
      i += span.length;
    }
  }
}

}  // namespace crux::utf8
