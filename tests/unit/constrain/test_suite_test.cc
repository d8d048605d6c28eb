// The validator over the JSON Schema Test Suite's draft 4 files (the npm package
// json-schema-test-suite 0.0.10, a devDependency of tests/e2e: `npm ci` there installs it).
// Each group's schema is compiled as draft 4 (its files have no `$schema`, so the test adds
// one) and each test's `data`, in its compact form with numbers as written, is validated.
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
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/text/json_text.h"

namespace crux::constrain {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using text::JsonTokenReader;

// Tests whose verdict crux does not give, and why. Each must still disagree (a fix removes it).
struct KnownDisagreement {
  std::string_view test;  // "file: group / test"
  std::string_view why;
};
constexpr KnownDisagreement kKnown[] = {
    {"optional/bignum.json: integer / a bignum is an integer",
     "an integer literal beyond 64 bits is parsed as a double, and draft 4's integer check "
     "(no fraction or exponent) sees a double"},
    {"optional/bignum.json: integer / a negative bignum is an integer", "as above"},
    {"optional/format.json: validation of URIs / a valid protocol-relative URI",
     "the 2015 suite's verdict, reversed upstream since: `format: uri` needs a scheme "
     "(RFC 3986); \"//foo.bar/\" is a URI reference"},
};

bool IsKnown(const std::string& label) {
  return std::any_of(std::begin(kKnown), std::end(kKnown),
                     [&](const KnownDisagreement& k) { return k.test == label; });
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

// Per keyword file, in tests (instances).
struct Tally {
  std::string file;
  size_t tests = 0;
  size_t passed = 0;
  size_t wrongly_accepted = 0;
  size_t wrongly_rejected = 0;
  size_t not_compiled = 0;
  size_t not_enforced = 0;
  size_t remote = 0;                  // a `$ref` to another document: kUnsupported, as it must be
  size_t known = 0;                   // wrong verdicts listed in kKnown
  std::vector<std::string> failures;  // wrong verdicts
  std::vector<std::string> not_compiled_groups;  // with the compiler's message
  std::vector<std::string> known_hit;            // labels of kKnown seen to disagree

  void Add(const Tally& t) {
    tests += t.tests;
    passed += t.passed;
    wrongly_accepted += t.wrongly_accepted;
    wrongly_rejected += t.wrongly_rejected;
    not_compiled += t.not_compiled;
    not_enforced += t.not_enforced;
    remote += t.remote;
    known += t.known;
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

void CheckGroup(const Json& group, const std::vector<std::string>& data, size_t& next_data,
                Tally& tally) {
  const Json& tests = group.at("tests");
  auto ir = CompileSchema(Draft4Schema(group.at("schema")));
  const std::string where = tally.file + ": " + group.at("description").get<std::string>();
  for (const Json& test : tests) {
    const std::string& instance = data.at(next_data++);
    const bool expected = test.at("valid").get<bool>();
    const std::string label = where + " / " + test.at("description").get<std::string>();
    ++tally.tests;
    if (!ir.ok()) {
      if (ir.error().code() == ErrorCode::kUnsupported && HasRemoteRef(group.at("schema"))) {
        ++tally.remote;
      } else {
        ++tally.not_compiled;
        tally.not_compiled_groups.push_back(label + ": " + ir.error().message());
      }
      continue;
    }
    const bool accepted = Validate(*ir, instance).valid();
    if (accepted == expected) {
      ++tally.passed;
    } else if (IsKnown(label)) {
      ++tally.known;
      tally.known_hit.push_back(label);
    } else if (!accepted) {
      ++tally.wrongly_rejected;
      tally.failures.push_back(label + ": wrongly rejected " + instance);
    } else if (!ir->not_enforced.empty()) {
      ++tally.not_enforced;
    } else {
      ++tally.wrongly_accepted;
      tally.failures.push_back(label + ": wrongly accepted " + instance);
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

void PrintTable(const std::vector<Tally>& rows, const Tally& total) {
  std::printf(
      "| file | tests | passed | wrongly accepted | wrongly rejected | not enforced | "
      "not compiled | remote ref | known |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  auto line = [](const Tally& t, const std::string& name) {
    std::printf("| %s | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n", name.c_str(), t.tests,
                t.passed, t.wrongly_accepted, t.wrongly_rejected, t.not_enforced, t.not_compiled,
                t.remote, t.known);
  };
  for (const Tally& t : rows)
    line(t, t.file);
  line(total, "**total**");
  for (const Tally& t : rows) {
    for (const std::string& group : t.not_compiled_groups)
      std::printf("not compiled: %s\n", group.c_str());
  }
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
    EXPECT_NE(std::find(known_hit.begin(), known_hit.end(), k.test), known_hit.end())
        << "now right, remove it from kKnown: " << k.test;
  }
  if (std::getenv("CRUX_SUITE_TABLE") != nullptr) PrintTable(rows, total);
  EXPECT_EQ(total.wrongly_rejected, 0u);
  EXPECT_EQ(total.wrongly_accepted, 0u);
  EXPECT_EQ(total.not_compiled, 0u);
  EXPECT_GT(total.remote, 0u);
}

}  // namespace
}  // namespace crux::constrain
