// `crux serve`: the OpenAI / Anthropic / Responses compatible server.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "crux/chat_template/template.h"
#include "crux/commands.h"
#include "crux/engine/mock_engine.h"
#include "crux/engine/upstream_engine.h"
#include "crux/mcp_support.h"
#ifdef CRUX_HAVE_LLAMA
#include "crux/engine/llama_engine.h"
#endif
#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"
#include "crux/protocol/response_store.h"
#include "crux/server/server.h"

namespace crux::app {
namespace {

struct ServeFlags {
  server::ServerConfig server;
  std::string engine;  // "": llama when --model is given, else mock
  std::string script;
  std::string model;  // --model: a GGUF file
  std::string mcp_config;
  // --engine upstream
  std::string upstreams;  // URL[,URL…]
  std::string upstream_kind = "llama-server";
  std::string upstream_model;
  std::string upstream_api_key;
  double upstream_timeout_s = 600;
  double upstream_health_interval_s = 2;
  int ctx_size = 4096;
  int parallel = 4;
  int threads = 0;
  int batch_size = 512;
  int gpu_layers = 0;
  double tokens_per_second = 0;
  std::string reasoning_parser;
  std::string tool_parser;
  bool enable_auto_tool_choice = false;
  bool no_tool_call_promotion = false;
  std::string chat_template_file;
  int default_thinking_budget = 0;
  double grammar_precompute_ms = -1;  // unset: the grammar's default
  size_t response_store_bytes = 64u << 20;
  double response_store_ttl_s = 86400;
};

int Fail(const std::string& message) {
  std::cerr << "crux serve: " << message << "\n";
  return 2;
}

Expected<std::unique_ptr<engine::Engine>> MakeLlama(ServeFlags& flags) {
  if (flags.model.empty()) {
    return Error(ErrorCode::kInvalidArgument, "--engine llama needs --model FILE.gguf");
  }
#ifdef CRUX_HAVE_LLAMA
  engine::LlamaEngineOptions options;
  options.model_path = flags.model;
  options.model_id = flags.server.served_model_name;
  options.context_size = flags.ctx_size;
  options.parallel = flags.parallel;
  options.threads = flags.threads;
  options.batch_size = flags.batch_size;
  options.gpu_layers = flags.gpu_layers;
  options.progress_bar = isatty(STDERR_FILENO) != 0;
  spdlog::info("loading model {}", flags.model);
  auto made = engine::MakeLlamaEngine(options);
  if (!made.ok()) return made.error();
  const engine::ModelInfo info = (*made)->Models().front();
  spdlog::info(
      "model '{}' loaded: {} parameters, {} tokens in its vocabulary, {} slots of {} "
      "tokens",
      info.id, info.parameters, info.vocabulary_size, flags.parallel, info.context_length);
  flags.server.served_model_name.clear();  // the engine serves the name itself
  return made;
#else
  return Error(ErrorCode::kUnsupported,
               "this crux was built without llama.cpp, so it cannot run --model; build "
               "llama.cpp with scripts/build-llama-cpp.sh and configure crux with "
               "-DCMAKE_PREFIX_PATH=<the prefix it prints>");
#endif
}

std::vector<std::string> SplitUrls(const std::string& list) {
  std::vector<std::string> urls;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string url = list.substr(start, comma - start);
    url.erase(0, url.find_first_not_of(" \t"));
    url.erase(url.find_last_not_of(" \t") + 1);
    if (!url.empty()) urls.push_back(std::move(url));
    start = comma + 1;
  }
  return urls;
}

Expected<std::unique_ptr<engine::Engine>> MakeUpstream(ServeFlags& flags) {
  auto kind = engine::ParseUpstreamKind(flags.upstream_kind);
  if (!kind.ok()) return kind.error();
  if (!(flags.upstream_timeout_s > 0) || !(flags.upstream_health_interval_s > 0)) {
    return Error(ErrorCode::kInvalidArgument,
                 "--upstream-timeout and --upstream-health-interval must be positive");
  }
  engine::UpstreamOptions options;
  options.urls = SplitUrls(flags.upstreams);
  options.kind = *kind;
  options.upstream_model = flags.upstream_model;
  options.model_id = flags.server.served_model_name;
  options.api_key = flags.upstream_api_key;
  if (options.api_key.empty()) {
    if (const char* key = std::getenv("CRUX_UPSTREAM_API_KEY")) options.api_key = key;
  }
  const auto ms = [](double s) {
    return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  };
  options.request_timeout = ms(flags.upstream_timeout_s);
  options.health_interval = ms(flags.upstream_health_interval_s);
  spdlog::info("waiting for the upstreams ({}, {})", flags.upstreams, flags.upstream_kind);
  auto made = engine::MakeUpstreamEngine(std::move(options));
  if (!made.ok()) return made.error();
  const engine::ModelInfo info = (*made)->Models().front();
  spdlog::info("serving upstream model '{}' from {} upstream(s){}", info.id,
               (*made)->Upstreams().size(),
               info.chat_template.empty() ? "" : "; the chat template came from the upstream");
  flags.server.served_model_name.clear();  // the engine serves the name itself
  return std::unique_ptr<engine::Engine>(std::move(*made));
}

// The engine --engine names (llama: --model; mock: replaying --script; upstream: --upstream);
// a script directory names its own models, so --served-model-name is cleared for it.
Expected<std::unique_ptr<engine::Engine>> MakeEngine(ServeFlags& flags) {
  if (flags.engine.empty()) {
    flags.engine = !flags.upstreams.empty() ? "upstream" : flags.model.empty() ? "mock" : "llama";
  }
  if (flags.engine == "llama") return MakeLlama(flags);
  if (flags.engine == "upstream") return MakeUpstream(flags);
  if (flags.engine != "mock") {
    return Error(ErrorCode::kInvalidArgument,
                 "unknown --engine '" + flags.engine + "'; available: llama, mock, upstream");
  }
  if (flags.script.empty()) {
    return Error(ErrorCode::kInvalidArgument, "--engine mock needs --script FILE or DIRECTORY");
  }
  const std::string name =
      flags.server.served_model_name.empty() ? "mock" : flags.server.served_model_name;
  auto scripts = engine::LoadMockScripts(flags.script, name);
  if (!scripts.ok()) return scripts.error();
  engine::MockEngineOptions options;
  options.scripts = std::move(*scripts);
  options.tokens_per_second = flags.tokens_per_second;
  if (flags.server.served_model_name.empty() || options.scripts.size() > 1) {
    flags.server.served_model_name.clear();  // a script directory names its own models
  }
  return engine::MakeMockEngine(std::move(options));
}

// A loaded model brings its own chat template (unless --chat-template gave one) and, where
// its template shows them, the parsers of its family (unless the flags named them).
void ApplyModelDefaults(ServeFlags& flags, const engine::Engine& engine) {
  const engine::ModelInfo info = engine.Models().front();
  if (info.chat_template.empty()) return;
  if (flags.server.pipeline.chat_template == nullptr) {
    auto parsed = chat_template::Template::Parse(info.chat_template);
    if (parsed.ok()) {
      flags.server.pipeline.chat_template = *parsed;
      spdlog::info("rendering prompts with the model's own chat template");
    } else {
      spdlog::warn(
          "the model's chat template does not parse ({}); rendering ChatML instead "
          "(give one with --chat-template)",
          parsed.error().message());
    }
  }
  if (flags.tool_parser.empty()) {
    if (auto family = parse::DetectToolParserFromTemplate(info.chat_template)) {
      flags.server.pipeline.tool_parser = std::string(*family);
      spdlog::info("tool-call parser from the chat template: {}", *family);
    }
  }
  if (flags.reasoning_parser.empty() && info.chat_template.find("</think>") != std::string::npos) {
    flags.server.pipeline.reasoning_parser = "qwen3";
    spdlog::info("reasoning parser from the chat template: qwen3 (<think> ... </think>)");
  }
}

// Keeps large blocks in the heap and freed memory in the process. glibc's defaults hand every
// block over 128 KB (the threshold then adapts, up to 32 MB) back to the kernel on free, so a
// server that reads a 500 KB conversation per request takes fresh pages, and a page fault for
// each, for the body, its strings and the rendered prompt on every turn: rendering a 500 KB
// prompt took 3.4 ms, 1.1 ms with these settings. The cost is up to 64 MB of freed memory kept
// per arena for reuse.
void TuneAllocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

// MCP runs tools on this machine: say loudly when a setting exposes them to browsers or to
// anyone who can reach the port.
void WarnAboutMcpExposure(const server::ServerConfig& s) {
  for (const std::string& host : s.allowed_hosts) {
    if (host == "*") {
      spdlog::warn(
          "MCP tools are configured and --allowed-hosts '*' turns off the Host check "
          "that stops DNS rebinding: any web page can reach them through a browser");
    }
  }
  for (const std::string& origin : s.cors_origins) {
    if (origin == "*") {
      spdlog::warn(
          "MCP tools are configured and --cors-origins '*' lets any web page read "
          "this server's answers, tool results included");
    }
  }
  if (s.api_key.empty()) {
    spdlog::warn(
        "MCP tools are configured without --api-key: /v1/mcp/tools and /v1/mcp/servers "
        "are open to anyone who reaches the port{}",
        s.mcp_allow_unauthenticated ? ", and so is /v1/mcp/execute "
                                      "(--mcp-allow-unauthenticated)"
                                    : "; /v1/mcp/execute is refused (403)");
  }
}

// --mcp-config: starts the servers and hands the manager to the server.
Status StartMcp(ServeFlags& flags) {
  if (flags.mcp_config.empty()) return Status();
  auto manager = StartMcpManager(flags.mcp_config);
  if (!manager.ok()) return manager.error();
  flags.server.mcp = *manager;
  flags.server.pipeline.max_tool_rounds = (*manager)->config().max_tool_calls;
  WarnAboutMcpExposure(flags.server);
  return Status();
}

// The request pipeline's settings from the flags: parsers, the chat template, the default
// thinking budget and the grammar's precompute budget.
Status PipelineFromFlags(ServeFlags& flags) {
  if (!flags.reasoning_parser.empty() &&
      !parse::CreateReasoningParser(flags.reasoning_parser).ok()) {
    return Error(ErrorCode::kInvalidArgument,
                 parse::CreateReasoningParser(flags.reasoning_parser).error().message());
  }
  if (!flags.tool_parser.empty() && !parse::CreateToolParser(flags.tool_parser).ok()) {
    return Error(ErrorCode::kInvalidArgument,
                 parse::CreateToolParser(flags.tool_parser).error().message());
  }
  flags.server.pipeline.reasoning_parser = flags.reasoning_parser;
  flags.server.pipeline.tool_parser = flags.tool_parser;
  flags.server.pipeline.tool_call_promotion = !flags.no_tool_call_promotion;
  if (!flags.chat_template_file.empty()) {
    std::ifstream in(flags.chat_template_file, std::ios::binary);
    const std::string source((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    if (!in)
      return Error(ErrorCode::kInvalidArgument,
                   "cannot read --chat-template " + flags.chat_template_file);
    auto parsed = chat_template::Template::Parse(source);
    if (!parsed.ok()) {
      return Error(ErrorCode::kInvalidArgument,
                   "--chat-template " + flags.chat_template_file + ": " + parsed.error().message());
    }
    flags.server.pipeline.chat_template = *parsed;
  }
  if (flags.default_thinking_budget > 0) {
    flags.server.pipeline.default_thinking_budget = flags.default_thinking_budget;
  }
  if (flags.grammar_precompute_ms >= 0) {
    flags.server.pipeline.grammar_precompute_us =
        static_cast<uint32_t>(flags.grammar_precompute_ms * 1000);
  }
  return Status();
}

int RunServe(ServeFlags& flags) {
  TuneAllocator();
  spdlog::set_default_logger(spdlog::stderr_color_mt("crux"));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  if (flags.enable_auto_tool_choice && flags.tool_parser.empty()) {
    return Fail("--enable-auto-tool-choice requires --tool-call-parser");
  }
  if (Status pipeline = PipelineFromFlags(flags); !pipeline.ok()) {
    return Fail(pipeline.error().message());
  }

  if (flags.response_store_ttl_s <= 0) return Fail("--response-store-ttl must be positive");
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"--request-timeout", flags.server.request_timeout_s},
        {"--write-timeout", flags.server.write_timeout_s},
        {"--idle-timeout", flags.server.idle_timeout_s},
        {"--keepalive-interval", flags.server.keepalive_s}}) {
    if (!(value > 0)) return Fail(std::string(name) + " must be positive");
  }
  if (flags.server.drain_timeout_s < 0) return Fail("--drain-timeout must not be negative");
  if (flags.server.max_connections < 0) return Fail("--max-connections must not be negative");
  if (flags.response_store_bytes > 0) {
    protocol::ResponseStoreOptions store;
    store.max_bytes = flags.response_store_bytes;
    store.ttl = std::chrono::seconds(static_cast<int64_t>(flags.response_store_ttl_s));
    flags.server.pipeline.response_store = std::make_shared<protocol::ResponseStore>(store);
  }

