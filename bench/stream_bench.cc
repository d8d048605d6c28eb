// crux_stream_bench: streams a 32,000-token output through each parser in token-sized pieces
// and prints, per parser: the cost per piece at the start and at the end of the stream
// (median and p99 over groups of pieces, median over runs), their ratio, the whole-stream time
// (median and worst run), complete-text parsing throughput, and the tool calls the complete
// parse found (a check that the figures measure real parsing).
//
// Usage: crux_stream_bench [--runs N] [--filter SUBSTRING]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bench_text.h"
#include "crux/parse/output_parser.h"
#include "crux/parse/parser.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/parse/result.h"
#include "crux/parse/tools/registry.h"

namespace crux::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Scenario {
  std::string label;
  std::string reasoning_parser;
  std::string tool_parser;
  std::function<TokenStream()> make;
};

constexpr size_t kGroup = 32;         // pieces timed together
constexpr size_t kEdgePieces = 1024;  // "start" and "end" windows

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i =
      std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

std::unique_ptr<parse::StreamParser> Make(const Scenario& s) {
  std::unique_ptr<parse::ReasoningParser> r;
  std::unique_ptr<parse::ToolParser> t;
  if (!s.reasoning_parser.empty()) r = std::move(*parse::CreateReasoningParser(s.reasoning_parser));
  if (!s.tool_parser.empty()) {
    auto created = parse::CreateToolParser(s.tool_parser);
    if (!created.ok()) return nullptr;
    t = std::move(*created);
  }
  return std::make_unique<parse::OutputParser>(std::move(r), std::move(t));
}

struct RunFigures {
  std::vector<double> start_ns;  // per-piece cost of each group in the start window
  std::vector<double> end_ns;
  double total_ms = 0;
  double complete_mb_s = 0;
  size_t events = 0;
};

RunFigures RunOnce(parse::StreamParser& parser, const TokenStream& stream) {
  RunFigures f;
  parse::EventSink sink;
  parser.Reset();
  const size_t n = stream.pieces.size();
  const auto begin = Clock::now();
  for (size_t g = 0; g < n; g += kGroup) {
    const size_t end = std::min(n, g + kGroup);
    const auto t0 = Clock::now();
    for (size_t i = g; i < end; ++i) {
      parser.Feed(stream.pieces[i], sink);
      f.events += sink.events().size();
      sink.Clear();
    }
    const auto t1 = Clock::now();
    const double per_piece =
        std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(end - g);
    if (g < kEdgePieces) f.start_ns.push_back(per_piece);
    if (g + kEdgePieces >= n) f.end_ns.push_back(per_piece);
  }
  parser.Finish(sink);
  f.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();

  // Complete-text parsing: one Feed of the whole text (repeated to get a stable figure).
  const int reps = 5;
  const auto c0 = Clock::now();
  for (int i = 0; i < reps; ++i) {
    sink.Clear();
    parser.Reset();
    parser.Feed(stream.text, sink);
    parser.Finish(sink);
  }
  const double secs = std::chrono::duration<double>(Clock::now() - c0).count();
  f.complete_mb_s = static_cast<double>(stream.text.size()) * reps / secs / 1e6;
  return f;
}

