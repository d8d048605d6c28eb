// The enforced formats as automata, written from RFC 3339 (date, time, date-time), RFC 4122
// (uuid), RFC 3986 (uri, ipv4, ipv6), RFC 1123 (hostname) and RFC 5321/5322 (email). Each is
// a regular expression over ASCII matched against the whole input, except the email's local
// part, whose 64-byte bound is built directly (a regex would have to spell out every length).
#include <string>

#include "regex.h"
#include "regex_internal.h"

namespace crux::constrain::regex {
namespace {

const std::string kDigit = "[0-9]";
const std::string kHex = "[0-9A-Fa-f]";

// Years divisible by 4 and not by 100, or by 400 (0000 included), as four digits.
std::string LeapYear() {
  return "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)";
}

std::string Date() {
  const std::string day31 = "(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])";
  const std::string day30 = "(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)";
  const std::string february = "02-(?:0[1-9]|1[0-9]|2[0-8])";
  return "(?:[0-9]{4}-(?:" + day31 + "|" + day30 + "|" + february + ")|" + LeapYear() + "-02-29)";
}

// HH:MM:SS[.frac](Z|+HH:MM|-HH:MM); second 60 is a leap second.
std::string Time() {
  return "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?"
         "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
}

std::string Uuid() {
  return kHex + "{8}-" + kHex + "{4}-" + kHex + "{4}-" + kHex + "{4}-" + kHex + "{12}";
}

// scheme ":" then unreserved, reserved and %XX escapes.
std::string Uri() {
  return "[A-Za-z][A-Za-z0-9+.\\-]*:(?:[A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=]|%" + kHex + "{2})*";
}

// Dotted quad of decimal octets without leading zeros.
std::string Ipv4() {
  const std::string octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])";
  return octet + "(?:\\." + octet + "){3}";
}

// RFC 3986's IPv6address: eight groups, or fewer around one `::` standing for at least one;
// the last two groups may be an IPv4 address.
std::string Ipv6() {
  const std::string h16 = kHex + "{1,4}";
  const std::string ls32 = "(?:" + h16 + ":" + h16 + "|" + Ipv4() + ")";
  auto groups = [&](int count) { return "(?:" + h16 + ":){" + std::to_string(count) + "}"; };
  auto before = [&](int at_most) {  // [ *at_most( h16 ":" ) h16 ]
    return "(?:(?:" + h16 + ":){0," + std::to_string(at_most) + "}" + h16 + ")?";
  };
  const std::string forms[] = {
      groups(6) + ls32,
      "::" + groups(5) + ls32,
      "(?:" + h16 + ")?::" + groups(4) + ls32,
      before(1) + "::" + groups(3) + ls32,
      before(2) + "::" + groups(2) + ls32,
      before(3) + "::" + h16 + ":" + ls32,
      before(4) + "::" + ls32,
      before(5) + "::" + h16,
      before(6) + "::",
  };
  std::string out = "(?:";
  for (const std::string& form : forms)
    out += (out.size() > 3 ? "|" : "") + form;
  return out + ")";
}

// Labels of 1-63 letters, digits and hyphens, neither starting nor ending with a hyphen.
std::string Hostname() {
  const std::string label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  return label + "(?:\\." + label + ")*";
}

Expected<uint32_t> FromRegex(NfaBuilder& builder, const std::string& pattern, uint32_t next) {
  auto ast = ParseRegex(pattern);
  if (!ast) return ast.error();
  return builder.Regex(*ast, next);
}

// A dot-atom of RFC 5322 atext, 64 bytes at most, then `next`. State A[i]: i bytes read, the
// last one atext (the local part may end); D[i]: i bytes read, the last one a dot.
Expected<uint32_t> EmailLocalPart(NfaBuilder& builder, uint32_t next) {
  constexpr uint32_t kMaxLocal = 64;
  const CodePointSet atext = Normalize({{'A', 'Z'},
                                        {'a', 'z'},
                                        {'0', '9'},
                                        {'!', '!'},
                                        {'#', '\''},
                                        {'*', '+'},
                                        {'-', '-'},
                                        {'/', '/'},
                                        {'=', '='},
                                        {'?', '?'},
                                        {'^', '`'},
                                        {'{', '~'}});
  uint32_t after_atext = next;  // A[i + 1]; A[kMaxLocal] must end
  uint32_t after_dot = 0;       // D[i + 1]
  for (uint32_t i = kMaxLocal - 1; i >= 1; --i) {
    auto atext_step = builder.CodePoints(atext, after_atext);  // also D[i]
    if (!atext_step) return atext_step;
    Expected<uint32_t> more = *atext_step;
    if (i + 1 < kMaxLocal) {  // a dot needs an atext byte after it within the bound
      auto dot = builder.Bytes(".", after_dot);
      if (!dot) return dot;
      more = builder.Add({NfaState::Kind::kSplit, 0, 0, *atext_step, *dot, 0});
      if (!more) return more;
    }
    auto atext_state = builder.Add({NfaState::Kind::kSplit, 0, 0, next, *more, 0});
    if (!atext_state) return atext_state;
    after_dot = *atext_step;
    after_atext = *atext_state;
  }
  return builder.CodePoints(atext, after_atext);
}

}  // namespace

Expected<uint32_t> FormatNfa(NfaBuilder& builder, StringFormat format, uint32_t next) {
  switch (format) {
    case StringFormat::kNone:
      return builder.AnyString(next);
    case StringFormat::kDate:
      return FromRegex(builder, Date(), next);
    case StringFormat::kTime:
      return FromRegex(builder, Time(), next);
    case StringFormat::kDateTime:
      return FromRegex(builder, Date() + "[Tt]" + Time(), next);
    case StringFormat::kEmail: {
      auto host = FromRegex(builder, Hostname(), next);
      if (!host) return host;
      auto at = builder.Bytes("@", *host);
      if (!at) return at;
      return EmailLocalPart(builder, *at);
    }
    case StringFormat::kUuid:
      return FromRegex(builder, Uuid(), next);
    case StringFormat::kUri:
      return FromRegex(builder, Uri(), next);
    case StringFormat::kIpv4:
      return FromRegex(builder, Ipv4(), next);
    case StringFormat::kIpv6:
      return FromRegex(builder, Ipv6(), next);
    case StringFormat::kHostname:
      return FromRegex(builder, Hostname(), next);
  }
  return builder.AnyString(next);
}

}  // namespace crux::constrain::regex

namespace crux::constrain {

FormatLimits FormatMaxLength(StringFormat format) {
  switch (format) {
    case StringFormat::kHostname:
      return {253};
    case StringFormat::kEmail:
      return {254};
    default:
      return {};
  }
}

}  // namespace crux::constrain
