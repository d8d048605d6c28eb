// Replaying top-level loop iterations between renders (RenderOptions::reuse_loops) must give
// exactly what a render without replay gives: on every template of llama.cpp's tree over
// conversations that grow, change and shrink, and on templates written to break it (namespaces
// written in the loop, comparisons with them, aliases, the clock, macros, lookahead, break).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"
#include "unit/chat_template/reference.h"

namespace crux::chat_template {
namespace {

using nlohmann::json;

RenderOptions Fresh() {
  RenderOptions options;
  options.reuse_loops = false;
  options.now_seconds = [] { return int64_t{1'700'000'000}; };
  return options;
}

RenderOptions Reusing() {
  RenderOptions options = Fresh();
  options.reuse_loops = true;
  return options;
}

// Renders `context` with replay on `reused` and anew on a template parsed from the same source;
// both must agree, output or error.
void ExpectSame(const Template& reused, const Template& fresh, const json& context,
                const std::string& label, const RenderOptions& options = Reusing()) {
  const Value value = FromJson(context);
  RenderOptions plain = options;
  plain.reuse_loops = false;
  auto want = fresh.Render(value, plain);
  auto got = reused.Render(value, options);
  ASSERT_EQ(want.ok(), got.ok()) << label << ": "
                                 << (want.ok() ? got.error().message() : want.error().message());
  if (!want.ok()) {
    EXPECT_EQ(want.error().message(), got.error().message()) << label;
    return;
  }
  EXPECT_EQ(*want, *got) << label;
}

struct Pair {
  std::shared_ptr<const Template> reused;
  std::shared_ptr<const Template> fresh;
};

Pair Parse(const std::string& source) {
  auto a = Template::Parse(source);
  auto b = Template::Parse(source);
  EXPECT_TRUE(a.ok() && b.ok()) << source;
  return {a.ok() ? *a : nullptr, b.ok() ? *b : nullptr};
}

json ToolCall(std::mt19937& rng, int n) {
  json args = {{"city", "Paris " + std::to_string(n)}, {"days", static_cast<int>(rng() % 7)}};
  json call = {{"id", "call_" + std::to_string(n)},
               {"type", "function"},
               {"function", {{"name", rng() % 2 ? "get_weather" : "search"}}}};
  call["function"]["arguments"] = rng() % 2 ? json(args.dump()) : args;
  return call;
}

// One message of a chat, of any role the templates handle.
json Message(std::mt19937& rng, int n) {
  const std::string text = "text " + std::to_string(n) + std::string(rng() % 40, 'x');
  switch (rng() % 7) {
    case 0:
    case 1:
      return {{"role", "user"}, {"content", "question " + text}};
    case 2:
      return {{"role", "assistant"}, {"content", "answer " + text}};
    case 3:
      return {{"role", "assistant"},
              {"content", "<think>\nthought " + text + "\n</think>\n\nanswer"},
              {"reasoning_content", rng() % 2 ? json(nullptr) : json("reasoned " + text)}};
    case 4: {
      json m = {{"role", "assistant"}, {"content", rng() % 2 ? "" : "calling"}};
      m["tool_calls"] = json::array({ToolCall(rng, n)});
      if (rng() % 2) m["tool_calls"].push_back(ToolCall(rng, n + 1000));
      return m;
    }
    case 5:
      return {{"role", "tool"}, {"tool_call_id", "call_" + std::to_string(n)}, {"content", text}};
    default:
      return {{"role", "user"}, {"content", "<tool_response>" + text + "</tool_response>"}};
  }
}

json Tools() {
  return json::parse(R"([{"type":"function","function":{"name":"get_weather",
    "description":"The weather","parameters":{"type":"object","properties":{
    "city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}}}])");
}

// A conversation changed the ways clients change one between requests: mostly a turn or two
// appended, sometimes an earlier message edited, the tail dropped, or the options switched.
void Evolve(std::mt19937& rng, json& context, int& n) {
  json& messages = context["messages"];
  switch (rng() % 10) {
    case 0:
      if (messages.size() > 2) messages[rng() % messages.size()] = Message(rng, n++);
      break;
    case 1:
      if (messages.size() > 3) messages.erase(messages.end() - 2, messages.end());
      break;
    case 2:
      context["add_generation_prompt"] = !context.value("add_generation_prompt", true);
      break;
    case 3:
      context["enable_thinking"] = rng() % 2 == 0;
      break;
    case 4:
      if (context.contains("tools")) {
        context.erase("tools");
      } else {
        context["tools"] = Tools();
      }
      break;
    default:
      for (unsigned k = 1 + rng() % 3; k > 0; --k)
        messages.push_back(Message(rng, n++));
  }
}

TEST(LoopMemo, LlamaCppTemplatesRenderAlikeWithAndWithoutReplay) {
  const auto paths = test_reference::LlamaCppTemplates();
  if (paths.empty()) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  for (const auto& path : paths) {
    const Pair t = Parse(test_reference::ReadText(path));
    if (!t.reused) continue;
    std::mt19937 rng(7);
    for (int conversation = 0; conversation < 3; ++conversation) {
      json context = {{"messages", json::array()},
                      {"add_generation_prompt", true},
                      {"bos_token", "<s>"},
                      {"eos_token", "</s>"}};
      context["messages"].push_back({{"role", "system"}, {"content", "be brief"}});
      int n = 0;
      for (int i = 0; i < 10; ++i)
        context["messages"].push_back(Message(rng, n++));
      for (int turn = 0; turn < 12; ++turn) {
        ExpectSame(*t.reused, *t.fresh, context,
                   path.filename().string() + " conversation " + std::to_string(conversation) +
                       " turn " + std::to_string(turn));
        if (HasFailure()) return;
        Evolve(rng, context, n);
      }
    }
  }
}

// Qwen3's template shows an assistant turn's reasoning only after the last user query, which it
// finds before its main loop: a new query hides the reasoning of turns it used to show, though
// those turns did not change.
TEST(LoopMemo, ANewQueryHidesEarlierReasoningInQwen3) {
  const auto paths = test_reference::LlamaCppTemplates();
  if (paths.empty()) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const Pair t =
      Parse(test_reference::ReadText(paths.front().parent_path() / "Qwen-Qwen3-0.6B.jinja"));
  ASSERT_TRUE(t.reused);
  json context = {{"messages", json::array()}, {"add_generation_prompt", true}};
  for (int i = 0; i < 6; ++i) {
    context["messages"].push_back({{"role", "user"}, {"content", "q" + std::to_string(i)}});
    context["messages"].push_back(
        {{"role", "assistant"}, {"content", "a"}, {"reasoning_content", "r" + std::to_string(i)}});
  }
  context["messages"].push_back({{"role", "tool"}, {"content", "result"}});
  ExpectSame(*t.reused, *t.fresh, context, "before");
  ASSERT_NE(t.fresh->Render(FromJson(context), Fresh())->find("r5"), std::string::npos);
  context["messages"].push_back({{"role", "user"}, {"content", "and then?"}});
  ExpectSame(*t.reused, *t.fresh, context, "after a new query");
  EXPECT_EQ(t.reused->Render(FromJson(context), Reusing())->find("r5"), std::string::npos);
}

json Strings(int n, const std::string& prefix = "m") {
  json items = json::array();
  for (int i = 0; i < n; ++i)
    items.push_back(prefix + std::to_string(i));
  return items;
}

// Each case renders over `items` growing, then with an earlier item changed, then with the
// context key `flag` switched: every render must equal one without replay.
void ExpectSameAsItemsChange(const std::string& source, const std::string& label) {
  const Pair t = Parse(source);
  ASSERT_TRUE(t.reused);
  json context = {{"items", Strings(10)}, {"flag", true}, {"mark", "*"}};
  for (int step = 0; step < 8; ++step) {
    ExpectSame(*t.reused, *t.fresh, context, label + " step " + std::to_string(step));
    switch (step % 4) {
      case 0:
        context["items"].push_back("new" + std::to_string(step));
        break;
      case 1:
        context["items"][3] = "changed" + std::to_string(step);
        break;
      case 2:
        context["flag"] = !context["flag"].get<bool>();
        break;
      default:
        context["mark"] = "#" + std::to_string(step);
    }
  }
}

TEST(LoopMemo, WrittenNamespacesAreReplayed) {
  ExpectSameAsItemsChange(
      "{% set ns = namespace(n=0, text='') %}{% for m in items %}{% set ns.n = ns.n + 1 %}"
      "{% set ns.text = ns.text ~ m %}{{ ns.n }}:{{ m }} {% endfor %}{{ ns.n }} {{ ns.text }}",
      "counter");
}

TEST(LoopMemo, ComparisonsWithNamespacesHoldOrRun) {
  ExpectSameAsItemsChange(
      "{% set ns = namespace(last=items|length - 3) %}{% for m in items %}"
      "{% if loop.index0 > ns.last %}[{{ m }}]{% else %}{{ m }}{% endif %}"
      "{% if 'changed' in m %}{% set ns.last = loop.index0 %}{% endif %}{% endfor %}",
      "compare");
  ExpectSameAsItemsChange(
      "{% set ns = namespace(seen=false) %}{% for m in items %}"
      "{% if ns.seen == false and 'new' in m %}first new {% set ns.seen = true %}{% endif %}"
      "{{ m }}{% endfor %}",
      "compare-then-write");
}

TEST(LoopMemo, LoopAttributesAndLookahead) {
  ExpectSameAsItemsChange(
      "{% for m in items %}{{ m }}{% if loop.last %}.{% elif items[loop.index0 + 1] is "
      "string and items[loop.index0 + 1].startswith('new') %}!{% else %},{% endif %}{% endfor %}",
      "lookahead");
  ExpectSameAsItemsChange(
      "{% for m in items %}{{ loop.revindex }}{{ m }}{{ loop.length }}{% endfor %}", "length");
  ExpectSameAsItemsChange(
      "{% for m in items %}{{ m }}{% for c in m %}{{ loop.index }}{% endfor %}"
      "{{ items[-1] }}{% endfor %}",
      "nested loop and negative index");
  // The items around an iteration (changed at the same length) and the whole loop object.
  ExpectSameAsItemsChange(
      "{% for m in items %}{{ loop.previtem }}>{{ m }}<{{ loop.nextitem }} {% endfor %}",
      "neighbours");
  ExpectSameAsItemsChange("{% for m in items %}{{ loop, m }}{% endfor %}", "the loop object");
}

TEST(LoopMemo, TopLevelNamesContextAndMacros) {
  ExpectSameAsItemsChange(
      "{% set sep = mark ~ '|' %}{% macro show(x) %}{{ sep }}{{ x }}{{ mark }}{% endmacro %}"
      "{% for m in items %}{{ show(m) }}{% if flag %}F{% endif %}{% endfor %}",
      "macro reading top-level names");
  ExpectSameAsItemsChange(
      "{% set a = namespace(x=0) %}{% set b = a if flag else namespace(x=0) %}"
      "{% for m in items %}{% set b.x = b.x + 1 %}{{ a.x }}{{ m }}{% endfor %}",
      "aliased namespaces");
  ExpectSameAsItemsChange(
      "{% set ns = namespace(inner=namespace(x=0)) %}{% for m in items %}"
      "{% set local = namespace(seen=m) %}{% set local.seen = local.seen ~ '!' %}"
      "{% set n = ns.inner %}{% set n.x = n.x + 1 %}{{ local.seen }}{{ n.x }}{% endfor %}",
      "local and nested namespaces");
  ExpectSameAsItemsChange(
      "{% set ns = namespace(all=[]) %}{% for m in items %}{% set ns.all = ns.all + [m] %}"
      "{{ ns.all|length }}{% if loop.index0 == 5 %}{{ ns }}{% endif %}{% endfor %}{{ ns.all }}",
      "lists in namespaces");
  ExpectSameAsItemsChange(
      "{% for m in items %}{% if 'new' in m %}{% break %}{% endif %}{% if m == 'm2' %}"
      "{% continue %}{% endif %}{{ m }}{% else %}none{% endfor %}",
      "break and continue");
}

TEST(LoopMemo, TheClockIsReadAgain) {
  const Pair t = Parse("{% for m in items %}{{ strftime_now('%S') }}{{ m }}{% endfor %}");
  json context = {{"items", Strings(12)}};
  RenderOptions options = Reusing();
  int64_t now = 1'700'000'000;
  options.now_seconds = [&now] { return now; };
  for (int step = 0; step < 3; ++step) {
    ExpectSame(*t.reused, *t.fresh, context, "clock", options);
    now += 7;
  }
}

// Replay is what makes a grown conversation cheap: a loop whose iterations each take 200 steps
// renders a second time, one item longer, within a step limit that running them all again
// would exceed.
TEST(LoopMemo, ASecondRenderReplaysWhatItCan) {
  const Pair t =
      Parse("{% for m in items %}{% for k in range(200) %}{% endfor %}{{ m }}{% endfor %}");
  json context = {{"items", Strings(40)}};
  ASSERT_TRUE(t.reused->Render(FromJson(context), Reusing()).ok());
  context["items"].push_back("one more");
  RenderOptions tight = Reusing();
  tight.limits.max_steps = 2'000;
  auto replayed = t.reused->Render(FromJson(context), tight);
  ASSERT_TRUE(replayed.ok()) << replayed.error().message();
  RenderOptions fresh = tight;
  fresh.reuse_loops = false;
  auto full = t.fresh->Render(FromJson(context), fresh);
  EXPECT_FALSE(full.ok());
  EXPECT_EQ(*replayed, *t.reused->Render(FromJson(context), Fresh()));
}

}  // namespace
}  // namespace crux::chat_template
