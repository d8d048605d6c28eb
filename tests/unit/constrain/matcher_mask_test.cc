// Token masks: at sampled states the mask equals a brute-force reference (every token tried
// on the matcher and rolled back), and sampling under the mask only ever writes documents the
// validator accepts. A small synthetic vocabulary always; Llama 3's when llama.cpp's tree is
// there (scripts/fetch-llama-cpp.sh).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/validate.h"
#include "crux/constrain/vocab.h"
#include "test_data.h"

namespace crux::constrain {
namespace {

std::shared_ptr<const Vocabulary> SyntheticVocabulary() {
  std::vector<std::string> tokens;
  std::vector<TokenKind> kinds;
  for (int c = 0; c < 256; ++c)
    tokens.push_back(std::string(1, static_cast<char>(c)));
  for (const char* piece : {"{\"", "\":", "\",\"", "\":\"", "\"}", "\",", "\"]", "}]", "true",
                            "false", "null", "  ", "\n  ", "\\n", "\\\"", "\\u00", "\xc3\xa9", "ab",
                            "abc\"", "name", "\"name\":", "id", "12", "3.5", ", ", "\"a", "a\"",
                            "\"x\"", "[{", "}}", "\\", "\\\\\"", "-1", "e5", "\xf0\x9f", "\x98\x80",
                            // Numbers that end inside a token, and what follows them.
                            "1,", "0]", "7}", "-2,"}) {
    tokens.push_back(piece);
  }
  kinds.assign(tokens.size(), TokenKind::kNormal);
  tokens.push_back("<eos>");
  kinds.push_back(TokenKind::kControl);
  const auto eos = static_cast<uint32_t>(tokens.size() - 1);
  return std::make_shared<Vocabulary>(Vocabulary::FromTokens(tokens, kinds, {eos}));
}

// The mask a brute force gives: every token accepted then rolled back.
std::vector<uint32_t> BruteForce(Matcher& matcher, const Vocabulary& vocabulary) {
  std::vector<uint32_t> mask(vocabulary.mask_words(), 0);
  for (uint32_t token = 0; token < vocabulary.size(); ++token) {
    if (matcher.AcceptToken(token)) {
      mask[token / 32] |= 1u << (token % 32);
      EXPECT_TRUE(matcher.Rollback(1));
    }
  }
  return mask;
}

bool Allowed(const std::vector<uint32_t>& mask, uint32_t token) {
  return (mask[token / 32] >> (token % 32) & 1) != 0;
}

const char* const kSchemas[] = {
    R"({"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":999},"name":{"type":"string","maxLength":8},"tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":2}},"required":["id","name"],"additionalProperties":false})",
    R"({"anyOf":[{"type":"string","minLength":2},{"type":"array","items":{"type":"number"}}]})",
    R"({"type":"object","properties":{"a":{"type":"boolean"}}})",
    R"({"type":"object","properties":{"d":{"type":"string","format":"date"}},"patternProperties":{"^x[0-9]$":{"type":"string","pattern":"^[a-c]+$","maxLength":4}},"additionalProperties":false})",
    R"({"type":"array","items":{"type":"number","minimum":-2.5,"exclusiveMaximum":100},"maxItems":3})",
    R"({"type":"array","items":{"anyOf":[{"type":"string","pattern":"^a+$"},{"type":"string","pattern":"b","maxLength":5},{"type":"string","format":"ipv4"}]},"maxItems":3})",
    R"({})",
    // Searched patterns: before their match no token can kill them (masks from the string
    // class, closing tokens checked), after it every token leaves them matching.
    R"({"type":"array","items":{"anyOf":[{"type":"string","pattern":"[0-9]{2}"},{"type":"string","pattern":"\u00e9a","minLength":2,"maxLength":9},{"type":"string","pattern":"x$"}]},"maxItems":3})",
    // Names under patternProperties: a closed object whose pattern, once matched, lets any
    // name through, and an open one; the value depends on the patterns the name matches
    // ("name" also matches ^n, so its value has to be both "x" and an array: no value).
    R"({"type":"object","patternProperties":{"^a":{"type":"integer"},"b$":{"type":"string","maxLength":2}},"properties":{"ab":{"type":"boolean"}},"additionalProperties":false,"maxProperties":3})",
    R"({"type":"object","patternProperties":{"[0-9]":{"type":"null"},"^n":{"type":"array","maxItems":1}},"properties":{"name":{"const":"x"}},"maxProperties":3})",
    // A closed object whose pattern takes no character a \u00 escape can spell, beside a
    // declared name that starts with one ('@'): the escape is decided by the name alone.
    R"({"type":"object","patternProperties":{"^[\u0100-\u017f]+$":{"type":"integer"}},"properties":{"@x":{"type":"boolean"}},"additionalProperties":false})",
    // Two open objects alive at once, with declared names that share a prefix: each key
    // thread decides the tokens that finish its declared names without the other's bits.
    R"({"anyOf":[{"type":"object","properties":{"name":{"type":"integer"},"nb":{"type":"boolean"}}},{"type":"object","properties":{"name":{"type":"string","maxLength":3},"id":{"const":12}},"required":["name"]}]})",
    // Enum numbers are points: a mantissa whose digits no point has, at any exponent, is
    // refused at once (a walk never reaches a number it cannot finish), zero included.
    R"({"type":"array","items":{"enum":[50,75,300,9600,115200,0,2.5,-0.125]},"maxItems":3})",
    R"({"type":"array","items":{"type":"number","enum":[0]},"maxItems":2})",
    // Several patterns on one string: a state where one of them has refused is dead, though
    // the others would go on (the opening quote's tokens are decided by the same rule).
    R"({"type":"string","allOf":[{"pattern":"^([a-z][0-9])+$"},{"pattern":"^c1"},{"pattern":"(t|8)$"}],"maxLength":12})",
    // Enum numbers the schema's text does not spell as a double (-2.00001), and one a
    // mantissa only reaches through long double rounding (4 as 0.004…e3).
    R"({"type":"array","items":{"enum":[-2.00001,4,1e-5]},"maxItems":3})",
    // Once the required names left fill the places maxProperties leaves, only they can be
    // written: names the pattern or the open object would take are refused byte by byte.
    R"({"type":"object","patternProperties":{"^x[a-e]$":true},"properties":{"a":{},"bb":{}},"additionalProperties":false,"required":["a","bb"],"maxProperties":3})",
    R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name","id"],"maxProperties":2})",
    // A declared name the pattern also takes: once written, it is refused byte by byte where
    // the pattern can only end on it again.
    R"({"type":"object","patternProperties":{"^[a-e]$":{"type":"integer"}},"properties":{"a":{"type":"integer"},"bb":{}},"additionalProperties":false,"maxProperties":4})",
};

struct Walk {
  size_t states = 0;
  size_t documents = 0;
};

// Samples up to `steps` tokens uniformly among the allowed ones, comparing with the brute
// force at every `check_every`-th state.
void RandomWalk(const std::shared_ptr<const CompiledGrammar>& grammar, const SchemaIr& ir,
                const Vocabulary& vocabulary, uint32_t seed, size_t steps, size_t check_every,
                Walk& walk) {
  std::mt19937 random(seed);
  Matcher matcher(grammar);
  std::vector<uint32_t> mask(vocabulary.mask_words());
  std::string text;
  for (size_t step = 0; step < steps; ++step) {
    matcher.FillMask(mask);
    if (step % check_every == 0) {
      const std::vector<uint32_t> reference = BruteForce(matcher, vocabulary);
      for (uint32_t token = 0; token < vocabulary.size(); ++token) {
        ASSERT_EQ(Allowed(mask, token), Allowed(reference, token))
            << "token " << token << " '" << vocabulary.bytes(token) << "' after '" << text << "'";
      }
      ++walk.states;
    }
    std::vector<uint32_t> allowed;
    for (uint32_t token = 0; token < vocabulary.size(); ++token) {
      if (Allowed(mask, token)) allowed.push_back(token);
    }
    ASSERT_FALSE(allowed.empty()) << "dead end after '" << text << "'";
    // Prefer ending once the document is long, so that walks finish.
    uint32_t token = allowed[random() % allowed.size()];
    if (text.size() > 60 && matcher.CanEnd()) token = vocabulary.end_of_generation()[0];
    ASSERT_TRUE(matcher.AcceptToken(token))
        << token << " '" << vocabulary.bytes(token) << "' after '" << text << "'";
    if (matcher.IsTerminated()) {
      const ValidationResult result = Validate(ir, text);
      EXPECT_TRUE(result.valid()) << text << ": " << result.violations[0].message;
      ++walk.documents;
      return;
    }
    text += vocabulary.bytes(token);
  }
}

// Random walks over every schema of kSchemas: `seeds` walks of at most `steps` tokens each,
// the brute force compared every `check_every` states.
Walk WalkEverySchema(const std::shared_ptr<const Vocabulary>& vocabulary, uint32_t seeds,
                     size_t steps, size_t check_every, const GrammarOptions& options = {}) {
  Walk walk;
  for (const char* schema : kSchemas) {
    auto ir = CompileSchema(schema);
    EXPECT_TRUE(ir.ok()) << schema;
    if (!ir.ok()) continue;
    auto grammar = CompiledGrammar::Compile(*ir, vocabulary, options);
    EXPECT_TRUE(grammar.ok()) << grammar.error().message();
    if (!grammar.ok()) continue;
    for (uint32_t seed = 1; seed <= seeds; ++seed) {
      RandomWalk(*grammar, *ir, *vocabulary, seed, steps, check_every, walk);
    }
  }
  return walk;
}

TEST(GrammarMask, EqualsBruteForceOnSyntheticVocabulary) {
  const Walk walk = WalkEverySchema(SyntheticVocabulary(), 20, 400, 1);
  EXPECT_GT(walk.states, 1000u);
  EXPECT_GT(walk.documents, 40u);
}

// A run of whitespace bounded to 3 bytes: blank tokens are admitted by length, and what
// follows a run is walked once for every length.
TEST(GrammarMask, EqualsBruteForceUnderAWhitespaceBound) {
  GrammarOptions options;
  options.max_whitespace = 3;
  const Walk walk = WalkEverySchema(SyntheticVocabulary(), 6, 200, 1, options);
  EXPECT_GT(walk.states, 300u);
}

TEST(GrammarMask, EqualsBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  EXPECT_GT(WalkEverySchema(vocabulary, 3, 60, 7).states, 20u);
  GrammarOptions options;
  options.max_whitespace = 2;
  EXPECT_GT(WalkEverySchema(vocabulary, 2, 40, 5, options).states, 10u);
}

// Writes `text` greedily (the longest allowed token that starts the rest), comparing the mask
// with the brute force at every state; returns the states compared.
size_t GreedyWalkEqualsBruteForce(const std::shared_ptr<const Vocabulary>& vocabulary,
                                  const char* schema, const std::string& text,
                                  const GrammarOptions& options = {}) {
  auto ir = CompileSchema(schema);
  EXPECT_TRUE(ir.ok()) << schema;
  if (!ir.ok()) return 0;
  auto grammar = CompiledGrammar::Compile(*ir, vocabulary, options);
  EXPECT_TRUE(grammar.ok()) << grammar.error().message();
  if (!grammar.ok()) return 0;
  Matcher matcher(*grammar);
  std::vector<uint32_t> mask(vocabulary->mask_words());
  size_t at = 0;
  size_t states = 0;
  while (at < text.size()) {
    matcher.FillMask(mask);
    const std::vector<uint32_t> reference = BruteForce(matcher, *vocabulary);
    ++states;
    uint32_t chosen = 0;
    size_t longest = 0;
    for (uint32_t token = 0; token < vocabulary->size(); ++token) {
      EXPECT_EQ(Allowed(mask, token), Allowed(reference, token))
          << "token " << token << " '" << vocabulary->bytes(token) << "' after '"
          << text.substr(0, at) << "' in " << schema;
      if (Allowed(mask, token) != Allowed(reference, token)) return states;
      const std::string_view bytes = vocabulary->bytes(token);
      if (Allowed(mask, token) && bytes.size() > longest &&
          text.compare(at, bytes.size(), bytes) == 0) {
        chosen = token;
        longest = bytes.size();
      }
    }
    EXPECT_GT(longest, 0u) << "no token writes '" << text.substr(at) << "' in " << schema;
    if (longest == 0 || !matcher.AcceptToken(chosen)) return states;
    at += longest;
  }
  EXPECT_TRUE(matcher.CanEnd()) << text;
  return states;
}

using WalkCase = std::pair<const char*, std::string>;  // schema, text

// GreedyWalkEqualsBruteForce over each case, twice: with the pattern states' token sets made
// when the grammar compiles, and with each made by the mask step that first needs it. Returns
// the states compared in all.
size_t GreedyWalksEqualBruteForce(const std::shared_ptr<const Vocabulary>& vocabulary,
                                  std::span<const WalkCase> cases) {
  GrammarOptions on_first_use;
  on_first_use.precompute_us = 0;
  size_t states = 0;
  for (const auto& [schema, text] : cases) {
    states += GreedyWalkEqualsBruteForce(vocabulary, schema, text);
    states += GreedyWalkEqualsBruteForce(vocabulary, schema, text, on_first_use);
  }
  return states;
}

// A pattern's states are made when the grammar compiles: the mask steps through a string
// (its start, a key, the value after the colon) and through a name under patternProperties
// make nothing more, where a grammar compiled to make them on first use grows at the first.
TEST(GrammarMask, PatternStatesAreMadeWhenTheGrammarCompilesOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const std::pair<const char*, std::vector<const char*>> cases[] = {
      {R"({"type":"string","pattern":"^[^,:&]+:[^,:&]*$"})", {"\"", "key", ":", " value"}},
      {R"({"type":"object","patternProperties":{"^[a-z]{2,3}(-[A-Z]{2})?$":{"type":"string"}},"additionalProperties":false})",
       {"{\"", "de", "-", "D"}},
  };
  GrammarOptions on_first_use;
  on_first_use.precompute_us = 0;
  GrammarOptions all_ahead;  // a budget no build runs out of, sanitized or not
  all_ahead.precompute_us = 60'000'000;
  std::vector<uint32_t> mask(vocabulary->mask_words());
  for (const auto& [schema, pieces] : cases) {
    auto ir = CompileSchema(schema);
    ASSERT_TRUE(ir.ok()) << schema;
    auto ahead = CompiledGrammar::Compile(*ir, vocabulary, all_ahead);
    auto lazy = CompiledGrammar::Compile(*ir, vocabulary, on_first_use);
    ASSERT_TRUE(ahead.ok() && lazy.ok()) << schema;
    const size_t compiled = (*ahead)->memory_bytes();
    EXPECT_GT(compiled, (*lazy)->memory_bytes()) << schema;
    Matcher matcher(*ahead);
    for (const char* bytes : pieces) {
      ASSERT_TRUE(matcher.AcceptBytes(bytes)) << bytes;
      matcher.FillMask(mask);
      EXPECT_EQ((*ahead)->memory_bytes(), compiled) << "after " << bytes << " in " << schema;
    }
    const size_t lazy_compiled = (*lazy)->memory_bytes();
    Matcher first_use(*lazy);
    ASSERT_TRUE(first_use.AcceptBytes(pieces.front()));
    first_use.FillMask(mask);
    EXPECT_GT((*lazy)->memory_bytes(), lazy_compiled) << schema;
  }
}

// Strings whose pattern some token can kill, under a length bound that binds near their end.
// The word-count pattern steps tens of thousands of tokens with whitespace (only the longest
// are listed by need); the others, few; the escape in the second text is stepped token by
// token.
TEST(GrammarMask, BoundedPatternStringsEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"array","items":{"type":"string","pattern":"^(?:\\S+\\s+){0,3}\\S+$","maxLength":30}})",
       R"(["Experience of working with","a\nb  c d","x"])"},
      {R"({"type":"string","pattern":"^(\\d+\\.\\d+\\.\\d+.*)$","maxLength":12})",
       R"("1.22.333-rc1")"},
      {R"({"type":"string","pattern":"^-?[A-Za-z][A-Za-z0-9]*(\\.[A-Za-z][A-Za-z0-9]*)*$","maxLength":14})",
       R"("Sixaxis1.R2.Ab")"},
      {R"({"type":"string","pattern":"^[a-z\u00e9 ]+$","maxLength":10})",
       "\"\xc3\xa9 a \xc3\xa9\xc3\xa9 b\""},
      // Letters in pairs: the safe bytes reach states that need 0 or 1 more code point.
      {R"({"type":"string","pattern":"^([a-z][a-z])*$","maxLength":7})", R"("abcdef")"},
      // Word counts with no length bound: the stepped tokens are merged by byte class, and
      // Unicode blanks (U+00A0, U+3000), CJK text, escapes and an escaped quote are stepped.
      {R"({"type":"string","pattern":"^(?:\\S+\\s+){0,6}\\S+$"})",
       "\"a\xc2\xa0"
       "b\xe3\x80\x80\xe4\xbd\xa0\xe5\xa5\xbd c\\td \\\"e\\\" f\""},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 20u);
}

