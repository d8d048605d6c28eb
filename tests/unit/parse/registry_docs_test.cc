// The docs list exactly the registered parsers: every name has a row in its docs table whose
// aliases cell lists exactly the registry's aliases, and every row of those tables is a
// registered name. Adding a family without a docs row, or a row for a family that is gone,
// fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::parse {
namespace {

std::string ReadDoc(const std::string& name) {
  std::ifstream file(std::string(CRUX_FIXTURE_DIR) + "/../../docs/" + name);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

// The rows of the first table after `heading` (the whole file when empty): first cell → second
// cell, both as written.
std::map<std::string, std::string> TableRows(const std::string& doc, const std::string& heading) {
  std::map<std::string, std::string> rows;
  size_t pos = heading.empty() ? 0 : doc.find(heading);
  if (pos == std::string::npos) return rows;
  pos = doc.find("\n|", pos);
  bool in_table = false;
  std::istringstream lines(doc.substr(pos + 1));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) {
      if (in_table && line.rfind('|', 0) != 0) break;
      continue;
    }
    in_table = true;
    const size_t name_end = line.find(" |", 2);
    const size_t aliases_end = line.find(" |", name_end + 2);
    rows[line.substr(2, name_end - 2)] = line.substr(name_end + 3, aliases_end - name_end - 3);
  }
  return rows;
}

template <typename Info>
std::string AliasCell(const Info& info) {
  if (info.aliases.empty()) return "—";
  std::string cell;
  for (std::string_view alias : info.aliases) {
    if (!cell.empty()) cell += ", ";
    cell += "`" + std::string(alias) + "`";
  }
  return cell;
}

template <typename Info>
void ExpectSameNames(const std::vector<Info>& table, std::map<std::string, std::string> rows,
                     const std::string& doc) {
  ASSERT_FALSE(rows.empty()) << "no parser table in docs/" << doc;
  for (const Info& info : table) {
    const std::string name = "`" + std::string(info.name) + "`";
    auto row = rows.find(name);
    if (row == rows.end()) {
      ADD_FAILURE() << info.name << " has no row in docs/" << doc;
      continue;
    }
    EXPECT_EQ(row->second, AliasCell(info)) << info.name << ": aliases in docs/" << doc;
    rows.erase(row);
  }
  for (const auto& [name, aliases] : rows) {
    ADD_FAILURE() << "docs/" << doc << " lists " << name << ", which is not registered";
  }
}

TEST(RegistryDocs, ReasoningParsersTableListsEveryNameAndAlias) {
  ExpectSameNames(ReasoningParsers(), TableRows(ReadDoc("reasoning-parsers.md"), ""),
                  "reasoning-parsers.md");
}

TEST(RegistryDocs, ToolParsersTableListsEveryNameAndAlias) {
  ExpectSameNames(ToolParsers(), TableRows(ReadDoc("tool-parsers.md"), "\n## All parsers"),
                  "tool-parsers.md");
}

}  // namespace
}  // namespace crux::parse
