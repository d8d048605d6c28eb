// The hand-written format checkers the validator used before formats became automata, kept
// as an independent oracle: regex_test.cc checks that each format's DFA (with FormatMaxLength)
// accepts exactly what these accept, except email's bound (254 bytes in all, where these
// bound the local part by 64 and the domain by 253). Written from RFC 3339, 5321/1123, 4122,
// 3986 and 4291; each is a single forward scan.
#pragma once

#include <cstddef>
#include <string_view>

namespace crux::constrain::reference {

inline bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
inline bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Reads `count` digits at `text[pos]` as a number; -1 when they are not all digits.
inline int Digits(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) return -1;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (!IsDigit(text[i])) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

inline bool IsDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  const int year = Digits(text, 0, 4);
  const int month = Digits(text, 5, 2);
  const int day = Digits(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// RFC 3339 full-time: HH:MM:SS[.frac](Z|+HH:MM|-HH:MM); second 60 is a leap second.
inline bool IsTime(std::string_view text) {
  if (text.size() < 9 || text[2] != ':' || text[5] != ':') return false;
  const int hour = Digits(text, 0, 2);
  const int minute = Digits(text, 3, 2);
  const int second = Digits(text, 6, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return false;
  }
  size_t pos = 8;
  if (text[pos] == '.') {
    const size_t start = ++pos;
    while (pos < text.size() && IsDigit(text[pos]))
      ++pos;
    if (pos == start) return false;
  }
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) return pos + 1 == text.size();
  if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return false;
  const std::string_view offset = text.substr(pos + 1);
  if (offset.size() != 5 || offset[2] != ':') return false;
  const int offset_hour = Digits(offset, 0, 2);
  const int offset_minute = Digits(offset, 3, 2);
  return offset_hour >= 0 && offset_hour <= 23 && offset_minute >= 0 && offset_minute <= 59;
}

inline bool IsDateTime(std::string_view text) {
  if (text.size() < 11 || (text[10] != 'T' && text[10] != 't')) return false;
  return IsDate(text.substr(0, 10)) && IsTime(text.substr(11));
}

inline bool IsHostname(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  size_t label = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '.') {
      if (label == 0 || label > 63 || text[i - 1] == '-') return false;
      label = 0;
      continue;
    }
    const char c = text[i];
    if (!IsAlpha(c) && !IsDigit(c) && c != '-') return false;
    if (label == 0 && c == '-') return false;
    ++label;
  }
  return true;
}

// Dot-atom local part (RFC 5322 atext) @ hostname.
inline bool IsEmail(std::string_view text) {
  const size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0 || at > 64) return false;
  const std::string_view local = text.substr(0, at);
  constexpr std::string_view kAtext = "!#$%&'*+-/=?^_`{|}~";
  char previous = '.';
  for (char c : local) {
    if (c == '.') {
      if (previous == '.') return false;
    } else if (!IsAlpha(c) && !IsDigit(c) && kAtext.find(c) == std::string_view::npos) {
      return false;
    }
    previous = c;
  }
  return previous != '.' && IsHostname(text.substr(at + 1));
}

inline bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !IsHex(text[i])) return false;
  }
  return true;
}

// scheme ":" then RFC 3986 characters (unreserved, reserved, valid %XX escapes).
inline bool IsUri(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || !IsAlpha(text[0])) return false;
  for (size_t i = 1; i < colon; ++i) {
    const char c = text[i];
    if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  constexpr std::string_view kAllowed = "-._~:/?#[]@!$&'()*+,;=";
  for (size_t i = colon + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size() || !IsHex(text[i + 1]) || !IsHex(text[i + 2])) return false;
      i += 2;
    } else if (!IsAlpha(c) && !IsDigit(c) && kAllowed.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

inline bool IsIpv4(std::string_view text) {
  int parts = 0;
  size_t pos = 0;
  while (parts < 4) {
    size_t end = pos;
    while (end < text.size() && IsDigit(text[end]))
      ++end;
    const size_t length = end - pos;
    if (length == 0 || length > 3 || (length > 1 && text[pos] == '0')) return false;
    if (Digits(text, pos, length) > 255) return false;
    ++parts;
    if (parts == 4) return end == text.size();
    if (end >= text.size() || text[end] != '.') return false;
    pos = end + 1;
  }
  return false;
}

// Up to eight groups of 1-4 hex digits, at most one `::`, an optional IPv4 tail worth two.
inline bool IsIpv6(std::string_view text) {
  if (text.size() < 2 || text.size() > 45) return false;
  int groups = 0;
  bool compressed = false;
  size_t pos = 0;
  if (text.substr(0, 2) == "::") {
    compressed = true;
    pos = 2;
    if (pos == text.size()) return true;
  }
  while (pos < text.size()) {
    size_t end = pos;
    while (end < text.size() && IsHex(text[end]))
      ++end;
    if (end < text.size() && text[end] == '.') {
      if (!IsIpv4(text.substr(pos))) return false;
      groups += 2;
      break;
    }
    if (end == pos || end - pos > 4) return false;
    ++groups;
    if (end == text.size()) break;
    if (text[end] != ':' || end + 1 == text.size()) return false;
    pos = end + 1;
    if (text[pos] == ':') {
      if (compressed) return false;
      compressed = true;
      if (++pos == text.size()) break;
    }
  }
  return compressed ? groups < 8 : groups == 8;
}

}  // namespace crux::constrain::reference
