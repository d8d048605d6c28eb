// The JSON number lexer (private to constrain/): the recogniser's number frames and the
// vocabulary's number classes step bytes through the same two functions.
#pragma once

#include <cstdint>

#include "grammar_runtime.h"
#include "grammar_specs.h"

namespace crux::constrain::grammar {

// Number phases.
enum : uint8_t {
  kNumStart,
  kNumMinus,
  kNumZero,
  kNumInt,
  kNumDot,
  kNumFrac,
  kNumE,
  kNumExpSign,
  kNumExp,
};
inline constexpr uint32_t kNumNegative = 1;
inline constexpr uint32_t kNumExponentNegative = 2;
inline constexpr uint32_t kMaxBoundedIntDigits = 19;
inline constexpr uint32_t kMaxBoundedFracDigits = 18;
// Every number must fit a double (the validator, like most JSON readers, refuses one that
// overflows): at most this many integer digits and exponent digits.
inline constexpr uint32_t kMaxIntDigits = 100;
inline constexpr uint32_t kMaxExponentDigits = 2;

enum class NumberMove : uint8_t { kTaken, kRefused, kEnd };

// A byte of the mantissa (sign, integer digits, fraction), or the `e` after it.
inline NumberMove MantissaByte(Frame& frame, const NumberSpec& spec, int byte) {
  const bool bounded = spec.bounded();
  const bool digit = byte >= '0' && byte <= '9';
  const bool exponent = (byte == 'e' || byte == 'E') && !spec.integer_only;
  switch (frame.phase) {
    case kNumStart:
    case kNumMinus:
      if (byte == '-' && frame.phase == kNumStart) {
        frame.phase = kNumMinus;
        frame.b |= kNumNegative;
        return NumberMove::kTaken;
      }
      if (!digit) return NumberMove::kRefused;
      frame.phase = byte == '0' ? kNumZero : kNumInt;
      frame.u = static_cast<uint64_t>(byte - '0');
      frame.count = 1;
      return NumberMove::kTaken;
    case kNumZero:
    case kNumInt:
      if (digit && frame.phase == kNumInt) {
        if (++frame.count > kMaxBoundedIntDigits && bounded) return NumberMove::kRefused;
        if (frame.count > kMaxIntDigits) return NumberMove::kRefused;
        if (frame.count <= kMaxBoundedIntDigits) frame.u = frame.u * 10 + (byte - '0');
        return NumberMove::kTaken;
      }
      if (byte == '.' && (!spec.integer_only || spec.zero_fraction_ok)) {
        frame.phase = kNumDot;
        return NumberMove::kTaken;
      }
      break;
    case kNumDot:
    case kNumFrac:
      if (digit) {
        if (spec.integer_only && byte != '0') return NumberMove::kRefused;
        if (++frame.d > kMaxBoundedFracDigits && bounded) return NumberMove::kRefused;
        if (frame.d <= kMaxBoundedFracDigits) frame.v = frame.v * 10 + (byte - '0');
        frame.phase = kNumFrac;
        return NumberMove::kTaken;
      }
      if (frame.phase == kNumDot) return NumberMove::kRefused;
      break;
    default:
      return NumberMove::kRefused;
  }
  if (exponent) {
    frame.phase = kNumE;
    return NumberMove::kTaken;
  }
  return digit ? NumberMove::kRefused : NumberMove::kEnd;
}

// A byte of the exponent: its sign and at most kMaxExponentDigits digits.
inline NumberMove ExponentByte(Frame& frame, int byte) {
  const bool digit = byte >= '0' && byte <= '9';
  if (frame.phase == kNumE && (byte == '+' || byte == '-')) {
    frame.phase = kNumExpSign;
    if (byte == '-') frame.b |= kNumExponentNegative;
    return NumberMove::kTaken;
  }
  if (frame.phase == kNumExp) {
    if (!digit) return NumberMove::kEnd;
    if (++frame.c > kMaxExponentDigits) return NumberMove::kRefused;
    frame.pad = frame.pad * 10 + static_cast<uint32_t>(byte - '0');
    return NumberMove::kTaken;
  }
  if (!digit) return NumberMove::kRefused;
  frame.phase = kNumExp;
  frame.c = 1;
  frame.pad = static_cast<uint32_t>(byte - '0');
  return NumberMove::kTaken;
}

// True in the phases where the number written so far is complete.
inline bool NumberComplete(uint8_t phase) {
  return phase == kNumZero || phase == kNumInt || phase == kNumFrac || phase == kNumExp;
}

}  // namespace crux::constrain::grammar