  if (Status mcp = StartMcp(flags); !mcp.ok()) return Fail(mcp.error().message());
  auto engine = MakeEngine(flags);
  if (!engine.ok()) return Fail(engine.error().message());
  ApplyModelDefaults(flags, **engine);
  server::Server srv(flags.server, **engine);
  if (Status st = srv.Listen(); !st.ok()) return Fail(st.error().message());
  spdlog::info("crux serve listening on http://{}:{}", flags.server.host, srv.port());
  srv.Run();
  (*engine)->Shutdown();
  return 0;
}

// Where the server listens, what it serves, and with which parsers.
void AddEndpointOptions(CLI::App* cmd, ServeFlags& flags) {
  auto& s = flags.server;
  cmd->add_option("--host", s.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", s.port, "Port to listen on (0: any free port)")->capture_default_str();
  cmd->add_option("--engine", flags.engine,
                  "Engine: llama (runs --model in-process; the default with --model), upstream "
                  "(sends rendered prompts to --upstream; the default with it) or mock (replays "
                  "--script; the default otherwise)");
  cmd->add_option("--model,-m", flags.model, "A GGUF model file to serve with llama.cpp");
  cmd->add_option("--ctx-size,-c", flags.ctx_size,
                  "llama: tokens one sequence may hold, prompt and output together (each slot "
                  "has its own)")
      ->capture_default_str();
  cmd->add_option("--parallel,--np", flags.parallel,
                  "llama: slots, i.e. requests generated at once (more wait in a queue)")
      ->capture_default_str();
  cmd->add_option("--threads,-t", flags.threads, "llama: CPU threads (0: every core)")
      ->capture_default_str();
  cmd->add_option("--batch-size,-b", flags.batch_size, "llama: tokens per decode step")
      ->capture_default_str();
  cmd->add_option("--gpu-layers,--ngl", flags.gpu_layers,
                  "llama: layers to offload to the GPU of a CUDA/Metal build (-1: all)")
      ->capture_default_str();
  cmd->add_option("--script", flags.script,
                  "Mock engine: a file with the raw output to replay, or a directory of *.txt "
                  "files (one model per file, named after it)");
  cmd->add_option("--tokens-per-second", flags.tokens_per_second,
                  "Mock engine: pace the replay (0: as fast as possible)")
      ->capture_default_str();
  cmd->add_option("--reasoning-parser", flags.reasoning_parser,
                  "Reasoning parser for every request (see docs/reasoning-parsers.md); a channel "
                  "format (harmony, gpt_oss, muse_glimmer) also extracts its tool calls");
  cmd->add_option("--tool-call-parser", flags.tool_parser,
                  "Tool-call parser for requests with tools (default: auto; see "
                  "docs/tool-parsers.md); a channel format (harmony, muse_glimmer) reads every "
                  "response, reasoning included, in place of --reasoning-parser");
  cmd->add_flag("--enable-auto-tool-choice", flags.enable_auto_tool_choice,
                "Accepted for vLLM compatibility: tool calls are parsed whenever a request "
                "declares tools; requires --tool-call-parser");
  cmd->add_option("--chat-template", flags.chat_template_file,
                  "Render prompts with this Jinja chat template (docs/chat-templates.md) in "
                  "place of the model's; a template error is the request's 400");
  cmd->add_flag("--no-tool-call-promotion", flags.no_tool_call_promotion,
                "Leave tool calls that a model writes inside its reasoning in the reasoning "
                "(default: a closed call block there is handed to the tool parser, for the "
                "families that list one in docs/tool-parsers.md)");
  cmd->add_option("--api-key", s.api_key,
                  "Require this key (Authorization: Bearer KEY or x-api-key: KEY)");
  cmd->add_option("--served-model-name", s.served_model_name,
                  "Model name clients use (default: the engine's model ids)");
}

// --engine upstream (docs/upstream.md).
void AddUpstreamOptions(CLI::App* cmd, ServeFlags& flags) {
  cmd->add_option("--upstream", flags.upstreams,
                  "upstream: the engines' base URLs, comma-separated (http://host:port); "
                  "requests go to the healthy one with the fewest in flight");
  cmd->add_option("--upstream-kind", flags.upstream_kind,
                  "upstream: llama-server, vllm, sglang or openai-completions (how constraints "
                  "and reasoning budgets are passed; openai-completions: validated by crux only)")
      ->capture_default_str();
  cmd->add_option("--upstream-model", flags.upstream_model,
                  "upstream: the model name to send (default: the first of its /v1/models)");
  cmd->add_option("--upstream-api-key", flags.upstream_api_key,
                  "upstream: Bearer key for the upstreams (default: $CRUX_UPSTREAM_API_KEY)");
  cmd->add_option("--upstream-timeout", flags.upstream_timeout_s,
                  "upstream: seconds one generation may take there (then 504)")
      ->capture_default_str();
  cmd->add_option("--upstream-health-interval", flags.upstream_health_interval_s,
                  "upstream: seconds between health probes (a failed upstream rejoins when one "
                  "answers)")
      ->capture_default_str();
}

// Limits and timeouts.
void AddLimitOptions(CLI::App* cmd, ServeFlags& flags) {
  auto& s = flags.server;
  cmd->add_option("--max-concurrent-requests", s.max_concurrent_requests,
                  "Generations in flight at once; more are answered 429 (0: unlimited)")
      ->capture_default_str();
  cmd->add_option("--default-thinking-token-budget", flags.default_thinking_budget,
                  "Default reasoning token budget per request (0: none)");
  cmd->add_option("--grammar-precompute-ms", flags.grammar_precompute_ms,
                  "Time a response format's or tools' grammar spends, when it compiles, making "
                  "pattern states' token sets ahead of the mask steps that need them (default 6; "
                  "0: each on first use, inside a mask step)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--max-body-bytes", s.max_body_bytes, "Largest request body accepted (413 above)")
      ->capture_default_str();
  cmd->add_option("--request-timeout", s.request_timeout_s,
                  "Per-request deadline in seconds (504, or an in-stream error)")
      ->capture_default_str();
  cmd->add_option("--keepalive-interval", s.keepalive_s,
                  "Seconds of stream idleness before an SSE keep-alive")
      ->capture_default_str();
  cmd->add_option("--threads-http", s.io_threads, "HTTP I/O threads")->capture_default_str();
  cmd->add_option("--max-buffered-bytes", s.max_buffered_bytes,
                  "Output that may wait for a client that reads slower than the model writes "
                  "(per connection); at the limit the generation pauses until the client "
                  "catches up (0: unlimited)")
      ->capture_default_str();
  cmd->add_option("--write-timeout", s.write_timeout_s,
                  "Seconds a client may take no bytes of its response before it is cut")
      ->capture_default_str();
  cmd->add_option("--max-connections", s.max_connections,
                  "Open connections at most; at the cap the longest-idle one is closed, or the "
                  "new one answered 503 (0: the open-file limit minus 64)")
      ->capture_default_str();
  cmd->add_option("--idle-timeout", s.idle_timeout_s,
                  "Seconds a connection may wait with no request in progress (between requests, "
                  "or while its request header arrives)")
      ->capture_default_str();
  cmd->add_option("--drain-timeout", s.drain_timeout_s,
                  "On SIGTERM/SIGINT: seconds in-flight requests get to finish before their "
                  "streams end with a shutdown error (a second signal exits at once)")
      ->capture_default_str();
}

// Browser access (Host, Origin, CORS) and the Responses store.
void AddBrowserAndStoreOptions(CLI::App* cmd, ServeFlags& flags) {
  auto& s = flags.server;
  cmd->add_option("--allowed-hosts", s.allowed_hosts,
                  "Comma-separated host names accepted in Host and Origin besides the loopback "
                  "names (when bound to loopback); '*' any, '.example.com' subdomains. Bound "
                  "elsewhere, any host unless this is given")
      ->delimiter(',');
  cmd->add_option("--cors-origins", s.cors_origins,
                  "Comma-separated origins (http://app.example:3000) that get CORS headers; '*' "
                  "any (default: none)")
      ->delimiter(',');
  cmd->add_flag_callback(
      "--no-webui", [&s] { s.webui = false; },
      "Do not serve the chat page at GET / (API-only deployments); / then answers one line of "
      "text naming the endpoints");
  cmd->add_option("--response-store-bytes", flags.response_store_bytes,
                  "Responses API: memory for stored responses (previous_response_id, "
                  "item_reference, GET/DELETE /v1/responses/{id}); oldest evicted first; 0: "
                  "store nothing (responses then say \"store\": false)")
      ->capture_default_str();
  cmd->add_option("--response-store-ttl", flags.response_store_ttl_s,
                  "Responses API: seconds a stored response is kept")
      ->capture_default_str();
  cmd->add_option("--mcp-config", flags.mcp_config,
                  "MCP servers to start (docs/mcp.md): their tools are listed at /v1/mcp/tools "
                  "and run at /v1/mcp/execute");
  cmd->add_flag("--mcp-allow-unauthenticated", flags.server.mcp_allow_unauthenticated,
                "Let /v1/mcp/execute and the tool loop run tools without --api-key");
  cmd->add_flag("--mcp-tool-loop", flags.server.mcp_tool_loop,
                "Let requests ask for the server-side tool loop (`mcp_tools`): the model's calls "
                "to MCP tools run here and generation continues with their results");
}

}  // namespace

void AddServeCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve OpenAI Chat Completions (/v1/chat/completions), Anthropic Messages (/v1/messages)\n"
      "and OpenAI Responses (/v1/responses), plus the chat page at /, /v1/completions, "
      "/v1/models, /tokenize, /detokenize, /health and /metrics (and /v1/mcp/tools, "
      "/v1/mcp/servers, /v1/mcp/execute with --mcp-config); a GGUF model runs in-process "
      "(--model), an engine that already runs generates (--upstream URL), or scripted output is "
      "replayed (--engine mock).");
  AddEndpointOptions(cmd, *flags);
  AddUpstreamOptions(cmd, *flags);
  AddLimitOptions(cmd, *flags);
  AddBrowserAndStoreOptions(cmd, *flags);
  cmd->callback([flags, &run] { run = [flags] { return RunServe(*flags); }; });
}

}  // namespace crux::app
