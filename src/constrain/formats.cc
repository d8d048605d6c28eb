// The enforced formats: names, and membership decided by the formats' byte automata
// (regex_formats.cc) plus FormatMaxLength, exactly what the constraining grammar enforces.
#include "formats.h"

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "crux/base/check.h"
#include "regex.h"

namespace crux::constrain {
namespace {

constexpr std::array<std::pair<std::string_view, StringFormat>, 9> kFormats = {{
    {"date", StringFormat::kDate},
    {"time", StringFormat::kTime},
    {"date-time", StringFormat::kDateTime},
    {"email", StringFormat::kEmail},
    {"uuid", StringFormat::kUuid},
    {"uri", StringFormat::kUri},
    {"ipv4", StringFormat::kIpv4},
    {"ipv6", StringFormat::kIpv6},
    {"hostname", StringFormat::kHostname},
}};

}  // namespace

std::optional<StringFormat> FormatFromName(std::string_view name) {
  for (const auto& [format_name, format] : kFormats) {
    if (format_name == name) return format;
  }
  return std::nullopt;
}

std::string_view FormatName(StringFormat format) {
  for (const auto& [format_name, value] : kFormats) {
    if (value == format) return format_name;
  }
  return "";
}

bool MatchesFormat(StringFormat format, std::string_view text) {
  if (format == StringFormat::kNone) return true;
  // One automaton per format, compiled on first use (thread-safe static initialisation).
  static const std::array<ByteDfa, kFormats.size()> automata_by_format = [] {
    std::array<ByteDfa, kFormats.size()> automata;
    for (size_t i = 0; i < kFormats.size(); ++i) {
      const RegexSource source{RegexSource::Kind::kFormat, "", kFormats[i].second};
      auto dfa = CompileRegexes({&source, 1});
      CRUX_CHECK(dfa.ok());
      automata[i] = std::move(*dfa);
    }
    return automata;
  }();
  if (text.size() > FormatMaxLength(format).max_length) return false;
  for (size_t i = 0; i < kFormats.size(); ++i) {
    if (kFormats[i].second == format)
      return automata_by_format[i].Matches(RunDfa(automata_by_format[i], text), 0);
  }
  return false;
}

}  // namespace crux::constrain