// A count far from its bound: each new count's state takes the StringInside of one walked
// before it that no token tells apart (SameWithin), with its own safe tokens' needs; near
// the bound, the states are walked again.
TEST(GrammarMask, StatesAlikeWithinTheLongestTokenEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"string","pattern":"^([a-z ]*[0-9]){0,300}[a-z ]*$"})",
       R"("ab1 cd2 ef3 gh4 ij5 kl6 mn7 op8 qr9 st0 uv")"},
      {R"({"type":"string","pattern":"^([a-z ]*[0-9]){0,12}[a-z ]*$"})",
       R"("a1b2c3d4 e5 f6 g7 h8 i9 j0 k1 l2 mm")"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 20u);
}

// Word counts: each word is a state that tokens as long as the longest one tell apart from the
// others, so each is walked; after the first few, a mask step merges the split's tokens by
// byte class (a ClassTrie) and walks the merged trie. Bounded and unbounded, with words of
// several scripts and an escaped newline between them.
TEST(GrammarMask, WordCountsEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"string","pattern":"^(?:\\S+\\s+){0,9}\\S+$","maxLength":80})",
       R"("one two three four five six seven eight nine ten")"},
      {R"({"type":"string","pattern":"^(?:\\S+\\s+){0,7}\\S+$"})",
       R"("Grüße aus Köln,\nund 東京 и Москва too")"},
  };
  // On first use first, so that the merged trie is built in a mask step, not ahead.
  GrammarOptions on_first_use;
  on_first_use.precompute_us = 0;
  size_t states = 0;
  for (const auto& [schema, text] : cases)
    states += GreedyWalkEqualsBruteForce(vocabulary, schema, text, on_first_use);
  EXPECT_GT(states, 15u);
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 30u);
}

