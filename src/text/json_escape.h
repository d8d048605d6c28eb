// The one table of JSON escapes crux_text's string writers share (internal to crux_text).
#pragma once

#include <string>

namespace crux::text::internal {

// Appends the escape for `c`, a quote, a backslash or a control character: the short forms
// (\" \\ \b \t \n \f \r) where JSON has them, else \u00XX.
void AppendJsonEscape(std::string& out, unsigned char c);

}  // namespace crux::text::internal
