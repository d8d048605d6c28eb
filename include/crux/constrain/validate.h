// Validation of a finished JSON text against a compiled schema: for the final answer of a
// constrained request, and for tests of the grammar.
//
// Semantics are JSON Schema's for every keyword the IR enforces: an integral number (1.0) is an
// integer; numbers compare exactly when both are integers within int64, else as doubles;
// lengths count Unicode code points; `pattern` is searched for (not anchored) with std::regex
// in ECMAScript mode, over bytes; `oneOf` means exactly one. Keywords listed in
// SchemaIr::not_enforced are not checked here either.
//
// Thread-safety: Validate only reads the SchemaIr. Cost: bounded by kMaxValidationSteps node
// checks; `pattern`, `patternProperties` and `format` run the byte automata the constraining
// grammar uses (linear in the string, no backtracking), each pattern compiled once per call.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

inline constexpr size_t kMaxViolations = 16;              // violations kept per Validate
inline constexpr size_t kMaxValidationSteps = 2'000'000;  // (schema node, value) checks

// One way the instance breaks the schema.
struct Violation {
  std::string json_pointer;  // of the offending value in the instance ("" is the whole)
  std::string keyword;       // "required", "type", …; "json" when the text is not JSON
  std::string message;
};

struct ValidationResult {
  std::vector<Violation> violations;  // the first kMaxViolations, in document order

  bool valid() const { return violations.empty(); }
};

// Checks `instance_json` (one JSON text; kMaxNestingDepth applies) against `schema`.
ValidationResult Validate(const SchemaIr& schema, std::string_view instance_json);

}  // namespace crux::constrain
