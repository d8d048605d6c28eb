// The byte automata of patterns, literals and formats: each construct, search semantics, UTF-8,
// pruning, conjunctions, hostile patterns, and two oracles (std::regex for patterns, the old
// hand-written checkers for formats).
#include "constrain/regex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "constrain/formats.h"
#include "constrain/grammar_specs.h"
#include "crux/constrain/automaton_cache.h"
#include "crux/constrain/schema_ir.h"
#include "format_reference.h"

namespace crux::constrain {
namespace {

ByteDfa MustCompile(std::vector<RegexSource> sources) {
  auto dfa = CompileRegexes(sources);
  EXPECT_TRUE(dfa.ok()) << (dfa.ok() ? "" : dfa.error().message());
  return dfa.ok() ? std::move(*dfa) : ByteDfa();
}

ByteDfa Pattern(const std::string& pattern) {
  return MustCompile({{RegexSource::Kind::kPattern, pattern}});
}

bool Searches(const std::string& pattern, const std::string& text) {
  const ByteDfa dfa = Pattern(pattern);
  return dfa.Matches(RunDfa(dfa, text), 0);
}

struct Case {
  const char* pattern;
  const char* text;
  bool matches;
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(Searches(c.pattern, c.text), c.matches)
        << "/" << c.pattern << "/ on '" << c.text << "'";
  }
}

TEST(RegexTest, Constructs) {
  RunCases({
      {"^abc$", "abc", true},
      {"^abc$", "abcd", false},
      {"^a\\.b$", "a.b", true},
      {"^a\\.b$", "axb", false},
      {"^a.b$", "axb", true},
      {"^a.b$", "a\nb", false},
      {"^a.b$", "a\rb", false},
      {"^a.b$", "a\u2028b", false},
      {"^a.b$", "a\u00e9b", true},
      {"^\\x41\\u0042$", "AB", true},
      {"^\\/\\-\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\$", "/-*+?()[]{}|^$\\", true},
      {"^[a-c]+$", "abcabc", true},
      {"^[a-c]+$", "abcd", false},
      {"^[^a-c]+$", "xyz", true},
      {"^[^a-c]+$", "xaz", false},
      {"^[\\d\\s]+$", "1 2\t3", true},
      {"^[\\w-]+$", "a_b-9", true},
      {"^[.]$", "x", false},
      {"^[a\\-z]$", "-", true},
      {"^[a-]$", "-", true},
      {"^[]$", "", false},
      {"^[^]$", "\n", true},
      {"^\\d+$", "0123", true},
      {"^\\D+$", "ab", true},
      {"^\\D+$", "a1", false},
      {"^\\w+$", "aZ_0", true},
      {"^\\W$", "-", true},
      {"^\\s$", "\u00a0", true},
      {"^\\s$", "\ufeff", true},
      {"^\\s$", "\u2028", true},
      {"^\\S$", "\u00a0", false},
      {"^(ab)+$", "ababab", true},
      {"^(?:ab)+$", "aba", false},
      {"^(?<year>\\d{4})$", "2024", true},
      {"^(cat|dog)s?$", "dogs", true},
      {"^(cat|dog)s?$", "cow", false},
      {"^a{3}$", "aaa", true},
      {"^a{3}$", "aa", false},
      {"^a{2,}$", "aaaaa", true},
      {"^a{2,}$", "a", false},
      {"^a{2,3}$", "aaaa", false},
      {"^a{0}$", "", true},
      {"^a*?b+?c??$", "aabb", true},
      {"^a{2,3}?$", "aaa", true},
      {"^a{,2}$", "a{,2}", true},  // not a quantifier: literal
      {"^x{$", "x{", true},
      {"^a}$", "a}", true},
      {"^a]$", "a]", true},
      {"^$", "", true},
      {"^$", "a", false},
      {"(?:)", "", true},
      {"a|", "zzz", true},
  });
  EXPECT_TRUE(Searches("^\\n\\t\\r\\f\\v\\0$", std::string("\n\t\r\f\v\0", 6)));
  EXPECT_TRUE(Searches("^\\cJ$", "\n"));
  EXPECT_TRUE(Searches("^\\uD83D\\uDE00$", "\U0001F600"));  // a surrogate pair: one character
  EXPECT_FALSE(Searches("\\uD83D", "\U0001F600"));          // a lone surrogate matches nothing
}

TEST(RegexTest, SearchAndAnchors) {
  RunCases({
      {"abc", "xxabcxx", true},
      {"abc", "xxabxcx", false},
      {"^abc", "abcxx", true},
      {"^abc", "xabc", false},
      {"abc$", "xxabc", true},
      {"abc$", "abcx", false},
      {"^all|tags$", "all the things", true},
      {"^all|tags$", "the tags", true},
      {"^all|tags$", "the tags!", false},
      {"^all|tags$", "tall", false},
      {"a^b", "ab", false},
      {"a$b", "ab", false},
      {"$^", "", true},
      {"(^a|b)c", "xbc", true},
      {"(^a|b)c", "xac", false},
      {"", "anything", true},
      {"x*", "", true},
  });
}

TEST(RegexTest, Utf8ClassesAndNegatedClasses) {
  RunCases({
      {"^[é-ü]+$", "éü", true},
      {"^[é-ü]+$", "e", false},
      {"^[^a]$", "é", true},
      {"^[^a]$", "中", true},
      {"^[^a]$", "😀", true},  // astral: one character
      {"^[^a]$", "ab", false},
      {"^[^é]$", "é", false},
      {"^[^é]$", "è", true},
      {"^[一-龥]{2}$", "中文", true},
      {"^[一-龥]{2}$", "中a", false},
      {"^.$", "😀", true},
      {"^..$", "😀", false},
      {"^[😀-😂]$", "😁", true},
      {"^[😀-😂]$", "😃", false},
      {"^\\W$", "é", true},
      {"^日本$", "日本", true},
  });
  // Never ill-formed UTF-8: a lone continuation byte or a truncated sequence is dead or
  // unfinished, even under a negated class.
  const ByteDfa dfa = Pattern("^[^a]*$");
  EXPECT_EQ(RunDfa(dfa, "\x80"), kDeadState);
  EXPECT_EQ(RunDfa(dfa, "\xC0\x80"), kDeadState);          // overlong
  EXPECT_EQ(RunDfa(dfa, "\xED\xA0\x80"), kDeadState);      // a surrogate
  EXPECT_EQ(RunDfa(dfa, "\xF4\x90\x80\x80"), kDeadState);  // past U+10FFFF
  const uint32_t partial = RunDfa(dfa, "\xE4\xB8");
  ASSERT_NE(partial, kDeadState);
  EXPECT_FALSE(dfa.Matches(partial, 0));
  EXPECT_TRUE(dfa.Matches(RunDfa(dfa, "\xE4\xB8\xAD"), 0));
  EXPECT_EQ(RunDfa(Pattern("x"), "x\xFF"), kDeadState);  // searched: still UTF-8 only
}

TEST(RegexTest, DeadStatesArePruned) {
  const ByteDfa dfa = Pattern("^ab$");
  EXPECT_NE(RunDfa(dfa, "a"), kDeadState);
  EXPECT_EQ(RunDfa(dfa, "ac"), kDeadState);
  EXPECT_EQ(RunDfa(dfa, "abc"), kDeadState);
  EXPECT_TRUE(dfa.Matches(RunDfa(dfa, "ab"), 0));
  EXPECT_EQ(Pattern("[]").start(), kDeadState);
  EXPECT_EQ(Pattern("a$b").start(), kDeadState);
  const ByteDfa searched = Pattern("ab");
  EXPECT_NE(RunDfa(searched, "zzzac"), kDeadState);  // a later `ab` can still come
  // Every state is alive: some continuation matches.
  const ByteDfa date = MustCompile({{RegexSource::Kind::kFormat, "", StringFormat::kDate}});
  EXPECT_NE(RunDfa(date, "2023-02-2"), kDeadState);
  EXPECT_EQ(RunDfa(date, "2023-02-3"), kDeadState);
  EXPECT_EQ(RunDfa(date, "2023-02-29"), kDeadState);
  EXPECT_TRUE(date.Matches(RunDfa(date, "2024-02-29"), 0));
}

TEST(RegexTest, SeveralSourcesAndCanMatchAll) {
  const ByteDfa dfa = MustCompile({{RegexSource::Kind::kPattern, "^a"},
                                   {RegexSource::Kind::kPattern, "b$"},
                                   {RegexSource::Kind::kLiteral, "ab"}});
  EXPECT_EQ(dfa.source_count(), 3u);
  const uint32_t a = RunDfa(dfa, "a");
  EXPECT_TRUE(dfa.Matches(a, 0));
  EXPECT_FALSE(dfa.Matches(a, 1));
  EXPECT_FALSE(dfa.MatchesAll(a));
  EXPECT_TRUE(dfa.CanMatchAll(a));
  const uint32_t ab = RunDfa(dfa, "ab");
  EXPECT_TRUE(dfa.MatchesAll(ab));
  EXPECT_EQ(dfa.MatchWords(ab).size(), 1u);
  EXPECT_EQ(dfa.MatchWords(ab)[0], 7u);
  const uint32_t abb = RunDfa(dfa, "abb");
  EXPECT_TRUE(dfa.Matches(abb, 0));
  EXPECT_TRUE(dfa.Matches(abb, 1));
  EXPECT_FALSE(dfa.Matches(abb, 2));
  EXPECT_FALSE(dfa.CanMatchAll(abb));  // the literal is out of reach, the state still alive
  EXPECT_NE(abb, kDeadState);
  const uint32_t x = RunDfa(dfa, "x");  // only `b$` can still match
  EXPECT_NE(x, kDeadState);
  EXPECT_FALSE(dfa.CanMatchAll(x));
  // Two patterns and a format, as one string's conjunction.
  const ByteDfa both = MustCompile({{RegexSource::Kind::kPattern, "^[a-z]+$"},
                                    {RegexSource::Kind::kFormat, "", StringFormat::kHostname}});
  EXPECT_TRUE(both.MatchesAll(RunDfa(both, "example")));
  EXPECT_FALSE(both.CanMatchAll(RunDfa(both, "ex.")));
  EXPECT_NE(RunDfa(both, "ex."), kDeadState);
}

TEST(RegexTest, LeadingLookaheads) {
  RunCases({
      {"^(?!@@)[@a-zA-Z0-9_-]+$", "@name", true},
      {"^(?!@@)[@a-zA-Z0-9_-]+$", "@@name", false},
      {"^(?!org\\.bukkit\\.)[a-z.]+$", "org.bukkit.x", false},
      {"^(?!org\\.bukkit\\.)[a-z.]+$", "org.bukkitx", true},
      {"^(?=.*[0-9])(?=.*[A-Z]).{6,}$", "abcD12", true},
      {"^(?=.*[0-9])(?=.*[A-Z]).{6,}$", "abcd12", false},
  });
  // A lookahead anywhere else stays outside the subset, as does one before a top-level `|`
  // (it would apply to the first branch only).
  for (const char* pattern : {"a(?!b)", "^((?!x).)*$", "^(?!a)b|c", "(?=a)"}) {
    auto dfa = CompileRegexes(std::vector<RegexSource>{{RegexSource::Kind::kPattern, pattern}});
    ASSERT_FALSE(dfa.ok()) << pattern;
    EXPECT_EQ(dfa.error().code(), ErrorCode::kUnsupported) << pattern;
  }
  // Pruning sees the lookahead: after "@@" nothing can match.
  const ByteDfa dfa = Pattern("^(?!@@)[@a-z]+$");
  EXPECT_NE(RunDfa(dfa, "@"), kDeadState);
  EXPECT_EQ(RunDfa(dfa, "@@"), kDeadState);
}

TEST(RegexTest, UnsupportedAndInvalid) {
  const std::vector<std::pair<std::string, std::string>> unsupported = {
      {"(?=a)", "lookahead `(?=`"},
      {"(?!a)", "negative lookahead `(?!`"},
      {"(?<=a)b", "lookbehind `(?<=`"},
      {"(?<!a)b", "negative lookbehind `(?<!`"},
      {"(a)\\1", "backreference `\\1`"},
      {"\\bword\\b", "word boundary `\\b`"},
      {"\\Bx", "word boundary `\\B`"},
      {"\\p{L}", "property escape `\\p`"},
      {"(?<n>a)\\k<n>", "backreference `\\k`"},
      {"(?i)abc", "group modifier `(?i`"},
      {"\\u{1F600}", "`\\u{…}`"},
      {"\\A", "escape `\\A`"},
  };
  for (const auto& [pattern, construct] : unsupported) {
    auto dfa = CompileRegexes(std::vector<RegexSource>{{RegexSource::Kind::kPattern, pattern}});
    ASSERT_FALSE(dfa.ok()) << pattern;
    EXPECT_EQ(dfa.error().code(), ErrorCode::kUnsupported) << pattern;
    EXPECT_NE(dfa.error().message().find(construct), std::string::npos)
        << pattern << ": " << dfa.error().message();
  }
  for (const char* pattern : {"(", "a)", "[a", "*a", "a**", "a{3,2}", "^*", "\\", "[z-a]"}) {
    auto dfa = CompileRegexes(std::vector<RegexSource>{{RegexSource::Kind::kPattern, pattern}});
    ASSERT_FALSE(dfa.ok()) << pattern;
    EXPECT_EQ(dfa.error().code(), ErrorCode::kInvalidArgument) << pattern;
  }
}

double SecondsToCompile(const std::string& pattern, ErrorCode* code) {
  ClearAutomatonCache();  // the build itself, not a cache hit
  const auto start = std::chrono::steady_clock::now();
  auto dfa = CompileRegexes(std::vector<RegexSource>{{RegexSource::Kind::kPattern, pattern}});
  if (code != nullptr && !dfa.ok()) *code = dfa.error().code();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(RegexTest, HostilePatterns) {
  const ByteDfa dfa = Pattern("^(a|aa)*b$");
  const std::string long_input(1 << 20, 'a');
  const auto start = std::chrono::steady_clock::now();
  const uint32_t state = RunDfa(dfa, long_input);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_FALSE(dfa.Matches(state, 0));
  EXPECT_TRUE(dfa.Matches(dfa.Step(state, 'b'), 0));
  for (const char* pattern : {"(a{100}){100}", "^(a{1000}){1000}$", "(){1000000000}",
                              "((a{1,1000}){1,1000}){1,1000}", "(.*a){20}.{30}"}) {
    ErrorCode code = ErrorCode::kInternal;
    EXPECT_LT(SecondsToCompile(pattern, &code), 5.0) << pattern;
    EXPECT_EQ(code, ErrorCode::kLimit) << pattern;
  }
  // 2048-byte patterns (kMaxPatternBytes) of the shapes schemas use.
  std::string alternation = "^(";
  while (alternation.size() < 2040) {
    const std::string number = std::to_string(alternation.size());
    alternation.append("w").append(number).append("|");
  }
  alternation += "x)$";
  std::string classes;
  while (classes.size() < 2040)
    classes += "[a-z0-9]";
  std::string nested(200, '(');
  nested += "a" + std::string(200, ')');
  for (const std::string& pattern : {alternation, classes, nested}) {
    EXPECT_LT(SecondsToCompile(pattern, nullptr), 5.0);
  }
  EXPECT_TRUE(Searches(alternation, "w2"));
  EXPECT_EQ(CompileRegexes(
                std::vector<RegexSource>{{RegexSource::Kind::kPattern, std::string(3000, '(')}})
                .error()
                .code(),
            ErrorCode::kLimit);
}

// Step and StepClass agree on every state and byte, and a class never mixes bytes that UTF-8
// treats differently.
TEST(RegexTest, ByteClasses) {
  const std::vector<ByteDfa> automata = {
      Pattern("^(?:\\S+\\s+){0,9}\\S+$"),
      Pattern("((c1d3g3).{4,8}){2}"),
      MustCompile({{RegexSource::Kind::kFormat, "", StringFormat::kDateTime}}),
      MustCompile({{RegexSource::Kind::kPattern, "^[a-z]+$"},
                   {RegexSource::Kind::kLiteral, "abc"},
                   {RegexSource::Kind::kFormat, "", StringFormat::kEmail}}),
  };
  for (const ByteDfa& dfa : automata) {
    ASSERT_GT(dfa.state_count(), 0u);
    for (int bound :
         {0x80, 0x90, 0xA0, 0xC0, 0xC2, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4, 0xF5}) {
      EXPECT_NE(dfa.ClassOf(static_cast<uint8_t>(bound)),
                dfa.ClassOf(static_cast<uint8_t>(bound - 1)))
          << bound;
    }
    for (uint32_t state = 0; state < dfa.state_count(); ++state) {
      for (int byte = 0; byte < 256; ++byte) {
        const auto b = static_cast<uint8_t>(byte);
        ASSERT_EQ(dfa.Step(state, b), dfa.StepClass(state, dfa.ClassOf(b)));
      }
    }
  }
}

// A pattern anchored by `^` in every alternative needs no search from later positions; one
// alternative without it still does.
TEST(RegexTest, AnchoredSearch) {
  EXPECT_TRUE(Searches("^a|^b", "bx"));
  EXPECT_FALSE(Searches("^a|^b", "xb"));
  EXPECT_TRUE(Searches("^a|b", "xb"));
  EXPECT_FALSE(Searches("(^a)+", "xa"));
  EXPECT_TRUE(Searches("(^a)*b", "xb"));
  EXPECT_TRUE(Searches("^$|(^(?:\\S+\\s+){0,2}\\S+$)", ""));
  EXPECT_TRUE(Searches("^$|(^(?:\\S+\\s+){0,2}\\S+$)", "a b c"));
  EXPECT_FALSE(Searches("^$|(^(?:\\S+\\s+){0,2}\\S+$)", "a b c d"));
  EXPECT_FALSE(Searches("^$|(^(?:\\S+\\s+){0,2}\\S+$)", " a"));
}

// The same sources compile once while cached (errors too); copies share the tables.
TEST(RegexTest, AutomatonCache) {
  ClearAutomatonCache();
  const ByteDfa first = Pattern("^[0-9]{3}-[a-z]+$");
  const ByteDfa second = Pattern("^[0-9]{3}-[a-z]+$");
  AutomatonCacheStats stats = GetAutomatonCacheStats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_GT(stats.bytes, first.memory_bytes());
  EXPECT_EQ(first.memory_bytes(), second.memory_bytes());
  EXPECT_TRUE(second.Matches(RunDfa(second, "123-abc"), 0));
  for (int i = 0; i < 2; ++i) {
    auto error = CompileRegexes(std::vector<RegexSource>{{RegexSource::Kind::kPattern, "(a"}});
    ASSERT_FALSE(error.ok());
    EXPECT_EQ(error.error().code(), ErrorCode::kInvalidArgument);
  }
  stats = GetAutomatonCacheStats();
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.hits, 2u);
  // A literal and a pattern of the same text are different sources.
  const ByteDfa literal = MustCompile({{RegexSource::Kind::kLiteral, "^[0-9]{3}-[a-z]+$"}});
  EXPECT_TRUE(literal.Matches(RunDfa(literal, "^[0-9]{3}-[a-z]+$"), 0));
  EXPECT_FALSE(literal.Matches(RunDfa(literal, "123-abc"), 0));
  ClearAutomatonCache();
  EXPECT_EQ(GetAutomatonCacheStats().entries, 0u);
  EXPECT_TRUE(first.Matches(RunDfa(first, "123-abc"), 0));  // still held by its copies
}

std::string RandomText(const std::string& alphabet, std::mt19937& rng) {
  std::string text(rng() % 20, ' ');
  for (char& c : text)
    c = alphabet[rng() % alphabet.size()];
  return text;
}

// A random walk that mostly stays alive in `dfa`: strings that match, or nearly do.
std::string GuidedText(const ByteDfa& dfa, const std::string& alphabet, std::mt19937& rng) {
  std::string text;
  uint32_t state = dfa.start();
  const size_t length = rng() % 48;
  while (text.size() < length) {
    std::string alive;
    for (char c : alphabet) {
      if (dfa.Step(state, static_cast<uint8_t>(c)) != kDeadState) alive += c;
    }
    const char c = alive.empty() || rng() % 10 == 0 ? alphabet[rng() % alphabet.size()]
                                                    : alive[rng() % alive.size()];
    text += c;
    state = dfa.Step(state, static_cast<uint8_t>(c));
  }
  return text;
}

// The semantics of std::regex (ECMAScript) on random ASCII strings over each pattern's
// alphabet, for the shapes of pattern real schemas use.
TEST(RegexTest, AgreesWithStdRegex) {
  const std::vector<std::string> patterns = {
      "^[a-z0-9_-]{3,16}$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(\\([0-9]{3}\\))?[0-9]{3}-[0-9]{4}$",
      "^[A-Z]{2}$",
      "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$",
      "^#?([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$",
      "^\\+?[1-9]\\d{1,14}$",
      "^[0-9]+(\\.[0-9]{1,2})?$",
      "^(0|[1-9][0-9]*)$",
      "^v?\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$",
      "^[A-Za-z]+$",
      "^\\S+$",
      "^\\s*$",
      "abc",
      "a.c",
      "^a|b$",
      "(ab|cd)+",
      "^(?:[a-z]+-)*[a-z]+$",
      "^[^\\s@]+@[^\\s@]+$",
      "^(\\d{1,3}\\.){3}\\d{1,3}$",
      "^[A-Z][a-z]*( [A-Z][a-z]*)*$",
      "^[0-9]{5}(-[0-9]{4})?$",
      "^([01]?[0-9]|2[0-3]):[0-5][0-9]$",
      "^\\w+$",
      "\\d{3}",
      "^[^,]+(,[^,]+)*$",
      "^(a|ab)(c|bcd)(d*)$",
      "^.{2,5}$",
      "^-?\\d+(\\.\\d+)?([eE][+-]?\\d+)?$",
      "^[a-z]{1,3}?b",
      "x*y+z?",
      "^(?:https?|ftp)://[^\\s/$.?#].[^\\s]*$",
      "[.][a-z]",
      "^[\\w.-]+$",
      "^(?!)?a",  // not used: replaced below
      "^[a-c]*a[a-c]{2}$",
      "^(a*)*b$",
      "^ab{0,2}c{2,}$",
      "^[^a-c]?d",
      "c$|^a",
      "^\\D\\W\\S$",
      "^(?!@@)[@a-z0-9_-]+$",
      "^(?!tag|cat)$",
      "^(?!interactive|name|style).+$",
      "^(?=.*\\d)(?=.*[a-z]).{4,8}$",
      "^(?!.*\\/)^(.*[^.]+.*)$",
      "^(?!a$)(?=.*b$)[ab]*",
  };
  std::mt19937 rng(12345);
  for (std::string pattern : patterns) {
    if (pattern == "^(?!)?a") pattern = "^(b|)a";
    std::string alphabet = " @.-_+:/#,\t";
    for (char c : pattern) {
      if (std::isalnum(static_cast<unsigned char>(c))) alphabet += c;
    }
    alphabet += "09aAzZ";
    const std::regex oracle(pattern, std::regex::ECMAScript);
    const ByteDfa dfa = Pattern(pattern);
    for (int trial = 0; trial < 400; ++trial) {
      const std::string text =
          trial % 2 == 0 ? RandomText(alphabet, rng) : GuidedText(dfa, alphabet, rng);
      const bool expected = std::regex_search(text, oracle);
      ASSERT_EQ(dfa.Matches(RunDfa(dfa, text), 0), expected)
          << "/" << pattern << "/ '" << text << "'";
    }
  }
}

bool InFormat(StringFormat format, const std::string& text) {
  return MatchesFormat(format, text);
}

TEST(RegexTest, FormatExamples) {
  struct Example {
    StringFormat format;
    std::vector<std::string> valid;
    std::vector<std::string> invalid;
  };
  const std::vector<Example> examples = {
      {StringFormat::kDate,
       {"2024-02-29", "2000-02-29", "1600-02-29", "0000-02-29", "2023-02-28", "2023-12-31",
        "2023-04-30", "1999-01-01"},
       {"2023-02-29", "1900-02-29", "2100-02-29", "2023-04-31", "2023-13-01", "2023-00-10",
        "2023-01-00", "2023-1-01", "20230101", "2023-01-01T", " 2023-01-01", "2023-01-32"}},
      {StringFormat::kTime,
       {"12:30:00Z", "23:59:60z", "00:00:00.123456+05:30", "08:15:00-00:00"},
       {"24:00:00Z", "12:60:00Z", "12:30:61Z", "12:30:00", "12:30:00.Z", "12:30:00+5:30",
        "12:30:00+24:00", "1:30:00Z"}},
      {StringFormat::kDateTime,
       {"2024-02-29T12:00:00Z", "2023-01-01t00:00:00.5+01:00"},
       {"2023-02-29T12:00:00Z", "2023-01-01 00:00:00Z", "2023-01-01T00:00Z"}},
      {StringFormat::kEmail,
       {"a@b", "john.doe@example.com", "x!#$%&'*+/=?^_`{|}~-@a-b.c",
        std::string(64, 'l') + "@example.com"},
       {"@example.com", "a@", ".a@b", "a.@b", "a..b@c", "a@-b", "a@b.", "a b@c",
        std::string(65, 'l') + "@example.com", "a@" + std::string(64, 'h'), "a@b@c",
        "a@" + std::string(250, 'h')}},
      {StringFormat::kUuid,
       {"123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000",
        "ABCDEF01-2345-6789-ABCD-EF0123456789"},
       {"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400",
        "123e4567-e89b-12d3-a456-4266141740000", "g23e4567-e89b-12d3-a456-426614174000"}},
      {StringFormat::kUri,
       {"https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@b.c",
        "a:", "x+y.z-w:%20%41"},
       {"//example.com", "example.com", ":x", "1http://a", "http://a b", "http://a%2",
        "http://a%zz", "/relative/path"}},
      {StringFormat::kIpv4,
       {"0.0.0.0", "255.255.255.255", "192.168.1.1", "10.0.0.9"},
       {"256.1.1.1", "01.1.1.1", "1.1.1", "1.1.1.1.1", "1..1.1", "a.b.c.d", "1.1.1.1 "}},
      {StringFormat::kIpv6,
       {"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1::8", "fe80::1:2", "::ffff:1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5::1.2.3.4", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
        "ABCD:EF01::1"},
       {":", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:2:3:4:5:6:7", "12345::", "1:", ":1",
        "::1.2.3", "1::2:3:4:5:6:7:8", "1:2:3:4:5:6:7::1.2.3.4", "1.2.3.4", "g::"}},
      {StringFormat::kHostname,
       {"example.com", "a", "a-b.c", "xn--bcher-kva.example", std::string(63, 'a'),
        std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
            std::string(61, 'd')},
       {"", "-a", "a-", "a..b", "a.", ".a", std::string(64, 'a'), "a_b", "a b",
        std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
            std::string(62, 'd')}},
  };
  for (const Example& example : examples) {
    for (const std::string& text : example.valid)
      EXPECT_TRUE(InFormat(example.format, text)) << FormatName(example.format) << " " << text;
    for (const std::string& text : example.invalid)
      EXPECT_FALSE(InFormat(example.format, text)) << FormatName(example.format) << " " << text;
  }
}

bool ReferenceFormat(StringFormat format, std::string_view text) {
  switch (format) {
    case StringFormat::kDate:
      return reference::IsDate(text);
    case StringFormat::kTime:
      return reference::IsTime(text);
    case StringFormat::kDateTime:
      return reference::IsDateTime(text);
    case StringFormat::kEmail:
      return reference::IsEmail(text) && text.size() <= 254;
    case StringFormat::kUuid:
      return reference::IsUuid(text);
    case StringFormat::kUri:
      return reference::IsUri(text);
    case StringFormat::kIpv4:
      return reference::IsIpv4(text);
    case StringFormat::kIpv6:
      return reference::IsIpv6(text);
    case StringFormat::kHostname:
      return reference::IsHostname(text);
    case StringFormat::kNone:
      break;
  }
  return true;
}

// Each format's automaton against the hand-written checker, on random and DFA-guided strings
// over the format's alphabet.
TEST(RegexTest, FormatsAgreeWithReferenceCheckers) {
  const std::string alphabet = "0123456789abcdefABCDEFZzTt:.-+@%/#?_~!x ";
  std::mt19937 rng(777);
  for (StringFormat format : {StringFormat::kDate, StringFormat::kTime, StringFormat::kDateTime,
                              StringFormat::kEmail, StringFormat::kUuid, StringFormat::kUri,
                              StringFormat::kIpv4, StringFormat::kIpv6, StringFormat::kHostname}) {
    const ByteDfa dfa = MustCompile({{RegexSource::Kind::kFormat, "", format}});
    for (int trial = 0; trial < 20000; ++trial) {
      const std::string text =
          trial % 4 == 0 ? RandomText(alphabet, rng) : GuidedText(dfa, alphabet, rng);
      ASSERT_EQ(InFormat(format, text), ReferenceFormat(format, text))
          << FormatName(format) << " '" << text << "'";
    }
  }
}

// One character repeated and anchored becomes the character looped with a bound on the length:
// the form is recognised only where the two say the same, and then they agree on every string.
TEST(RegexTest, CountedClassIsTheLoopUnderALengthBound) {
  struct Form {
    const char* pattern;
    const char* loop;  // nullptr: not the form
    uint64_t min;
    uint64_t max;
  };
  const Form forms[] = {
      {"^[A-Fa-f\\d]{24}$", "^[A-Fa-f\\d]*$", 24, 24},
      {"^[0-9a-zA-Z_-]{1,255}$", "^[0-9a-zA-Z_-]*$", 1, 255},
      {"^\\w{2,}$", "^\\w*$", 2, UINT64_MAX},
      {"^[^\\s]+$", "^[^\\s]*$", 1, UINT64_MAX},
      {"^[\\]a]{0,3}?$", "^[\\]a]*$", 0, 3},
      {"^a?$", "^a*$", 0, 1},
      {"^\\.{3}$", "^\\.*$", 3, 3},
      {"^.{2,4}$", "^.*$", 2, 4},
      {"^([0-9]|[a-f]){3}$", "^([0-9]|[a-f])*$", 3, 3},  // one character, by alternation
      {"^(?:a|\\.){1,2}$", "^(?:a|\\.)*$", 1, 2},
      {"^[a-z]{3,2}$", nullptr, 0, 0},  // malformed: left to the compiler
      {"^[a-z]{1,3}", nullptr, 0, 0},   // not anchored at the end
      {"[a-z]{1,3}$", nullptr, 0, 0},
      {"^[a-z]{1,3}\\$", nullptr, 0, 0},  // an escaped dollar
      {"^ab{2}$", nullptr, 0, 0},         // two atoms
      {"^(ab){2}$", nullptr, 0, 0},
      {"^\\b{2}$", nullptr, 0, 0},     // an assertion
      {"^(a|bc){2}$", nullptr, 0, 0},  // an alternative of two characters
      {"^a{,3}$", nullptr, 0, 0},      // a literal brace in ECMAScript
      {"^[a-z{1,3}$", nullptr, 0, 0},  // an open class
      {"^(?=a)a{2}$", nullptr, 0, 0},  // a lookahead
  };
  for (const Form& form : forms) {
    const auto counted = AsCountedClass(form.pattern);
    ASSERT_EQ(counted.has_value(), form.loop != nullptr) << form.pattern;
    if (!counted) continue;
    EXPECT_EQ(counted->loop, form.loop) << form.pattern;
    EXPECT_EQ(counted->min, form.min) << form.pattern;
    EXPECT_EQ(counted->max, form.max) << form.pattern;
  }
  // Random strings over letters, digits, blanks, a dot, a bracket and a two-byte letter.
  const std::vector<std::string> alphabet = {"a", "b", "F", "7", " ", ".", "]", "_", "\xc3\xa9"};
  std::mt19937 random(7);
  for (const Form& form : forms) {
    const auto counted = AsCountedClass(form.pattern);
    if (!counted) continue;
    const ByteDfa whole = Pattern(form.pattern);
    const ByteDfa loop = Pattern(counted->loop);
    for (int i = 0; i < 400; ++i) {
      std::string text;
      const size_t characters = random() % 8;
      for (size_t c = 0; c < characters; ++c)
        text += alphabet[random() % alphabet.size()];
      const bool by_count = characters >= counted->min && characters <= counted->max &&
                            loop.Matches(RunDfa(loop, text), 0);
      EXPECT_EQ(whole.Matches(RunDfa(whole, text), 0), by_count)
          << form.pattern << " on '" << text << "'";
    }
  }
}

// States of a count far from its bound are alike for every text shorter than the distance
// (their tokens' walks are one); near it, the text that reaches the bound tells them apart,
// and a spent budget answers no.
TEST(RegexTest, SameWithinTellsCountsApartOnlyNearTheirBound) {
  auto ir = CompileSchema(R"({"type":"string","pattern":"^([a-z ]*[0-9]){0,300}[a-z ]*$"})");
  ASSERT_TRUE(ir.ok()) << ir.error().message();
  auto specs = grammar::BuildSpecs(*ir, {});
  ASSERT_TRUE(specs.ok()) << specs.error().message();
  ASSERT_EQ(specs->dfas.size(), 1u);
  const ByteDfa& dfa = specs->dfas[0];
  const std::vector<uint32_t>& to_accept = specs->dfa_min_to_accept[0];
  auto after_digits = [&](int digits) {
    uint32_t state = dfa.start();
    for (int i = 0; i < digits; ++i)
      state = dfa.Step(state, '1');
    return state;
  };
  size_t budget = size_t{1} << 20;
  EXPECT_TRUE(grammar::SameWithin(dfa, to_accept, after_digits(3), after_digits(40), 132, budget));
  // 290 digits and 10 more reach the bound; an 11th refuses there and not after 3.
  EXPECT_TRUE(grammar::SameWithin(dfa, to_accept, after_digits(3), after_digits(290), 10, budget));
  EXPECT_FALSE(grammar::SameWithin(dfa, to_accept, after_digits(3), after_digits(290), 11, budget));
  EXPECT_TRUE(grammar::SameWithin(dfa, to_accept, after_digits(7), after_digits(7), 132, budget));
  size_t little = 1;
  EXPECT_FALSE(grammar::SameWithin(dfa, to_accept, after_digits(3), after_digits(40), 132, little));
  EXPECT_EQ(little, 0u);
}

// What each state has ahead that refuses: in a count of words, whitespace (the last word
// refuses it) from every state, and no letter or sign. Starting the split's search without
// those classes gives each state at a character boundary the split the whole search gives.
TEST(RegexTest, ClassesKilledAheadGiveTheSameSplitsToACountOfWords) {
  auto ir = CompileSchema(R"({"type":"string","pattern":"^(?:\\S+\\s+){0,5}\\S+$"})");
  ASSERT_TRUE(ir.ok()) << ir.error().message();
  auto specs = grammar::BuildSpecs(*ir, {});
  ASSERT_TRUE(specs.ok()) << specs.error().message();
  ASSERT_EQ(specs->dfas.size(), 1u);
  const ByteDfa& dfa = specs->dfas[0];
  const grammar::DfaReach& reach = specs->dfa_reach[0];
  const grammar::KilledAhead ahead = grammar::ClassesKilledAhead(dfa, reach);
  ASSERT_EQ(ahead.bits.size(), dfa.state_count() * ahead.words);
  auto killed = [&](uint32_t state, uint8_t byte) {
    const size_t c = dfa.ClassOf(byte);
    return (ahead.bits[state * ahead.words + c / 64] >> (c % 64) & 1) != 0;
  };
  uint32_t state = dfa.start();
  for (const char byte : std::string("ab cd ef gh ij kl")) {
    EXPECT_TRUE(killed(state, ' ')) << "state " << state;
    EXPECT_TRUE(killed(state, '\t')) << "state " << state;
    EXPECT_FALSE(killed(state, 'a')) << "state " << state;
    EXPECT_FALSE(killed(state, '{')) << "state " << state;
    state = dfa.Step(state, static_cast<uint8_t>(byte));
  }
  // The sixth word is the last: a blank kills it at once.
  EXPECT_EQ(dfa.Step(state, ' '), kDeadState);
  size_t compared = 0;
  for (uint32_t q = 0; q < dfa.state_count(); ++q) {
    if (reach.phase[q] == 0xFF) continue;
    const grammar::ByteSplit whole = grammar::SplitBytes(dfa, reach, q);
    const grammar::ByteSplit quick = grammar::SplitBytes(dfa, reach, q, &ahead);
    if (reach.phase[q] == 0) {  // a character boundary
      EXPECT_TRUE(whole.safe == quick.safe) << "state " << q;
      EXPECT_TRUE(whole.kill == quick.kill) << "state " << q;
      ++compared;
      continue;
    }
    // Inside a character the two may differ: the whole search drops blanks as it meets them,
    // may then never reach the states that refuse the last bytes of U+2001..U+200A, U+2028,
    // U+2029 and U+202F, and keeps those bytes safe; the quick one leaves them to be stepped.
    for (int byte = 0; byte < 256; ++byte) {
      if (quick.safe.Has(static_cast<uint8_t>(byte)))
        EXPECT_TRUE(whole.safe.Has(static_cast<uint8_t>(byte))) << "state " << q;
    }
    ++compared;
  }
  EXPECT_GT(compared, 12u);
}

}  // namespace
}  // namespace crux::constrain
