// Helpers shared by gbnf.cc and gbnf_schema.cc (private to constrain/): code points and the
// pieces of GBNF syntax.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace crux::constrain::gbnf {

// The code points of `text`; a byte that is not well-formed UTF-8 counts as the code point of
// its value (as GbnfWriter::Literal writes it).
std::vector<char32_t> CodePoints(std::string_view text);
std::string Utf8(const std::vector<char32_t>& code_points);
// One code point as a quoted literal.
std::string CodePointLiteral(char32_t cp);
// `[…]` or `[^…]` of these code points (sorted, duplicates dropped).
std::string CharClass(std::vector<char32_t> code_points, bool negated);

}  // namespace crux::constrain::gbnf
