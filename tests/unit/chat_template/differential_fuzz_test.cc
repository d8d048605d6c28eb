// Differential fuzzing against Python Jinja2: tests/chat_template/fuzz_templates.py builds
// random templates from the constructs chat templates use (statements, whitespace control,
// expressions, filters, tests, methods, macros, call blocks) over random contexts and records
// what the reference renders; crux must render the same text, or raise where Jinja2 raised.
// CRUX_TEMPLATE_FUZZ_SEED and CRUX_TEMPLATE_FUZZ_CASES choose the batch (default: seed 1,
// 1000 cases).
#include <gtest/gtest.h>

#include <cstdlib>

#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"
#include "unit/chat_template/reference.h"

namespace crux::chat_template {
namespace {

using test_reference::Json;

std::string EnvOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

TEST(DifferentialFuzz, AgreesWithJinja2) {
  if (!test_reference::HasJinja2()) GTEST_SKIP() << "python3 with jinja2 not found";
  const std::string seed = EnvOr("CRUX_TEMPLATE_FUZZ_SEED", "1");
  const std::string count = EnvOr("CRUX_TEMPLATE_FUZZ_CASES", "1000");
  const std::string script =
      (test_reference::TestsDir() / "chat_template" / "fuzz_templates.py").string();
  auto output = test_reference::RunWithInput(
      "python3 '" + script + "' --seed " + seed + " --count " + count, "");
  ASSERT_TRUE(output.has_value()) << "the fuzz generator failed";
  const Json batch = Json::parse(*output, nullptr, false);
  ASSERT_TRUE(batch.is_object()) << "the fuzz generator wrote no JSON";
  size_t agreeing = 0;
  size_t rendered = 0;
  for (const Json& c : batch["cases"]) {
    const std::string& source = c["template"].get_ref<const std::string&>();
    const Json& want = c["expected"];
    auto parsed = Template::Parse(source);
    Expected<std::string> got = parsed.ok() ? (*parsed)->Render(FromJson(c["context"]))
                                            : Expected<std::string>(parsed.error());
    bool same = false;
    if (want["ok"].get<bool>()) {
      ++rendered;
      same = got.ok() && *got == want["output"].get_ref<const std::string&>();
      EXPECT_TRUE(same) << "template: " << source << "\ncontext: " << c["context"].dump()
                        << "\nJinja2: " << want["output"].dump()
                        << "\ncrux:   " << (got.ok() ? Json(*got).dump() : got.error().message());
    } else {
      same = !got.ok();
      EXPECT_TRUE(same) << "template: " << source << "\ncontext: " << c["context"].dump()
                        << "\nJinja2 raised " << want["kind"] << ": " << want["error"]
                        << "\ncrux rendered: " << Json(*got).dump();
    }
    agreeing += same;
  }
  EXPECT_EQ(agreeing, batch["cases"].size());
  EXPECT_GT(rendered, batch["cases"].size() / 20) << "too few cases render without an error";
}

}  // namespace
}  // namespace crux::chat_template