// Names of a closed object under patternProperties where declared names go on through bytes
// that kill the pattern ('@' and '/'): the tokens along the declared names are stepped beside
// the pattern's split.
TEST(GrammarMask, DeclaredNamesBesideAPatternEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const char* schema =
      R"({"type":"object","patternProperties":{"^[a-z-]*$":{"type":"string"}},"properties":{"@qooxdoo/framework":{"type":"integer"},"@qooxdoo/compiler":{"type":"boolean"}},"required":["@qooxdoo/compiler"],"additionalProperties":false})";
  const size_t states = GreedyWalkEqualsBruteForce(
      vocabulary, schema,
      R"({"qooxdoo-framework":"a","@qooxdoo/compiler":true,"@qooxdoo/framework":12})");
  EXPECT_GT(states, 15u);
}

// Counted patterns ([class]{m,n}): the automaton refuses its letters only once the count runs
// out, so a state's split keeps them safe within a horizon (SplitForCount) and the tokens
// with longer runs are cut out. Keys under a closed object's patternProperties and plain
// string values, written up to the count's end; the bounds fall above the longest run of
// such letters in a token, below it, and below kDeepRun; past the count, letters are
// refused, or only some of them are (no cut then).
TEST(GrammarMask, CountedPatternsEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"object","patternProperties":{"^[0-9a-zA-Z_-]{1,255}$":{"type":"string"}},"additionalProperties":false})",
       R"({"tag1":"a","another_example_object_with_a_long_name":"b"})"},
      {R"({"type":"object","patternProperties":{"^[a-zA-Z0-9-]{1,24}$":{"type":"integer"}},"additionalProperties":false})",
       R"({"program-123":1,"abcdefghijklmnopqrstuvwx":2})"},
      {R"({"type":"object","patternProperties":{"^[a-z0-9]{1,6}$":{"type":"boolean"}},"additionalProperties":false})",
       R"({"key1":true,"abcdef":false})"},
      {R"({"type":"array","items":{"type":"string","pattern":"^[A-Za-z_]{2,20}$"}})",
       R"(["ab","Experience_of_workin"])"},
      {R"({"type":"string","pattern":"^[a-z]{1,12}[0-9]*$"})", R"("abcdefghijkl123")"},
      // Past the count only some of its letters go on: runs longer than the horizon are
      // stepped, not refused.
      {R"({"type":"string","pattern":"^[a-z]{1,6}b*$"})", R"("abcdefbbbbbbbbbbbbbb")"},
      {R"({"type":"string","pattern":"^[a-z]{1,6}b*$"})", R"("bbbbbbbbbbbbbbbbbbbb")"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 30u);
}

