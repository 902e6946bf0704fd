#include "cli_app.h"

#include "commands.h"

namespace cachelens::cli {

void build_cli(CLI::App& app, int& exit_code) {
    app.name("cachelens");
    app.description(
        "cachelens: see what is in a PyTorch Inductor compile cache, check it, find out "
        "why a graph missed it and whether a shape would hit it.\n\n"
        "DIR is a cache dir: $TORCHINDUCTOR_CACHE_DIR, or by default torchinductor_$USER in the "
        "temp dir ($TMPDIR, else /tmp), as PyTorch chooses it.\nExit status: 0 success, 1 problems "
        "found (verify, scan, lookup, prune, bench, "
        "import, remote: see each command), 2 error (bad "
        "arguments or unreadable input), 130 stopped by Ctrl-C.");
    app.set_version_flag("--version", std::string("cachelens ") + CACHELENS_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);

    add_scan_command(app, exit_code);
    add_ls_command(app, exit_code);
    add_show_command(app, exit_code);
    add_verify_command(app, exit_code);
    add_diff_command(app, exit_code);
    add_why_command(app, exit_code);
    add_guards_command(app, exit_code);
    add_lookup_command(app, exit_code);
    add_trace_command(app, exit_code);
    add_preflight_command(app, exit_code);
    add_env_command(app, exit_code);
    add_report_command(app, exit_code);
    add_watch_command(app, exit_code);
    add_index_command(app, exit_code);
    add_search_command(app, exit_code);
    add_stats_command(app, exit_code);
    add_prune_command(app, exit_code);
    add_bench_command(app, exit_code);
    add_tune_command(app, exit_code);
    add_bundle_command(app, exit_code);
    add_import_command(app, exit_code);
    add_export_command(app, exit_code);
    add_pack_command(app, exit_code);
    add_unpack_command(app, exit_code);
    add_keygen_command(app, exit_code);
    add_remote_command(app, exit_code);
}

} // namespace cachelens::cli
