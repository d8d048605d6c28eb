// The JSON string lexer shared by the recogniser and the vocabulary's string classes (private
// to constrain/): UTF-8 validation (no overlongs, no surrogates, at most U+10FFFF), escapes,
// and surrogate pairs in \u escapes. Decoded bytes go to a callback with a flag that is true
// on the first byte of each code point.
#pragma once

#include <cstdint>

namespace crux::constrain::grammar {

// String lexer states (Frame::b of strings and keys).
enum Lex : uint32_t {
  kLexNormal,
  kLexCont1,    // one continuation byte left
  kLexCont2,    // two left, next 80..BF
  kLexCont2E0,  // two left, next A0..BF (no overlong)
  kLexCont2ED,  // two left, next 80..9F (no surrogates)
  kLexCont3,    // three left, next 80..BF
  kLexCont3F0,  // three left, next 90..BF
  kLexCont3F4,  // three left, next 80..8F (at most U+10FFFF)
  kLexEscape,   // after a backslash
  kLexHex0,     // after \u, no hex digit yet
  kLexHex1,
  kLexHex2,
  kLexHex3,
  kLexHigh,        // after a high-surrogate escape: a backslash must follow
  kLexHighEscape,  // after that backslash: `u` must follow
};
// States whose continuation does not depend on a partial \u code unit: the vocabulary's
// string classes are precomputed for these.
inline constexpr uint32_t kLexClassStates = kLexEscape + 1;

enum class LexResult : uint8_t { kOk, kRefused, kClosed };

inline int HexValue(uint8_t byte) {
  if (byte >= '0' && byte <= '9') return byte - '0';
  if (byte >= 'a' && byte <= 'f') return byte - 'a' + 10;
  if (byte >= 'A' && byte <= 'F') return byte - 'A' + 10;
  return -1;
}

// Emits code point `cp` as UTF-8 through sink.Emit(byte, lead).
template <typename Sink>
bool EmitCodePoint(uint32_t cp, Sink& sink) {
  uint8_t bytes[4];
  int n = 0;
  if (cp < 0x80) {
    bytes[n++] = static_cast<uint8_t>(cp);
  } else if (cp < 0x800) {
    bytes[n++] = static_cast<uint8_t>(0xC0 | (cp >> 6));
    bytes[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    bytes[n++] = static_cast<uint8_t>(0xE0 | (cp >> 12));
    bytes[n++] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    bytes[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  } else {
    bytes[n++] = static_cast<uint8_t>(0xF0 | (cp >> 18));
    bytes[n++] = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
    bytes[n++] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    bytes[n++] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  }
  for (int i = 0; i < n; ++i) {
    if (!sink.Emit(bytes[i], i == 0)) return false;
  }
  return true;
}

// The lead byte's lexer state, or kLexNormal with false for a byte that cannot lead.
inline bool LeadState(uint8_t byte, uint32_t& state) {
  if (byte >= 0xC2 && byte <= 0xDF) {
    state = kLexCont1;
  } else if (byte == 0xE0) {
    state = kLexCont2E0;
  } else if (byte == 0xED) {
    state = kLexCont2ED;
  } else if (byte >= 0xE1 && byte <= 0xEF) {
    state = kLexCont2;
  } else if (byte == 0xF0) {
    state = kLexCont3F0;
  } else if (byte >= 0xF1 && byte <= 0xF3) {
    state = kLexCont3;
  } else if (byte == 0xF4) {
    state = kLexCont3F4;
  } else {
    return false;
  }
  return true;
}

// A continuation byte in `state`: the next state, or false.
inline bool ContinuationState(uint32_t& state, uint8_t byte) {
  uint8_t low = 0x80;
  uint8_t high = 0xBF;
  uint32_t next = kLexNormal;
  switch (state) {
    case kLexCont1:
      next = kLexNormal;
      break;
    case kLexCont2:
      next = kLexCont1;
      break;
    case kLexCont2E0:
      low = 0xA0;
      next = kLexCont1;
      break;
    case kLexCont2ED:
      high = 0x9F;
      next = kLexCont1;
      break;
    case kLexCont3:
      next = kLexCont2;
      break;
    case kLexCont3F0:
      low = 0x90;
      next = kLexCont2;
      break;
    case kLexCont3F4:
      high = 0x8F;
      next = kLexCont2;
      break;
    default:
      return false;
  }
  if (byte < low || byte > high) return false;
  state = next;
  return true;
}

// The first UTF-8 byte of code point `cp`; nondecreasing in cp.
inline uint8_t LeadByte(uint32_t cp) {
  if (cp < 0x80) return static_cast<uint8_t>(cp);
  if (cp < 0x800) return static_cast<uint8_t>(0xC0 | (cp >> 6));
  if (cp < 0x10000) return static_cast<uint8_t>(0xE0 | (cp >> 12));
  return static_cast<uint8_t>(0xF0 | (cp >> 18));
}

// A range of byte values, both ends included.
struct ByteRange {
  uint8_t low = 0;
  uint8_t high = 0;
};

// Calls visit(ranges, n) with each sequence of n byte ranges whose products are the UTF-8
// forms of the code points in [lo, hi] (surrogates left out), until it returns true: a range
// splits where its code points change length, then where a continuation byte would not run
// over all its 64 values.
template <typename Visit>
bool ForUtf8Ranges(uint32_t lo, uint32_t hi, Visit& visit) {
  if (hi > 0x10FFFF) hi = 0x10FFFF;
  if (lo > hi) return false;
  if (lo <= 0xDFFF && hi >= 0xD800) {
    return (lo < 0xD800 && ForUtf8Ranges(lo, 0xD7FF, visit)) ||
           (hi > 0xDFFF && ForUtf8Ranges(0xE000, hi, visit));
  }
  for (uint32_t end : {0x7Fu, 0x7FFu, 0xFFFFu}) {
    if (lo <= end && hi > end) {
      return ForUtf8Ranges(lo, end, visit) || ForUtf8Ranges(end + 1, hi, visit);
    }
  }
  const int length = lo < 0x80 ? 1 : lo < 0x800 ? 2 : lo < 0x10000 ? 3 : 4;
  for (int i = 1; i < length; ++i) {
    const uint32_t low_bits = (1u << (6 * i)) - 1;
    if ((lo & ~low_bits) == (hi & ~low_bits)) continue;
    if ((lo & low_bits) != 0) {
      return ForUtf8Ranges(lo, lo | low_bits, visit) ||
             ForUtf8Ranges((lo | low_bits) + 1, hi, visit);
    }
    if ((hi & low_bits) != low_bits) {
      return ForUtf8Ranges(lo, (hi & ~low_bits) - 1, visit) ||
             ForUtf8Ranges(hi & ~low_bits, hi, visit);
    }
  }
  ByteRange ranges[4];
  if (length == 1) {
    ranges[0] = {static_cast<uint8_t>(lo), static_cast<uint8_t>(hi)};
    return visit(ranges, 1);
  }
  static constexpr uint8_t kLeadBits[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  for (int i = length - 1; i >= 1; --i) {
    ranges[i] = {static_cast<uint8_t>(0x80 | (lo & 0x3F)),
                 static_cast<uint8_t>(0x80 | (hi & 0x3F))};
    lo >>= 6;
    hi >>= 6;
  }
  ranges[0] = {static_cast<uint8_t>(kLeadBits[length] | lo),
               static_cast<uint8_t>(kLeadBits[length] | hi)};
  return visit(ranges, length);
}

// Whether the code units [lo, hi] of a \u escape (after high surrogate `pending`, or 0) can
// still give a code point the sink takes: sink.Probe(first, last) over code point ranges.
template <typename Sink>
bool ProbeUnits(uint32_t lo, uint32_t hi, uint32_t pending, Sink& sink) {
  if (pending != 0) {
    lo = lo < 0xDC00 ? 0xDC00 : lo;
    hi = hi > 0xDFFF ? 0xDFFF : hi;
    if (lo > hi) return false;
    const uint32_t base = 0x10000 + ((pending - 0xD800) << 10);
    return sink.Probe(base + lo - 0xDC00, base + hi - 0xDC00);
  }
  const uint32_t bmp_end = hi < 0xD7FF ? hi : 0xD7FF;
  if (lo <= bmp_end && sink.Probe(lo, bmp_end)) return true;
  const uint32_t high_first = lo > 0xD800 ? lo : 0xD800;
  const uint32_t high_last = hi < 0xDBFF ? hi : 0xDBFF;
  if (high_first <= high_last && sink.Probe(0x10000 + ((high_first - 0xD800) << 10),
                                            0x10000 + ((high_last - 0xD800) << 10) + 0x3FF)) {
    return true;
  }
  const uint32_t upper = lo > 0xE000 ? lo : 0xE000;
  return upper <= hi && sink.Probe(upper, hi);
}

// The byte a one-character escape (`\\n`) stands for, or -1.
inline int EscapedByte(uint8_t byte) {
  switch (byte) {
    case '"':
    case '\\':
    case '/':
      return byte;
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return -1;
  }
}

// A hex digit of a \u escape (state kLexHex0..kLexHex3).
template <typename Sink>
LexResult LexHexDigit(uint32_t& state, uint32_t& code, uint8_t byte, Sink& sink) {
  const int hex = HexValue(byte);
  if (hex < 0) return LexResult::kRefused;
  code = (code & 0xFFFF0000u) | (((code & 0xFFFFu) << 4) | static_cast<uint32_t>(hex));
  const uint32_t partial = code & 0xFFFFu;
  const uint32_t pending = code >> 16;
  if (state != kLexHex3) {
    // Refuse as soon as the digits cannot make a valid unit: after a high surrogate only a
    // low one (DC00..DFFF), otherwise anything but a lone low one.
    if (state == kLexHex0 && pending != 0 && partial != 0xD) return LexResult::kRefused;
    if (state == kLexHex1 && (pending != 0) != (partial >= 0xDC && partial <= 0xDF)) {
      return LexResult::kRefused;
    }
    const uint32_t shift = 4 * (kLexHex3 - state);
    const uint32_t first = partial << shift;
    if (!ProbeUnits(first, first + (1u << shift) - 1, pending, sink)) return LexResult::kRefused;
    ++state;
    return LexResult::kOk;
  }
  code = 0;
  state = kLexNormal;
  if (pending != 0) {
    if (partial < 0xDC00 || partial > 0xDFFF) return LexResult::kRefused;
    const uint32_t cp = 0x10000 + ((pending - 0xD800) << 10) + (partial - 0xDC00);
    return EmitCodePoint(cp, sink) ? LexResult::kOk : LexResult::kRefused;
  }
  if (partial >= 0xD800 && partial <= 0xDBFF) {
    if (!ProbeUnits(0xDC00, 0xDFFF, partial, sink)) return LexResult::kRefused;
    code = partial << 16;
    state = kLexHigh;
    return LexResult::kOk;
  }
  if (partial >= 0xDC00 && partial <= 0xDFFF) return LexResult::kRefused;
  return EmitCodePoint(partial, sink) ? LexResult::kOk : LexResult::kRefused;
}

// One byte of a JSON string's raw text. Decoded bytes go to sink.Emit(byte, lead); inside an
// escape, sink.Probe(first, last) is asked whether some code point of the range it can still
// spell would be taken, so that an escape is refused as soon as no completion of it could be.
// `state` and `code` are the frame's lexer fields.
template <typename Sink>
LexResult LexString(uint32_t& state, uint32_t& code, uint8_t byte, Sink& sink) {
  switch (state) {
    case kLexNormal:
      if (byte == '"') return LexResult::kClosed;
      if (byte == '\\') {
        if (!sink.Probe(0, 0x10FFFF)) return LexResult::kRefused;
        state = kLexEscape;
        return LexResult::kOk;
      }
      if (byte < 0x20) return LexResult::kRefused;
      if (byte >= 0x80 && !LeadState(byte, state)) return LexResult::kRefused;
      return sink.Emit(byte, true) ? LexResult::kOk : LexResult::kRefused;
    case kLexEscape: {
      if (byte == 'u') {
        if (!ProbeUnits(0, 0xFFFF, 0, sink)) return LexResult::kRefused;
        state = kLexHex0;
        return LexResult::kOk;
      }
      const int decoded = EscapedByte(byte);
      if (decoded < 0) return LexResult::kRefused;
      state = kLexNormal;
      return sink.Emit(static_cast<uint8_t>(decoded), true) ? LexResult::kOk : LexResult::kRefused;
    }
    case kLexHex0:
    case kLexHex1:
    case kLexHex2:
    case kLexHex3:
      return LexHexDigit(state, code, byte, sink);
    case kLexHigh:
      if (byte != '\\') return LexResult::kRefused;
      state = kLexHighEscape;
      return LexResult::kOk;
    case kLexHighEscape:
      if (byte != 'u') return LexResult::kRefused;
      state = kLexHex0;
      return LexResult::kOk;
    default:
      if (!ContinuationState(state, byte)) return LexResult::kRefused;
      return sink.Emit(byte, false) ? LexResult::kOk : LexResult::kRefused;
  }
}

}  // namespace crux::constrain::grammar