// Names once the required ones left fill the places maxProperties leaves: a closed object
// under patternProperties and an open one; the mask keeps only the tokens that can still
// spell a required name.
TEST(GrammarMask, NamesUnderMaxPropertiesEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"object","patternProperties":{"^[a-e]$":true},"properties":{"bb":{}},"additionalProperties":false,"required":["a","bb"],"maxProperties":3})",
       R"({"e":1,"bb":2,"a":3})"},
      {R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name","identifier"],"maxProperties":3})",
       R"({"x":1,"identifier":2,"name":"n"})"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 15u);
}

// One pattern in several strings, each under its own length bound: the tokens inside are
// found once per bound a token can reach, and the unbounded string's serve the bound no token
// reaches; grammars of the same pattern share them.
TEST(GrammarMask, OnePatternUnderSeveralBoundsEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"object","properties":{"b":{"type":"string","pattern":"^[a-z]+( [a-z]+)*$","maxLength":8},"a":{"type":"string","pattern":"^[a-z]+( [a-z]+)*$"},"c":{"type":"string","pattern":"^[a-z]+( [a-z]+)*$","maxLength":1000}},"required":["a","b","c"],"additionalProperties":false})",
       R"({"b":"ab cd ef","a":"some words here","c":"more words to write"})"},
      // The same pattern in grammars of their own, which share what the process found.
      {R"({"type":"string","pattern":"^[a-z]+( [a-z]+)*$","maxLength":7})", R"("ab cd e")"},
      {R"({"type":"string","pattern":"^[a-z]+( [a-z]+)*$"})", R"("some words here")"},
      {R"({"type":"string","pattern":"^[a-z]+( [a-z]+)*$","maxLength":7})", R"("ab cd e")"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 15u);
}

