// The validator and the matcher over the JSON Schema Test Suite's draft 4 files (the npm package
// json-schema-test-suite 0.0.10, a devDependency of tests/e2e: `npm ci` there installs it).
// Each group's schema is compiled as draft 4 (its files have no `$schema`, so the test adds
// one) and each test's `data`, in its compact form with numbers as written, is judged twice:
// by Validate(), and by the byte-level matcher of the grammar compiled without a vocabulary
// (AcceptBytes, then CanEnd).
//
// Every expected verdict must come out, except an invalid instance accepted because the schema
// has a keyword in not_enforced ("not enforced") and the known disagreements below. Remote
// references (refRemote.json, and `$ref`s to the draft 4 meta-schema) are never fetched: those
// schemas must fail with kUnsupported. CRUX_SUITE_TABLE=1 prints the figures as the markdown
// table of docs/structured-output.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/text/json_text.h"

namespace crux::constrain {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using text::JsonTokenReader;

// The two judges of an instance: Validate(), and the byte-level matcher (AcceptBytes of the
// compact text, then CanEnd) of the grammar compiled without a vocabulary.
enum class Judge : uint8_t { kValidator, kMatcher };
constexpr const char* JudgeName(Judge judge) {
  return judge == Judge::kValidator ? "validator" : "matcher";
}

// Tests whose verdict a judge does not give, and why. Each must still disagree (a fix removes
// it).
struct KnownDisagreement {
  Judge judge;
  std::string_view test;  // "file: group / test"
  std::string_view why;
};
constexpr KnownDisagreement kKnown[] = {
    {Judge::kValidator, "optional/bignum.json: integer / a bignum is an integer",
     "an integer literal beyond 64 bits is parsed as a double, and draft 4's integer check "
     "(no fraction or exponent) sees a double"},
    {Judge::kValidator, "optional/bignum.json: integer / a negative bignum is an integer",
     "as above"},
    {Judge::kValidator, "optional/format.json: validation of URIs / a valid protocol-relative URI",
     "the 2015 suite's verdict, reversed upstream since: `format: uri` needs a scheme "
     "(RFC 3986); \"//foo.bar/\" is a URI reference"},
    {Judge::kMatcher, "optional/format.json: validation of URIs / a valid protocol-relative URI",
     "as for the validator"},
    {Judge::kMatcher,
     "optional/bignum.json: integer comparison / comparison works for high numbers",
     "under a numeric bound the grammar takes at most 19 integer digits (kMaxBoundedIntDigits): "
     "18446744073709551600 under `maximum: 18446744073709551615` is refused at its 20th digit"},
    {Judge::kMatcher,
     "optional/bignum.json: integer comparison / comparison works for very negative numbers",
     "as above, with `minimum: -18446744073709551615`"},
};

bool IsKnown(Judge judge, const std::string& label) {
  return std::any_of(std::begin(kKnown), std::end(kKnown), [&](const KnownDisagreement& k) {
    return k.judge == judge && k.test == label;
  });
}

// True when the schema refers to another document (always kUnsupported).
bool HasRemoteRef(const Json& value) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      if (key == "$ref" && member.is_string() && member.get<std::string>().rfind("#", 0) != 0) {
        return true;
      }
      if (HasRemoteRef(member)) return true;
    }
  } else if (value.is_array()) {
    for (const Json& item : value)
      if (HasRemoteRef(item)) return true;
  }
  return false;
}

fs::path SuiteDir() {
  return fs::path(CRUX_FIXTURE_DIR "/../e2e/node_modules/json-schema-test-suite/tests/draft4");
}

// One judge's verdicts over a file's tests.
struct Verdicts {
  size_t passed = 0;
  size_t wrongly_accepted = 0;
  size_t wrongly_rejected = 0;
  size_t not_enforced = 0;  // invalid, accepted, and the schema has a keyword not enforced
  size_t not_compiled = 0;  // the schema (or, for the matcher, the grammar) did not compile
  size_t known = 0;         // wrong verdicts listed in kKnown

  void Add(const Verdicts& v) {
    passed += v.passed;
    wrongly_accepted += v.wrongly_accepted;
    wrongly_rejected += v.wrongly_rejected;
    not_enforced += v.not_enforced;
    not_compiled += v.not_compiled;
    known += v.known;
  }
};

