// One case per construct: the template, its context, and what Python Jinja2 (configured as
// Hugging Face configures it) renders, or nullopt where Jinja2 raises.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"

namespace crux::chat_template {
namespace {

struct Case {
  const char* name;
  const char* source;
  const char* context;
  std::optional<std::string> expected;
};

const Case kCases[] = {
    {"trim_blocks", "{% if true %}\nA\n{% endif %}\nB", "{}", "A\nB"},
    {"lstrip_blocks", "  {% if true %}\n  A\n  {% endif %}\n", "{}", "  A\n"},
    {"dash_strips_both_sides", "a  \n {%- if true -%} \n b {{- ' c ' -}} \n d {%- endif %}", "{}",
     "ab c d"},
    {"plus_keeps_lstrip", "  {%+ if true %}x{% endif %}", "{}", "  x"},
    {"plus_keeps_newline", "{% if true +%}\nx{% endif %}", "{}", "\nx"},
    {"comment_strip", "a {#- note -#} b\n{# c #}\nd", "{}", "ab\nd"},
    {"variable_no_trim", "{{ 'a' }}\nb", "{}", "a\nb"},
    {"crlf_normalised", "a\r\n{% if true %}\r\nb\r\n{% endif %}\r\n", "{}", "a\nb\n"},
    {"trailing_newline_dropped", "x\n", "{}", "x"},
    {"raw_block", "{% raw %}{{ not parsed }}{% endraw %}", "{}", "{{ not parsed }}"},
    {"print_values",
     "{{ none }}|{{ true }}|{{ 1.0 }}|{{ 1e20 }}|{{ 0.1 + 0.2 }}|{{ 10 / 4 }}|{{ 7 // 2 }}|{{ -7 % "
     "3 }}|{{ 2 ** 10 }}",
     "{}", "None|True|1.0|1e+20|0.30000000000000004|2.5|3|2|1024"},
    {"print_containers", "{{ [1, 'a', none, [true]] }}|{{ (1,) }}|{{ {'k': \"it's\"} }}|{{ () }}",
     "{}", "[1, 'a', None, [True]]|(1,)|{'k': \"it's\"}|()"},
    {"string_concat", "{{ 'a' ~ 1 ~ none }}|{{ 'a' + 'b' }}|{{ 'ab' * 2 }}|{{ [1] + [2] }}", "{}",
     "a1None|ab|abab|[1, 2]"},
    {"adjacent_strings", "{{ 'a' \"b\" }}", "{}", "ab"},
    {"concat_chains",
     "{{ 'a' + 'b' + 'c' }}|{{ 1 + 2 + 3 }}|{{ [1] + [2] + [3] }}|{{ '<' + ('<'|safe) + '>' }}|{{ "
     "'x' ~ 1 ~ none ~ [2] }}",
     "{}", "abc|6|[1, 2, 3]|&lt;<&gt;|x1None[2]"},
    {"concat_chain_type_error", "{{ 'a' + 'b' + 1 }}", "{}", std::nullopt},
    {"set_concat_of_itself", "{% set s = 'a' ~ 1 %}{% set s = s ~ 2 ~ s %}{{ s }}", "{}", "a12a1"},
    {"append_keeps_a_saved_copy",
     "{% set ns = namespace(out='', kept='') %}{% for i in range(40) %}{% set ns.out = ns.out ~ "
     "'abcdefghij' %}{% if i == 3 %}{% set ns.kept = ns.out %}{% endif %}{% endfor %}{{ "
     "ns.kept|length }}|{{ ns.out|length }}|{{ ns.kept[:12] }}",
     "{}", "40|400|abcdefghijab"},
    {"append_doubling_itself",
     "{% set ns = namespace(t='x') %}{% for i in range(6) %}{% set ns.t = ns.t ~ ns.t %}{% endfor "
     "%}{{ ns.t|length }}",
     "{}", "64"},
    {"append_operand_reassigns_the_target",
     "{% set ns = namespace(out='0123456789012345678901234567890123456789') %}{% macro reset() "
     "%}{% "
     "set ns.out = 'new' %}x{% endmacro %}{% set ns.out = ns.out ~ reset() %}{{ ns.out }}",
     "{}", "0123456789012345678901234567890123456789x"},
    {"append_markup_escapes_the_text",
     "{% set ns = namespace(t='<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<') %}{% set ns.t = ns.t + "
     "('>'|safe) %}{{ ns.t }}",
     "{}",
     "&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&"
     "lt;&lt;"
     "&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;>"},
    {"loop_of_the_nearest_for",
     "{% for x in 'ab' %}{% for y in 'cd' %}{{ loop.index }}{% endfor %}{{ loop.index }};{% endfor "
     "%}",
     "{}", "121;122;"},
    // One loop object per for, as in Jinja2: stored away, it follows the iterations.
    {"loop_stored_away_follows_the_loop",
     "{% set ns = namespace(l=none, c=none) %}{% for x in [1, 2, 3] %}{% if loop.first %}{% set "
     "ns.l = loop %}{% set ns.c = loop.cycle %}{% endif %}{{ ns.l.index }}{{ ns.c('a', 'b', 'c') "
     "}}{{ ns.l.previtem }};{% endfor %}|{{ ns.l.index }}{{ ns.c('a', 'b', 'c') }}",
     "{}", "1a;2b1;3c2;|3c"},
    {"string_escapes", "{{ 'a\\nb\\t\\x41\\u00e9\\\\' }}", "{}", "a\nb\tAé\\"},
    {"undefined_prints_empty",
     "[{{ missing }}]|{{ missing is defined }}|{{ none is defined }}|{{ none is none }}", "{}",
     "[]|False|True|True"},
    {"undefined_attribute_raises", "{{ missing.attr }}", "{}", std::nullopt},
    {"none_attribute_is_undefined", "{{ x.attr is defined }}", "{\"x\": null}", "False"},
    {"undefined_default",
     "{{ missing|default('d') }}|{{ ''|default('d') }}|{{ ''|default('d', true) }}", "{}", "d||d"},
    {"undefined_arithmetic_raises", "{{ missing + 1 }}", "{}", std::nullopt},
    {"undefined_iterates_empty",
     "{% for x in missing %}x{% else %}empty{% endfor %}|{{ missing|length }}", "{}", "empty|0"},
    {"truthiness",
     "{{ [] or 'e' }}|{{ 0 and 'x' }}|{{ 'a' and 'b' }}|{{ not {} }}|{{ 0.0 or none }}", "{}",
     "e|0|b|True|None"},
    {"comparisons",
     "{{ 1 < 2 < 3 }}|{{ 1 == 1.0 }}|{{ true == 1 }}|{{ [1] == (1,) }}|{{ 'b' > 'a' }}|{{ 'x' in "
     "'xyz' }}|{{ 2 not in [1] }}",
     "{}", "True|True|True|False|True|True|True"},
    {"compare_types_raises", "{{ 1 < 'a' }}", "{}", std::nullopt},
    {"conditional_expression",
     "{{ 'y' if true else 'n' }}|{{ 'y' if false }}|{{ ('y' if false) is defined }}", "{}",
     "y||False"},
    {"attribute_then_item",
     "{{ m.role }}|{{ m['role'] }}|{{ m.items is defined }}|{{ m.missing is defined }}",
     "{\"m\": {\"role\": \"user\", \"items\": 3}}", "user|user|True|False"},
    {"indexing_and_slicing",
     "{{ l[0] }}|{{ l[-1] }}|{{ l[1:] }}|{{ l[::-1] }}|{{ l[5] is defined }}|{{ s[1:3] }}|{{ s[-1] "
     "}}",
     "{\"l\": [1, 2, 3], \"s\": \"héllo\"}", "1|3|[2, 3]|[3, 2, 1]|False|él|o"},
    {"dict_key_order", "{% for k in d %}{{ k }}{% endfor %}|{{ d|tojson }}",
     "{\"d\": {\"z\": 1, \"a\": 2, \"m\": 3}}", "zam|{\"z\": 1, \"a\": 2, \"m\": 3}"},
    {"if_elif_else",
     "{% for n in [1, 2, 3] %}{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% endif %} {% "
     "endfor %}",
     "{}", "one two many "},
    {"for_loop_variables",
     "{% for x in 'abc' %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 "
     "}}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }}{{ "
     "loop.cycle('o', 'e') }};{% endfor %}",
     "{}", "1032TrueFalse3bo;2121FalseFalse3ace;3210FalseTrue3bo;"},
    {"for_filter_and_else",
     "{% for x in [1, 2, 3, 4] if x is even %}{{ x }}{{ loop.length }}{% endfor %}|{% for x in [] "
     "%}x{% else %}none{% endfor %}",
     "{}", "2242|none"},
    {"for_unpacking",
     "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% for a, b in [[1, 2], (3, 4)] %}{{ "
     "a + b }}{% endfor %}",
     "{\"d\": {\"a\": 1, \"b\": 2}}", "a=1;b=2;37"},
    {"break_continue",
     "{% for x in range(10) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% "
     "endif %}{{ x }}{% endfor %}",
     "{}", "023"},
    {"loop_scope", "{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{{ x }}{% endfor %}{{ x }}",
     "{}", "21"},
    {"namespace",
     "{% set ns = namespace(n=0, found=false) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i "
     "%}{% endfor %}{{ ns.n }}{{ ns.found }}",
     "{}", "6False"},
    {"set_block",
     "{% set x %}a{{ 1 + 1 }}b{% endset %}{{ x }}|{% set y | upper %}up{% endset %}{{ y }}", "{}",
     "a2b|UP"},
    {"set_tuple", "{% set a, b = [1, 2] %}{{ b }}{{ a }}", "{}", "21"},
    {"macro",
     "{% macro greet(name, greeting='hi') %}{{ greeting }} {{ name }}{% endmacro %}{{ greet('bob') "
     "}}|{{ greet('al', greeting='yo') }}|{{ greet() }}",
     "{}", "hi bob|yo al|hi "},
    {"macro_too_many_args", "{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}", "{}", std::nullopt},
    {"macro_varargs_kwargs",
     "{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, k=4) }}", "{}",
     "1(2, 3){'k': 4}"},
    {"call_block",
     "{% macro box(t) %}[{{ t }}:{{ caller() }}]{% endmacro %}{% call box('x') %}inner{% endcall "
     "%}|{% macro each(l) %}{% for i in l %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(v) "
     "each([1, 2]) %}<{{ v }}>{% endcall %}",
     "{}", "[x:inner]|<1><2>"},
    {"filter_block",
     "{% filter upper %}abc{{ 'd' }}{% endfilter %}|{% filter trim|replace('a', 'b') %}  aa  {% "
     "endfilter %}",
     "{}", "ABCD|bb"},
    {"generation_block", "{% generation %}gen{{ 1 }}{% endgeneration %}", "{}", "gen1"},
    {"raise_exception", "{{ raise_exception('bad role: ' ~ r) }}", "{\"r\": \"x\"}", std::nullopt},
    {"unknown_filter_in_if_is_lazy", "{% if false %}{{ x|nosuchfilter }}{% endif %}ok", "{}", "ok"},
    {"unknown_filter_raises", "{{ x|nosuchfilter }}", "{}", std::nullopt},
    {"sandbox_blocks_mutation", "{% set l = [1] %}{{ l.append(2) }}", "{}", std::nullopt},
    {"range_limit", "{{ range(100001)|length }}", "{}", std::nullopt},
    {"filter_tojson",
     "{{ d|tojson }}|{{ d|tojson(indent=2) }}|{{ d|tojson(separators=(',', ':')) }}|{{ "
     "d|tojson(sort_keys=true) }}|{{ '<é>'|tojson }}|{{ '<é>'|tojson(ensure_ascii=true) }}",
     "{\"d\": {\"b\": [1, 2.5, null, true], \"a\": {}}}",
     "{\"b\": [1, 2.5, null, true], \"a\": {}}|{\n  \"b\": [\n    1,\n    2.5,\n    null,\n    "
     "true\n  ],\n  \"a\": {}\n}|{\"b\":[1,2.5,null,true],\"a\":{}}|{\"a\": {}, \"b\": [1, 2.5, "
     "null, true]}|\"<é>\"|\"<\\u00e9>\""},
    {"filter_strings",
     "{{ '  x  '|trim }}|{{ 'xxaxx'|trim('x') }}|{{ 'aBc'|upper }}{{ 'aBc'|lower }}{{ 'aBc "
     "dE'|capitalize }}{{ 'ab cd-ef'|title }}|{{ 'aaa'|replace('a', 'b', 2) }}|{{ "
     "'a\\nb'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'ab'|center(6) }}|{{ 3|string ~ 'x' }}",
     "{}", "x|a|ABCabcAbc deAb Cd-Ef|bba|a\n  b|  a\n  b|  ab  |3x"},
    {"filter_sequences",
     "{{ l|length }}|{{ l|first }}|{{ l|last }}|{{ l|join(',') }}|{{ l|sort|list }}|{{ "
     "l|unique|list }}|{{ l|reverse|list }}|{{ l|min }}|{{ l|max }}|{{ l|sum }}|{{ 'abc'|list }}",
     "{\"l\": [3, 1, 2, 1]}",
     "4|3|1|3,1,2,1|[1, 1, 2, 3]|[3, 1, 2]|[1, 2, 1, 3]|1|3|7|['a', 'b', 'c']"},
    {"filter_map_select",
     "{{ ms|map(attribute='role')|join(',') }}|{{ ms|selectattr('role', 'equalto', "
     "'user')|list|length }}|{{ ms|rejectattr('content')|list }}|{{ [1, 2, 3, "
     "4]|select('odd')|list }}|{{ [0, 1, none]|reject|list }}|{{ ['a', 'b']|map('upper')|list }}",
     "{\"ms\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"tool\", \"content\": "
     "\"\"}]}",
     "user,tool|1|[{'role': 'tool', 'content': ''}]|[1, 3]|[0, None]|['A', 'B']"},
    {"filter_dicts",
     "{{ d|items|list }}|{{ d|dictsort }}|{{ d|dictsort(by='value', reverse=true) }}",
     "{\"d\": {\"b\": 1, \"a\": 2}}",
     "[('b', 1), ('a', 2)]|[('a', 2), ('b', 1)]|[('a', 2), ('b', 1)]"},
    {"filter_numbers",
     "{{ '42'|int + 1 }}|{{ '4.7'|int }}|{{ 'x'|int(7) }}|{{ '2.5'|float }}|{{ -3|abs }}|{{ "
     "2.567|round(2) }}|{{ 2.5|round }}|{{ 7|round }}",
     "{}", "43|4|7|2.5|3|2.57|2.0|7"},
    {"filter_generator_not_json", "{{ [1]|map('string')|tojson }}", "{}", std::nullopt},
    {"filter_safe_markup", "{{ ('<a>'|safe) + '<b>' }}|{{ '<c>'|e }}", "{}",
     "<a>&lt;b&gt;|&lt;c&gt;"},
    {"tests",
     "{{ 's' is string }}{{ 1 is number }}{{ true is number }}{{ true is boolean }}{{ 1 is integer "
     "}}{{ 1.0 is float }}{{ {} is mapping }}{{ [] is iterable }}{{ 'x' is sequence }}{{ 3 is odd "
     "}}{{ 4 is divisibleby 2 }}{{ 1 is in [1] }}{{ 1 is eq 1 }}{{ none is sameas none }}{{ 'ab' "
     "is lower }}{{ x is callable }}",
     "{}", "TrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrueTrue"},
    {"string_methods",
     "{{ ' a b '.strip() }}|{{ 'xa'.lstrip('x') }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() "
     "}}|{{ 'a,b,c'.split(',', 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}|{{ 'abc'.startswith('ab') }}|{{ "
     "'abc'.endswith(('x', 'c')) }}|{{ 'aXa'.replace('a', 'b') }}|{{ '{} and {x}'.format(1, x=2) "
     "}}|{{ 'abc'.find('c') }}|{{ 'a b'.title() }}|{{ 'ab'.upper() }}",
     "{}",
     "a b|a|['a', 'b', '', 'c']|['a', 'b']|['a', 'b,c']|['a,b', 'c']|True|True|bXb|1 and 2|2|A "
     "B|AB"},
    {"dict_methods",
     "{{ d.get('a') }}|{{ d.get('z') }}|{{ d.get('z', 0) }}|{{ d.keys()|list }}|{{ d.values()|list "
     "}}|{{ d.items()|list }}",
     "{\"d\": {\"a\": 1, \"b\": 2}}", "1|None|0|['a', 'b']|[1, 2]|[('a', 1), ('b', 2)]"},
    {"percent_format", "{{ '%s=%d' % ('a', 3) }}|{{ '%05.1f' % 2.25 }}", "{}", "a=3|002.2"},
    {"strftime_now", "{{ strftime_now('%Y') | length }}", "{}", "4"},
    {"syntax_error", "{% if %}", "{}", std::nullopt},
    {"unclosed_block", "{% for x in y %}", "{}", std::nullopt},
    {"unknown_tag", "{% frobnicate %}", "{}", std::nullopt},
    {"break_outside_loop", "{% break %}", "{}", std::nullopt},
};

Expected<std::string> RenderCase(const Case& c) {
  auto parsed = Template::Parse(c.source);
  if (!parsed.ok()) return parsed.error();
  return (*parsed)->Render(FromJson(nlohmann::ordered_json::parse(c.context)));
}

TEST(Render, EachConstructAsJinja2) {
  for (const Case& c : kCases) {
    auto got = RenderCase(c);
    if (!c.expected) {
      EXPECT_FALSE(got.ok()) << c.name << ": rendered " << (got.ok() ? *got : "");
      continue;
    }
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.error().message();
    EXPECT_EQ(*got, *c.expected) << c.name;
  }
}

Expected<std::string> Render(std::string_view source, const char* context = "{}",
                             const RenderOptions& options = {}) {
  auto parsed = Template::Parse(source);
  if (!parsed.ok()) return parsed.error();
  return (*parsed)->Render(FromJson(nlohmann::ordered_json::parse(context)), options);
}

TEST(Render, SyntaxErrorsNameLineAndColumn) {
  auto parsed = Template::Parse("line one\n  {{ 1 + }}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code(), ErrorCode::kParse);
  EXPECT_EQ(parsed.error().message().rfind("line 2, column 10: ", 0), 0u)
      << parsed.error().message();
}

TEST(Render, RenderErrorsNameLineAndColumn) {
  auto got = Render("ok\n{{ x.y.z }}", R"({"x": {}})");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(got.error().message().rfind("line 2, column ", 0), 0u) << got.error().message();
}

TEST(Render, IntegerFormatsOfInfinityNanAndHugeFloatsAreErrors) {
  for (const char* source : {"{{ '%d' % 1e999 }}", "{{ '%x' % -1e999 }}",
                             "{{ '%d' % (1e999 - 1e999) }}", "{{ '%d' % 1e300 }}"}) {
    auto got = Render(source);
    ASSERT_FALSE(got.ok()) << source;
    EXPECT_EQ(got.error().code(), ErrorCode::kInvalidArgument) << source;
  }
  auto inf = Render("{{ '%d' % 1e999 }}");
  EXPECT_NE(inf.error().message().find("cannot convert float infinity to integer"),
            std::string::npos);
  EXPECT_EQ(*Render("{{ '%d' % 2.9 }}"), "2");
}

TEST(Render, RaiseExceptionKeepsItsMessageAndTag) {
  auto got = Render("{% if x %}{{ raise_exception('roles must alternate') }}{% endif %}",
                    R"({"x": true})");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().tag(), "raise_exception");
  EXPECT_NE(got.error().message().find(": roles must alternate"), std::string::npos);
}

TEST(Render, RecursionIsBounded) {
  auto got = Render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::kLimit);
}

TEST(Render, StepsAreBounded) {
  RenderOptions options;
  options.limits.max_steps = 1000;
  auto got = Render("{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}",
                    "{}", options);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::kLimit);
}

