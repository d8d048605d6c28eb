// Subcommands of the crux command line. Each registers its flags on a CLI11 app and returns
// the process exit status when run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace crux::app {

// Adds `mcp` (with `list` and `call`) to `app`.
void AddMcpCommand(CLI::App& app, std::function<int()>& run);

// Adds `parse` to `app`; `run` is set to the command's entry point when it is selected.
void AddParseCommand(CLI::App& app, std::function<int()>& run);

// Adds `schema` (with `check` and `bench`) to `app`.
void AddSchemaCommand(CLI::App& app, std::function<int()>& run);

// Adds `template` (with `render`) to `app`.
void AddTemplateCommand(CLI::App& app, std::function<int()>& run);

// Adds `smoke-model` to `app`.
void AddSmokeModelCommand(CLI::App& app, std::function<int()>& run);

// Adds `serve` to `app`.
void AddServeCommand(CLI::App& app, std::function<int()>& run);

}  // namespace crux::app