// A thread whose scratch was made ready for the whole vocabulary (as an engine thread's is)
// gives the same masks: walks of patterns whose splits leave many tokens to step, one after
// the other, reuse the scratch without reading what an earlier walk left in it.
TEST(GrammarMask, PreparedThreadEqualsBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"string","pattern":"^(?:\\S+\\s+){0,3}\\S+$"})", R"("two words")"},
      {R"({"type":"string","pattern":"^[^,:&]+:[^,:&]*$","maxLength":12})", R"("key: value")"},
  };
  size_t compared = 0;
  std::thread engine([&] {
    Matcher::PrepareThread(*vocabulary);
    compared = GreedyWalksEqualBruteForce(vocabulary, cases);
  });
  engine.join();
  EXPECT_GT(compared, 8u);
}

// Declared names that the patterns also take, once written: the split decides names by the
// patterns, and the tokens along the declared names are stepped instead.
TEST(GrammarMask, WrittenNamesThePatternsTakeEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"object","patternProperties":{"^[a-e]$":{"type":"integer"},"^id[0-9]$":{}},"properties":{"a":{"type":"integer"},"id1":{},"bb":{}},"additionalProperties":false})",
       R"({"a":1,"id1":2,"bb":3,"id2":4,"c":5})"},
      // Names of up to six letters, "status" declared: once written, the tokens that would
      // spell it again (after "stat", "us") are refused, though the split takes letters.
      {R"({"type":"object","patternProperties":{"^[a-z]{1,6}$":{"type":"integer"}},"properties":{"status":{"type":"integer"}},"additionalProperties":false})",
       R"({"status":1,"stat":2,"statu":3,"stats":4})"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 15u);
}