// Per keyword file, in tests (instances).
struct Tally {
  std::string file;
  size_t tests = 0;
  size_t remote = 0;  // a `$ref` to another document: kUnsupported, as it must be
  Verdicts by_judge[2];
  std::vector<std::string> failures;   // wrong verdicts, and schemas that did not compile
  std::vector<std::string> known_hit;  // "judge: label" of kKnown entries seen to disagree

  void Add(const Tally& t) {
    tests += t.tests;
    remote += t.remote;
    for (size_t j = 0; j < 2; ++j)
      by_judge[j].Add(t.by_judge[j]);
  }
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The raw text of every test's `data`, in file order: the members named "data" of the objects
// at [group array] > group object > "tests" array > test object. Parsing the file into a tree
// would turn 12345678910111213141516171819202122232425262728293031 into a double.
std::vector<std::string> RawData(std::string_view file_text) {
  std::vector<std::string> out;
  JsonTokenReader reader(file_text);
  std::vector<JsonTokenReader::Kind> stack;  // open containers
  std::vector<std::string_view> keys;        // per open container: the key last read
  for (JsonTokenReader::Token t = reader.Next(); t.kind != JsonTokenReader::Kind::kEnd;
       t = reader.Next()) {
    using K = JsonTokenReader::Kind;
    if (t.kind == K::kObjectBegin || t.kind == K::kArrayBegin) {
      stack.push_back(t.kind);
      keys.emplace_back();
    } else if (t.kind == K::kObjectEnd || t.kind == K::kArrayEnd) {
      stack.pop_back();
      keys.pop_back();
    } else if (t.kind == K::kKey) {
      keys.back() = t.raw;
      const bool in_test = stack.size() == 4 && stack[2] == K::kArrayBegin &&
                           keys[1] == "\"tests\"" && stack[3] == K::kObjectBegin;
      if (in_test && t.raw == "\"data\"") {
        std::string compact;
        text::AppendCompactJson(compact, reader.NextValue());
        out.push_back(std::move(compact));
      }
    }
  }
  return out;
}

// The group's schema as draft 4 text.
std::string Draft4Schema(Json schema) {
  if (schema.is_object() && !schema.contains("$schema")) {
    schema["$schema"] = "http://json-schema.org/draft-04/schema#";
  }
  return schema.dump();
}

// What a group's schema compiled to; the grammar is null when it did not compile.
struct CompiledGroup {
  SchemaIr ir;
  std::shared_ptr<const CompiledGrammar> grammar;
  std::string grammar_error;
};

// Classifies one judge's verdict on one test.
void JudgeOnce(Judge judge, bool accepted, bool expected, bool has_not_enforced,
               const std::string& label, const std::string& instance, Tally& tally) {
  Verdicts& v = tally.by_judge[static_cast<size_t>(judge)];
  const std::string who = std::string(JudgeName(judge)) + ": ";
  if (accepted == expected) {
    ++v.passed;
  } else if (IsKnown(judge, label)) {
    ++v.known;
    tally.known_hit.push_back(who + label);
  } else if (!accepted) {
    ++v.wrongly_rejected;
    tally.failures.push_back(who + label + ": wrongly rejected " + instance);
  } else if (has_not_enforced) {
    ++v.not_enforced;
  } else {
    ++v.wrongly_accepted;
    tally.failures.push_back(who + label + ": wrongly accepted " + instance);
  }
}

void JudgeTest(const CompiledGroup& group, bool expected, const std::string& label,
               const std::string& instance, Tally& tally) {
  JudgeOnce(Judge::kValidator, Validate(group.ir, instance).valid(), expected,
            !group.ir.not_enforced.empty(), label, instance, tally);
  if (group.grammar == nullptr) {
    ++tally.by_judge[static_cast<size_t>(Judge::kMatcher)].not_compiled;
    tally.failures.push_back("matcher: " + label +
                             ": grammar not compiled: " + group.grammar_error);
    return;
  }
  Matcher matcher(group.grammar);
  const bool accepted = matcher.AcceptBytes(instance) && matcher.CanEnd();
  JudgeOnce(Judge::kMatcher, accepted, expected, !group.grammar->not_enforced().empty(), label,
            instance, tally);
}

void CheckGroup(const Json& group, const std::vector<std::string>& data, size_t& next_data,
                Tally& tally) {
  const Json& tests = group.at("tests");
  auto ir = CompileSchema(Draft4Schema(group.at("schema")));
  CompiledGroup compiled;
  if (ir.ok()) {
    compiled.ir = std::move(*ir);
    GrammarOptions options;
    options.max_whitespace = kUnboundedWhitespace;
    auto grammar = CompiledGrammar::Compile(compiled.ir, nullptr, options);
    if (grammar.ok()) {
      compiled.grammar = std::move(*grammar);
    } else {
      compiled.grammar_error = grammar.error().message();
    }
  }
  const std::string where = tally.file + ": " + group.at("description").get<std::string>();
  for (const Json& test : tests) {
    const std::string& instance = data.at(next_data++);
    const std::string label = where + " / " + test.at("description").get<std::string>();
    ++tally.tests;
    if (ir.ok()) {
      JudgeTest(compiled, test.at("valid").get<bool>(), label, instance, tally);
    } else if (ir.error().code() == ErrorCode::kUnsupported && HasRemoteRef(group.at("schema"))) {
      ++tally.remote;
    } else {
      for (Verdicts& v : tally.by_judge)
        ++v.not_compiled;
      tally.failures.push_back(label + ": not compiled: " + ir.error().message());
    }
  }
}

Tally CheckFile(const fs::path& path, const std::string& name) {
  Tally tally;
  tally.file = name;
  const std::string file_text = ReadFile(path);
  const Json groups = Json::parse(file_text);
  const std::vector<std::string> data = RawData(file_text);
  size_t next_data = 0;
  for (const Json& group : groups)
    CheckGroup(group, data, next_data, tally);
  EXPECT_EQ(next_data, data.size()) << name;
  return tally;
}

// The markdown table of docs/structured-output.md: per file, each judge's figures (not
// compiled is asserted zero, so it has no column).
void PrintTable(const std::vector<Tally>& rows, const Tally& total) {
  std::printf(
      "| file | tests | remote ref | validator: passed / wrongly accepted / wrongly rejected / "
      "not enforced / known | matcher: passed / wrongly accepted / wrongly rejected / not "
      "enforced / known |\n|---|---:|---:|---:|---:|\n");
  auto line = [](const Tally& t, const std::string& name) {
    std::printf("| %s | %zu | %zu", name.c_str(), t.tests, t.remote);
    for (const Verdicts& v : t.by_judge) {
      std::printf(" | %zu / %zu / %zu / %zu / %zu", v.passed, v.wrongly_accepted,
                  v.wrongly_rejected, v.not_enforced, v.known);
    }
    std::printf(" |\n");
  };
  for (const Tally& t : rows)
    line(t, t.file);
  line(total, "**total**");
}

TEST(JsonSchemaTestSuite, Draft4) {
  const fs::path dir = SuiteDir();
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "json-schema-test-suite is not installed: run `npm ci` in tests/e2e ("
                 << dir.string() << ")";
  }
  std::vector<std::string> names;
  for (const char* sub : {"", "optional/"}) {
    for (const auto& entry : fs::directory_iterator(dir / sub)) {
      if (entry.path().extension() == ".json") {
        names.push_back(sub + entry.path().filename().string());
      }
    }
  }
  std::sort(names.begin(), names.end());
  std::vector<Tally> rows;
  Tally total;
  std::vector<std::string> known_hit;
  for (const std::string& name : names) {
    rows.push_back(CheckFile(dir / name, name));
    total.Add(rows.back());
    for (const std::string& failure : rows.back().failures)
      ADD_FAILURE() << failure;
    known_hit.insert(known_hit.end(), rows.back().known_hit.begin(), rows.back().known_hit.end());
  }
  for (const KnownDisagreement& k : kKnown) {
    const std::string hit = std::string(JudgeName(k.judge)) + ": " + std::string(k.test);
    EXPECT_NE(std::find(known_hit.begin(), known_hit.end(), hit), known_hit.end())
        << "now right, remove it from kKnown: " << hit;
  }
  if (std::getenv("CRUX_SUITE_TABLE") != nullptr) PrintTable(rows, total);
  for (const Verdicts& v : total.by_judge) {
    EXPECT_EQ(v.wrongly_rejected, 0u);
    EXPECT_EQ(v.wrongly_accepted, 0u);
    EXPECT_EQ(v.not_compiled, 0u);
  }
  EXPECT_GT(total.remote, 0u);
}

}  // namespace
}  // namespace crux::constrain