std::vector<Scenario> Scenarios() {
  std::vector<Scenario> s;
  auto reasoning = [](const char* format) {
    return [format] { return ReasoningStream(format, 30000, 2000); };
  };
  s.push_back({"reasoning think", "think", "", reasoning("think")});
  s.push_back({"reasoning qwen3", "qwen3", "", reasoning("think")});
  s.push_back({"reasoning deepseek_r1", "deepseek_r1", "", reasoning("think")});
  s.push_back({"reasoning glm4", "glm4", "", reasoning("think")});
  s.push_back({"reasoning poolside_v1", "poolside_v1", "", reasoning("think")});
  s.push_back({"reasoning step3p5", "step3p5", "", reasoning("think")});
  s.push_back({"reasoning mistral", "mistral", "", reasoning("mistral")});
  s.push_back({"reasoning gemma4", "gemma4", "", reasoning("gemma4")});
  s.push_back({"reasoning harmony", "harmony", "", reasoning("harmony")});
  s.push_back({"reasoning gpt_oss", "gpt_oss", "", reasoning("harmony")});
  s.push_back({"reasoning command_r7b", "command_r7b", "", reasoning("command_r7b")});
  s.push_back({"reasoning apertus", "apertus", "", reasoning("apertus")});
  // "tools": prose with 50 calls spread through it. Formats whose calls must open the output
  // (llama's bare JSON, xlam's list, functionary's first recipient) or end the turn (ling3's
  // <|role_end|>) have no text between calls; they run the "calls" layout only.
  static const std::set<std::string, std::less<>> kNoTextBetweenCalls = {"llama", "xlam",
                                                                         "functionary", "ling3"};
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr || kNoTextBetweenCalls.contains(info.name)) continue;
    const parse::CallGrammar* grammar = info.grammar;
    s.push_back({"tools " + std::string(info.name), "", std::string(info.name),
                 [grammar] { return ToolStream(*grammar, 32000, 50); }});
  }
  // "calls": the whole output is 50 calls with long string arguments streamed as they come.
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const parse::CallGrammar* grammar = info.grammar;
    s.push_back({"calls " + std::string(info.name), "", std::string(info.name),
                 [grammar] { return ToolArgsStream(*grammar, 32000, 50); }});
  }
  return s;
}

}  // namespace
}  // namespace crux::bench

int main(int argc, char** argv) {
  using namespace crux::bench;
  int runs = 7;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
  }
  std::printf("%-28s %7s %8s | %9s %9s | %9s %9s | %6s | %9s %9s | %9s | %5s\n", "scenario",
              "pieces", "KB", "start p50", "start p99", "end p50", "end p99", "end/st", "stream ms",
              "worst ms", "full MB/s", "calls");
  // Half a second of parsing first, so the first scenario does not pay for the CPU leaving
  // its idle state.
  {
    const Scenario warm = Scenarios().front();
    auto parser = Make(warm);
    const TokenStream stream = warm.make();
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    while (Clock::now() < until)
      RunOnce(*parser, stream);
  }
  for (const Scenario& sc : Scenarios()) {
    if (!filter.empty() && sc.label.find(filter) == std::string::npos) continue;
    auto parser = Make(sc);
    if (!parser) {
      std::printf("%-28s (parser not available)\n", sc.label.c_str());
      continue;
    }
    const TokenStream stream = sc.make();
    std::vector<double> start50, start99, end50, end99, total, mbs;
    RunOnce(*parser, stream);  // warm-up
    for (int r = 0; r < runs; ++r) {
      RunFigures f = RunOnce(*parser, stream);
      start50.push_back(Percentile(f.start_ns, 0.5));
      start99.push_back(Percentile(f.start_ns, 0.99));
      end50.push_back(Percentile(f.end_ns, 0.5));
      end99.push_back(Percentile(f.end_ns, 0.99));
      total.push_back(f.total_ms);
      mbs.push_back(f.complete_mb_s);
    }
    const double s50 = Percentile(start50, 0.5), e50 = Percentile(end50, 0.5);
    const size_t calls = crux::parse::ParseComplete(*parser, stream.text).tool_calls.size();
    std::printf(
        "%-28s %7zu %8.1f | %7.0fns %7.0fns | %7.0fns %7.0fns | %6.2f | %9.2f %9.2f | %9.0f | "
        "%5zu\n",
        sc.label.c_str(), stream.pieces.size(), stream.text.size() / 1024.0, s50,
        Percentile(start99, 0.5), e50, Percentile(end99, 0.5), e50 / s50, Percentile(total, 0.5),
        Percentile(total, 1.0), Percentile(mbs, 0.5), calls);
  }
  return 0;
}
