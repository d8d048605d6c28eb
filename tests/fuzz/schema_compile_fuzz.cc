// Random bytes as a JSON Schema: CompileSchema must return a schema or an error, never crash,
// hang or exceed its limits; a schema that compiles is validated against a few fixed
// instances (short ones, so that a backtracking `pattern` stays cheap).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto ir = crux::constrain::CompileSchema(text);
  if (!ir.ok()) return 0;
  static constexpr std::string_view kInstances[] = {
      "null",
      "true",
      "0",
      "-1.5",
      "1e300",
      R"("")",
      R"("2024-01-01")",
      R"("a\u0000b")",
      "[]",
      R"([1, "x", null])",
      "{}",
      R"({"a": 1, "b": [true], "c": {"d": "e"}})",
      R"([[[{"a": [[]]}]]])",
      "not json",
  };
  for (std::string_view instance : kInstances)
    (void)crux::constrain::Validate(*ir, instance);
  return 0;
}