// Bounded numbers: an enum of integers (sorted once, found by bisection), and the same
// bounded number under alternatives that differ only below it (one walk for all, each
// alternative's own continuation after it): an allOf of anyOf `required` makes one object
// per combination, and only those whose required names are written may close.
TEST(GrammarMask, BoundedNumbersUnderAlternativesEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const char* const kEitherRequired =
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"t":{"type":"number","minimum":0,"maximum":1}},"additionalProperties":false,"allOf":[{"anyOf":[{"required":["a"]},{"required":["b"]}]}]})";
  const WalkCase cases[] = {
      {R"({"type":"array","items":{"type":"integer","enum":[50,75,300,9600,19200,115200]}})",
       R"([9600,75,115200,300])"},
      {R"({"$defs":{"u":{"type":"number","minimum":0,"maximum":1}},"anyOf":[{"type":"object","properties":{"t":{"$ref":"#/$defs/u"},"a":{"type":"string"}},"additionalProperties":false},{"type":"object","properties":{"t":{"$ref":"#/$defs/u"},"b":{"type":"integer"}},"additionalProperties":false}]})",
       R"({"t":0.5,"b":3})"},
      {R"({"$defs":{"u":{"type":"number","minimum":0,"maximum":1}},"anyOf":[{"type":"array","items":{"$ref":"#/$defs/u"},"minItems":3},{"type":"array","items":{"$ref":"#/$defs/u"},"maxItems":2}]})",
       R"([0.5,1,0.25])"},
      {R"({"$defs":{"u":{"type":"number","minimum":0,"maximum":1}},"anyOf":[{"type":"array","items":{"$ref":"#/$defs/u"},"minItems":3},{"type":"array","items":{"$ref":"#/$defs/u"},"maxItems":2}]})",
       R"([0.5,1])"},
      {kEitherRequired, R"({"a":1,"t":0.5})"},
      {kEitherRequired, R"({"b":2,"t":0.25})"},
      {R"({"type":"array","items":{"anyOf":[{"type":"number","exclusiveMinimum":-2.5,"maximum":40},{"type":"array","items":{"type":"number","exclusiveMinimum":-2.5,"maximum":40}}]}})",
       R"([-2.25,[39.5,0],12e-1])"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 25u);
}

