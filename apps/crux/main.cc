// crux: the command line. `crux parse` splits raw model output into reasoning, content and
// tool calls; `crux schema` checks JSON Schemas and instances against the constraining grammar
// and measures its per-token cost; `crux template render` renders a chat template; `crux serve`
// runs the server; `crux smoke-model` writes the tiny random-weight model the tests run.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "crux/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"crux: the output layer of LLM serving", "crux"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "crux 0.1.0");
  std::function<int()> run;
  crux::app::AddMcpCommand(app, run);
  crux::app::AddParseCommand(app, run);
  crux::app::AddSchemaCommand(app, run);
  crux::app::AddServeCommand(app, run);
  crux::app::AddSmokeModelCommand(app, run);
  crux::app::AddTemplateCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return run ? run() : 2;
}
