// Subcommand registry of the `rap` CLI. Each tools/cmd_*.cc registers its subcommand with a static
// CommandRegistrar, so adding a command never touches main.cc.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "rap/util/status.h"

namespace rap::cli {

// `setup` adds the subcommand to `app` and wires its callback. A callback reports failure by
// calling Fail(status), which prints "rap <cmd>: <message>" to stderr and sets exit code 1.
using CommandSetup = std::function<void(CLI::App& app)>;

struct CommandRegistrar {
  CommandRegistrar(std::string name, CommandSetup setup);
};

void Fail(const Status& status);
void FailWithCode(const Status& status, int exit_code);
int ExitCode();

}  // namespace rap::cli