TEST(Render, OutputIsBounded) {
  RenderOptions options;
  options.limits.max_output_bytes = 100;
  auto got = Render("{% for i in range(50) %}abc{% endfor %}", "{}", options);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::kLimit);
  EXPECT_FALSE(Render("{{ 'x' * 1000000000 }}").ok());
}

// A namespace carries values from one iteration to the next: a loop that doubles or nests one
// on every turn fails with a limit error naming the line, long before memory runs out, and a
// namespace never holds a namespace (which could come to hold itself: printed without end,
// never freed).
TEST(Render, ValuesALoopGrowsAreBounded) {
  RenderOptions options;
  options.limits.max_output_bytes = 1 << 20;
  const std::string loop =
      "{% set ns = namespace(t='x', l=[1], n=none) %}\n"
      "{% for i in range(64) %}";
  const char* grows[] = {
      "{% set ns.t = ns.t ~ ns.t %}",
      "{% set ns.t = ns.t + ns.t %}",
      "{% set ns.t = ns.t ~ ns.t ~ 'y' %}",
      "{% set ns.t = ns.t|replace('x', 'xx') %}",
      "{% set ns.t = [ns.t, ns.t]|join(ns.t) %}",
      "{% set ns.t = '%s%s' % (ns.t, ns.t) %}",
      "{% set ns.t = '{}{}'.format(ns.t, ns.t) %}",
      "{% set ns.t = (ns.l|string) %}{% set ns.l = [ns.l, ns.l, ns.l] %}",
      "{% set ns.l = ns.l + ns.l %}",
      "{% set ns.n = [ns.n, ns.n] %}",
  };
  for (const char* body : grows) {
    auto got = Render(loop + body + "{% endfor %}{{ ns.t|length }}", "{}", options);
    ASSERT_FALSE(got.ok()) << body;
    EXPECT_EQ(got.error().code(), ErrorCode::kLimit) << body;
    EXPECT_EQ(got.error().message().rfind("line 2, column ", 0), 0u) << got.error().message();
  }
  auto deep = Render(
      "{% set ns = namespace(l=none) %}{% for i in range(300) %}"
      "{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().message().find("nests more than 256 levels"), std::string::npos);
  for (const char* cycle : {"{% set a = namespace() %}{% set a.me = a %}",
                            "{% set a = namespace() %}{% set a.me = [{'k': a}] %}",
                            "{% set a = namespace() %}{% set b = namespace(a=a) %}"
                            "{% set a.b = b %}"}) {
    auto got = Render(std::string(cycle) + "{{ a }}");
    ASSERT_FALSE(got.ok()) << cycle;
    EXPECT_NE(got.error().message().find("cannot assign a."), std::string::npos)
        << got.error().message();
  }
  for (const char* list :
       {"{{ ((range(1000)|list) * 100)|length }}", "{{ ('x' * 100000)|list|length }}",
        "{{ ('a ' * 100000).split()|length }}", "{{ ('a,' * 100000).split(',')|length }}",
        "{{ ('a\n' * 100000).splitlines()|length }}"}) {
    auto got = Render(list, "{}", options);
    ASSERT_FALSE(got.ok()) << list;
    EXPECT_NE(got.error().message().find("list of more than 65536 items"), std::string::npos)
        << got.error().message();
  }
  auto indented = Render("{% set l = " + std::string(20, '[') + "1" + std::string(20, ']') +
                             " %}{{ (l|tojson(indent='x' * 100000))|length }}",
                         "{}", options);
  ASSERT_FALSE(indented.ok());
  EXPECT_EQ(indented.error().code(), ErrorCode::kLimit);
  // What templates do: strings and lists of strings growing by a part per turn, and a
  // namespace made with another inside.
  auto kept = Render(
      "{% set inner = namespace(x=1) %}{% set ns = namespace(t='', l=[], in=inner) %}"
      "{% for i in range(1000) %}{% set ns.t = ns.t ~ 'ab' %}{% set ns.l = ns.l + ['c'] %}"
      "{% endfor %}{{ ns.t|length }} {{ ns.l|length }} {{ ns.in.x }}",
      "{}", options);
  ASSERT_TRUE(kept.ok()) << kept.error().message();
  EXPECT_EQ(*kept, "2000 1000 1");
}

// A list is equal to itself as Python takes it, without comparing its items: a macro that
// nests [l, l] sixty times gives a value with 2^60 paths, compared at once.
TEST(Render, AListEqualsItselfAtOnce) {
  auto got = Render(
      "{% macro m(l, n) %}{% if n > 0 %}{{ m([l, l], n - 1) }}{% else %}{{ l == l }} "
      "{{ {'k': l} == {'k': l} }}{% endif %}{% endmacro %}{{ m([1], 60) }}");
  ASSERT_TRUE(got.ok()) << got.error().message();
  EXPECT_EQ(*got, "True True");
}

TEST(Render, DeepNestingIsAnErrorNotACrash) {
  std::string source = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  EXPECT_FALSE(Template::Parse(source).ok());
  std::string blocks;
  for (int i = 0; i < 3000; ++i)
    blocks += "{% if true %}";
  EXPECT_FALSE(Template::Parse(blocks).ok());
}

TEST(Render, StrftimeNowUsesTheInjectedClock) {
  RenderOptions options;
  options.now_seconds = [] { return int64_t{86400 * 365}; };  // 1971-01-01 in UTC
  auto got = Render("{{ strftime_now('%Y') }}", "{}", options);
  ASSERT_TRUE(got.ok()) << got.error().message();
  EXPECT_TRUE(*got == "1971" || *got == "1970") << *got;  // local time zone
}

TEST(Render, ContextMustBeADict) {
  auto parsed = Template::Parse("x");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE((*parsed)->Render(Value(1)).ok());
}

TEST(TemplateCache, ParsesEachSourceOnce) {
  TemplateCache cache;
  auto a = cache.Get("{{ 1 }}");
  auto b = cache.Get("{{ 1 }}");
  auto c = cache.Get("{{ 2 }}");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(a->get(), c->get());
  EXPECT_FALSE(cache.Get("{% if %}").ok());
}

}  // namespace
}  // namespace crux::chat_template
