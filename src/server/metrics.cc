#include "server/metrics.h"

#include <cstdio>

namespace crux::server {
namespace {

void AppendNumber(std::string& out, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  out += buf;
}

}  // namespace

void Histogram::Observe(double seconds) {
  size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i])
    ++i;
  ++buckets_[i];
  ++count_;
  sum_micros_ += static_cast<uint64_t>(seconds * 1e6);
}

void Histogram::Render(std::string& out, std::string_view name, std::string_view help) const {
  // Appended piece by piece: `"literal" + std::string` prepends, which gcc 12 misreads as an
  // overlapping copy (a false -Wrestrict) once inlined here.
  auto line = [&out, name](std::string_view suffix) {
    out.append(name);
    out.append(suffix);
  };
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" histogram\n");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kBounds.size(); ++i) {
    cumulative += buckets_[i].load();
    line("_bucket{le=\"");
    if (i < kBounds.size()) {
      AppendNumber(out, kBounds[i]);
    } else {
      out.append("+Inf");
    }
    out.append("\"} ").append(std::to_string(cumulative)).append("\n");
  }
  line("_sum ");
  AppendNumber(out, static_cast<double>(sum_micros_.load()) / 1e6);
  out.append("\n");
  line("_count ");
  out.append(std::to_string(count_.load())).append("\n");
}

void Metrics::RequestDone(Endpoint endpoint, int status, double seconds) {
  const int cls = status / 100 - 1;
  if (cls >= 0 && cls < kStatusClasses) ++requests_[endpoint][static_cast<size_t>(cls)];
  duration_.Observe(seconds);
}

void Metrics::RenderHistograms(std::string& out) const {
  duration_.Render(out, "crux_request_duration_seconds",
                   "Time from request to complete response (handed to the socket).");
  ttfb_.Render(out, "crux_time_to_first_byte_seconds",
               "Time from request to the first byte of model output.");
  prepare_.Render(out, "crux_request_prepare_seconds",
                  "Time from request to its submission to the engine: decoding the body, "
                  "rendering and tokenizing the prompt.");
}

void Metrics::RenderMcp(std::string& out) const {
  out += "# HELP crux_mcp_calls_total MCP tool calls run by the server, by outcome.\n";
  out += "# TYPE crux_mcp_calls_total counter\n";
  out += "crux_mcp_calls_total{result=\"ok\"} " + std::to_string(mcp_calls_ok_.load()) + "\n";
  out += "crux_mcp_calls_total{result=\"error\"} " + std::to_string(mcp_call_errors_.load()) + "\n";
  mcp_call_.Render(out, "crux_mcp_call_seconds", "Time of one MCP tool call.");
}

std::string Metrics::Render() const {
  static constexpr const char* kEndpoints[] = {"chat_completions", "messages", "responses",
                                               "completions", "other"};
  std::string out;
  out += "# HELP crux_requests_total HTTP requests by endpoint and status class.\n";
  out += "# TYPE crux_requests_total counter\n";
  for (int e = 0; e < kEndpointCount; ++e) {
    for (int c = 0; c < kStatusClasses; ++c) {
      out += "crux_requests_total{endpoint=\"" + std::string(kEndpoints[e]) + "\",status=\"" +
             std::to_string(c + 1) + "xx\"} " +
             std::to_string(requests_[static_cast<size_t>(e)][static_cast<size_t>(c)].load()) +
             "\n";
    }
  }
  out += "# HELP crux_prompt_tokens_total Prompt tokens processed.\n";
  out += "# TYPE crux_prompt_tokens_total counter\n";
  out += "crux_prompt_tokens_total " + std::to_string(prompt_tokens_.load()) + "\n";
  out += "# HELP crux_generation_tokens_total Tokens generated.\n";
  out += "# TYPE crux_generation_tokens_total counter\n";
  out += "crux_generation_tokens_total " + std::to_string(completion_tokens_.load()) + "\n";
  out +=
      "# HELP crux_reasoning_lone_end_markers_total Reasoning end markers with no block to close, "
      "kept in the answer (the prompt may have opened a block the parser was not told about).\n";
  out += "# TYPE crux_reasoning_lone_end_markers_total counter\n";
  out += "crux_reasoning_lone_end_markers_total " + std::to_string(lone_end_markers_.load()) + "\n";
  out +=
      "# HELP crux_tool_calls_promoted_total Tool-call blocks found inside reasoning and handed "
      "to the tool parser.\n";
  out += "# TYPE crux_tool_calls_promoted_total counter\n";
  out += "crux_tool_calls_promoted_total " + std::to_string(promoted_tool_calls_.load()) + "\n";
  out +=
      "# HELP crux_cancelled_total Generations cancelled (client gone, client cut, deadline or "
      "shutdown).\n";
  out += "# TYPE crux_cancelled_total counter\n";
  out += "crux_cancelled_total " + std::to_string(cancelled_.load()) + "\n";
  out +=
      "# HELP crux_clients_cut_total Clients cut for not reading (--write-timeout or "
      "--max-buffered-bytes).\n";
  out += "# TYPE crux_clients_cut_total counter\n";
  out += "crux_clients_cut_total " + std::to_string(clients_cut_.load()) + "\n";
  out += "# HELP crux_open_connections Client connections open.\n";
  out += "# TYPE crux_open_connections gauge\n";
  out += "crux_open_connections " + std::to_string(open_connections_.load()) + "\n";
  out += "# HELP crux_connections_refused_total Connections answered 503 at --max-connections.\n";
  out += "# TYPE crux_connections_refused_total counter\n";
  out += "crux_connections_refused_total " + std::to_string(connections_refused_.load()) + "\n";
  out += "# HELP crux_active_streams Streaming responses in progress.\n";
  out += "# TYPE crux_active_streams gauge\n";
  out += "crux_active_streams " + std::to_string(active_streams_.load()) + "\n";
  out += "# HELP crux_active_generations Generations in flight.\n";
  out += "# TYPE crux_active_generations gauge\n";
  out += "crux_active_generations " + std::to_string(active_generations_.load()) + "\n";
  RenderHistograms(out);
  RenderMcp(out);
  return out;
}

}  // namespace crux::server
