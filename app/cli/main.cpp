// cachelens: inspect PyTorch compile caches from a shell (GPU servers have no display).

#include "commands.h"
#include "output.h"
#include "terminal_output.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
    using namespace cachelens::cli;
    // Before anything is printed: text from a cache reaches the terminal escaped.
    const TerminalOutput terminal_output;
    CLI::App app{"cachelens: see what is in a PyTorch Inductor compile cache, check it, find out "
                 "why a graph missed it and whether a shape would hit it.\n\n"
                 "DIR is a cache dir: $TORCHINDUCTOR_CACHE_DIR, or /tmp/torchinductor_$USER by "
                 "default.\nExit status: 0 success, 1 problems found (verify), 2 error (bad "
                 "arguments or unreadable input), 130 stopped by Ctrl-C.",
                 "cachelens"};
    app.set_version_flag("--version", std::string("cachelens ") + CACHELENS_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);

    int exit_code = kExitOk;
    add_scan_command(app, exit_code);
    add_ls_command(app, exit_code);
    add_show_command(app, exit_code);
    add_verify_command(app, exit_code);
    add_diff_command(app, exit_code);
    add_why_command(app, exit_code);
    add_guards_command(app, exit_code);
    add_lookup_command(app, exit_code);
    add_trace_command(app, exit_code);
    add_index_command(app, exit_code);
    add_search_command(app, exit_code);
    add_stats_command(app, exit_code);
    add_prune_command(app, exit_code);
    add_bench_command(app, exit_code);
    add_bundle_command(app, exit_code);
    add_import_command(app, exit_code);
    add_export_command(app, exit_code);
    add_keygen_command(app, exit_code);
    add_remote_command(app, exit_code);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitError;
    }
    return exit_code;
}
