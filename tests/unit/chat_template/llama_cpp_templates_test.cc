// Every chat template of llama.cpp's tree, rendered over the conversations of
// tests/chat_template/conversations.json (plain chat, system prompt, tools offered, one
// and several tool calls, tool results over several turns, reasoning content, enable_thinking
// on and off, generation prompt on and off), must equal Python Jinja2's rendering byte for
// byte; where Jinja2 raises, crux must raise too.
#include <gtest/gtest.h>
#include <unistd.h>

#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"
#include "unit/chat_template/reference.h"

namespace crux::chat_template {
namespace {

using test_reference::Json;

// The index of the first byte where `a` and `b` differ.
size_t FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  return i;
}

std::string Around(const std::string& text, size_t at) {
  const size_t from = at > 80 ? at - 80 : 0;
  return text.substr(from, 160);
}

TEST(LlamaCppTemplates, RenderAsJinja2Does) {
  const auto paths = test_reference::LlamaCppTemplates();
  if (paths.empty()) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  if (!test_reference::HasJinja2()) GTEST_SKIP() << "python3 with jinja2 not found";
  const Json fixture = Json::parse(test_reference::ReadText(
      test_reference::TestsDir() / "chat_template" / "conversations.json"));
  Json request = {{"templates", Json::array()}, {"contexts", Json::array()}};
  std::vector<std::string> sources;
  for (const auto& path : paths) {
    sources.push_back(test_reference::ReadText(path));
    request["templates"].push_back(sources.back());
  }
  for (const auto& conversation : fixture["conversations"]) {
    request["contexts"].push_back(conversation["context"]);
  }
  const Json expected = test_reference::Reference(request);
  ASSERT_TRUE(expected.is_array()) << "the reference renderer failed";
  size_t matching = 0;
  for (size_t t = 0; t < paths.size(); ++t) {
    auto parsed = Template::Parse(sources[t]);
    for (size_t c = 0; c < fixture["conversations"].size(); ++c) {
      const Json& want = expected[t][c];
      const std::string label = paths[t].filename().string() + " over " +
                                fixture["conversations"][c]["name"].get<std::string>();
      if (!parsed.ok()) {
        EXPECT_FALSE(want["ok"].get<bool>()) << label << ": " << parsed.error().message();
        matching += !want["ok"].get<bool>();
        continue;
      }
      auto got = (*parsed)->Render(FromJson(fixture["conversations"][c]["context"]));
      if (!want["ok"].get<bool>()) {
        EXPECT_FALSE(got.ok()) << label << ": Jinja2 raised " << want["error"] << ", crux did not";
        matching += !got.ok();
        continue;
      }
      ASSERT_TRUE(got.ok()) << label << ": " << got.error().message();
      const std::string& output = want["output"].get_ref<const std::string&>();
      const size_t at = FirstDifference(output, *got);
      EXPECT_EQ(output, *got) << label << ": first difference at byte " << at
                              << "\nJinja2: " << Around(output, at)
                              << "\ncrux:   " << Around(*got, at);
      matching += output == *got;
    }
  }
  EXPECT_EQ(matching, paths.size() * fixture["conversations"].size());
}

}  // namespace
}  // namespace crux::chat_template
