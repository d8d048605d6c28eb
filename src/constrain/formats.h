// Hand-written checkers of the enforced string `format`s (private to constrain/).
#pragma once

#include <optional>
#include <string_view>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

// The enforced format named `name` ("date-time"), or nullopt for any other name.
std::optional<StringFormat> FormatFromName(std::string_view name);

// The name of an enforced format ("date-time"); "" for kNone.
std::string_view FormatName(StringFormat format);

// True when `text` is in `format` (always true for kNone): the format's automaton accepts it
// and it is within FormatMaxLength. Linear in the text; the first call compiles the automata.
bool MatchesFormat(StringFormat format, std::string_view text);

}  // namespace crux::constrain