// Splits that take more than a count or a self-loop: the dot-atom of an e-mail's local part
// (a count of 64 whose dot cannot follow a dot: the run that counts starts after the first
// byte), a pattern whose `$(` detour refuses the letters its loop takes (the class into the
// detour is dropped instead), and a search pattern under a close length bound (the inside
// tokens near the bound stepped one by one).
TEST(GrammarMask, DotAtomsDetoursAndCloseBoundsEqualBruteForceOnLlama3) {
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  const WalkCase cases[] = {
      {R"({"type":"string","format":"email"})", R"("john.doe@example.com")"},
      {R"({"type":"string","format":"email"})",
       R"("a.very.long.local.part.that.runs.close.to.the.limit.of.sixty4@vu.nl")"},
      {R"({"type":"string","pattern":"^(?:(?:[\\w\\-\\.\\s]+)|(?:\\$\\([\\w\\-\\.]+\\)))+$"})",
       R"("My Metric $(nf.region) static-value")"},
      {R"({"type":"string","pattern":"[0-9a-fA-F]+","minLength":12,"maxLength":12})",
       R"("0123456789ab")"},
      {R"({"type":"string","pattern":"[0-9a-fA-F]+","minLength":3,"maxLength":14})",
       R"("xyz world 7 q")"},
  };
  EXPECT_GT(GreedyWalksEqualBruteForce(vocabulary, cases), 40u);
}

