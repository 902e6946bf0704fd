// cachelens: inspect PyTorch compile caches from a shell (GPU servers have no display).

#include "cli_app.h"
#include "output.h"
#include "terminal_output.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
    using namespace cachelens::cli;
    // Before anything is printed: text from a cache reaches the terminal escaped.
    const TerminalOutput terminal_output;
    int exit_code = kExitOk;
    CLI::App app;
    build_cli(app, exit_code);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitError;
    }
    return exit_code;
}
