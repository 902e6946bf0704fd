#pragma once

// The subcommands of `cachelens`. Each adds itself to the app and stores its
// exit code in `exit_code` when it runs.

#include <CLI/CLI.hpp>

namespace cachelens::cli {

void add_scan_command(CLI::App& app, int& exit_code);
void add_ls_command(CLI::App& app, int& exit_code);
void add_show_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
void add_why_command(CLI::App& app, int& exit_code);
void add_guards_command(CLI::App& app, int& exit_code);
void add_lookup_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);
void add_preflight_command(CLI::App& app, int& exit_code);
void add_env_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_watch_command(CLI::App& app, int& exit_code);
void add_index_command(CLI::App& app, int& exit_code);
void add_search_command(CLI::App& app, int& exit_code);
void add_stats_command(CLI::App& app, int& exit_code);
void add_prune_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_bundle_command(CLI::App& app, int& exit_code);
void add_import_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);
void add_pack_command(CLI::App& app, int& exit_code);
void add_unpack_command(CLI::App& app, int& exit_code);
void add_keygen_command(CLI::App& app, int& exit_code);
void add_remote_command(CLI::App& app, int& exit_code);

} // namespace cachelens::cli