// An enum number matches what the validator reads as it: the instance's text as a double.
// Digits that spell the point in any form are taken to the end, and digits that no exponent
// or further digit can turn into a point are refused where they are written.
TEST(GrammarNumbers, EnumNumbersAreReadAsTheValidatorReadsThem) {
  const char* schema = R"({"enum":[-2.00001,4,1e-5,0]})";
  auto ir = CompileSchema(schema);
  ASSERT_TRUE(ir.ok());
  auto grammar = CompiledGrammar::Compile(*ir, nullptr, {});
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  auto accepts = [&](const std::string& text) {
    Matcher matcher(*grammar);
    return matcher.AcceptBytes(text) && matcher.CanEnd();
  };
  auto takes_prefix = [&](const std::string& text) { return Matcher(*grammar).AcceptBytes(text); };
  for (const char* text :
       {"4", "4.0", "400e-2", "0.004000000000000000e3", "0.4E1", "-2.00001",
        "-0.002000010000000000e3", "-200001e-5", "1e-5", "0.00001", "0", "0.000", "-0"}) {
    EXPECT_TRUE(accepts(text)) << text;
    EXPECT_TRUE(Validate(*ir, text).valid()) << text;
  }
  for (const char* text : {"5", "4.1", "-2.0001", "0.00399999", "-1", "1e-4"}) {
    EXPECT_FALSE(takes_prefix(text)) << text;
    EXPECT_FALSE(Validate(*ir, text).valid()) << text;
  }
  // Digits that no exponent or further digit turns into a point are refused where they are
  // written, not at the end; those that round to one go on (0.3 then nines reads as 4 at e1).
  EXPECT_FALSE(takes_prefix("7"));
  EXPECT_FALSE(takes_prefix("-3"));
  EXPECT_TRUE(takes_prefix("0.3"));
  EXPECT_TRUE(accepts("0.399999999999999999e1"));
  EXPECT_TRUE(Validate(*ir, "0.399999999999999999e1").valid());
  EXPECT_TRUE(takes_prefix("0.0000"));
}

}  // namespace
}  // namespace crux::constrain
