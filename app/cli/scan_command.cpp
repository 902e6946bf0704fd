#include "commands.h"
#include "output.h"
#include "serving_output.h"

#include <cachelens/cachedir/entry_content.h>
#include <cachelens/cachedir/fingerprint.h>
#include <cachelens/core/format.h>
#include <cachelens/core/text.h>

#include <cstdio>
#include <optional>

namespace cachelens::cli {

namespace {

struct ScanOptions {
    std::string dir;
    bool json = false;
};

int run_scan(const ScanOptions& options) {
    auto scan = cachedir::scan_cache_dir(options.dir);
    if (!scan) {
        return report(scan.error());
    }
    // Parse every entry: a scan reports what would fail to load.
    std::vector<Error> errors = scan->errors;
    cachedir::FingerprintTally compiled_for;
    for (const auto& entry : scan->entries()) {
        auto loaded = cachedir::load_entry(scan->root, entry);
        if (!loaded) {
            errors.push_back(loaded.error());
        } else if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(&*loaded)) {
            compiled_for.add(cachedir::fingerprint_of(*fx));
        } else if (const auto* benchmarks = std::get_if<cachedir::BenchmarkCache>(&*loaded)) {
            compiled_for.add(*benchmarks);
        } else if (const auto* kernel = std::get_if<cachedir::TritonKernelDir>(&*loaded);
                   kernel != nullptr && kernel->metadata) {
            compiled_for.add(*kernel->metadata);
        }
    }
    // Where its graphs can hit: absent when it has none.
    const auto fingerprint = compiled_for.result(scan->root);
    // As verify: what does not parse is a problem found.
    const int exit_code = errors.empty() ? kExitOk : kExitProblems;
    const auto summary = scan->summary();
    std::uint64_t total_files = 0, total_entries = 0, total_bytes = 0;
    for (const auto& [kind, counts] : summary) {
        total_files += counts.files;
        total_entries += counts.entries;
        total_bytes += counts.bytes;
    }
    std::vector<std::string> unknown_paths;
    for (const auto& file : scan->files) {
        if (file.kind == cachedir::FileKind::Unknown) {
            unknown_paths.push_back(file.path);
        }
    }
    const auto nested = cachedir::nested_cache_dirs(unknown_paths);
    // A vLLM or SGLang tree: what it is, in one line.
    const auto serving_summary =
        scan->serving ? serving_summary_of(options.dir) : std::optional<std::string>();
    if (options.json) {
        Json kinds = Json::object();
        for (const auto& [kind, counts] : summary) {
            kinds[std::string(cachedir::to_string(kind))] = {
                {"entries", counts.entries}, {"files", counts.files}, {"bytes", counts.bytes}};
        }
        Json error_list = Json::array();
        for (const auto& error : errors) {
            error_list.push_back({{"path", error.path},
                                  {"kind", to_string(error.kind)},
                                  {"message", error.message}});
        }
        print_json(
            {{"root", scan->root.string()},
             {"layout", cachedir::to_string(scan->layout())},
             {"serving", serving_summary ? Json(*serving_summary) : Json()},
             {"entries", total_entries},
             {"files", total_files},
             {"bytes", total_bytes},
             {"kinds", std::move(kinds)},
             {"fingerprint", fingerprint ? Json::parse(cachedir::to_json(*fingerprint)) : Json()},
             {"errors", std::move(error_list)},
             {"nested_cache_dirs", nested}});
        return exit_code;
    }
    const bool triton = scan->layout() == cachedir::RootLayout::Triton;
    std::printf("%s%s\n", scan->root.c_str(),
                triton ? " (a Triton cache: one dir per compiled kernel)" : "");
    if (serving_summary) {
        std::printf("%s\n", serving_summary->c_str());
    }
    if (fingerprint && fingerprint->environment.empty()) {
        // No key records the machine: what its files say, and that.
        std::printf("compiled for %s\n", fingerprint->describe_with_devices().c_str());
    } else if (fingerprint) {
        std::printf("compiled on %s (%s", fingerprint->describe_with_devices().c_str(),
                    fingerprint->agreement().c_str());
        if (const auto varying = fingerprint->varying_config(); !varying.empty()) {
            std::string names;
            for (const auto& name : varying) {
                names += (names.empty() ? "" : ", ") + name;
            }
            std::printf("; config differs between them in %s", names.c_str());
        }
        std::printf(")\n");
    }
    std::printf("\n%-16s %8s %8s %12s\n", "kind", "entries", "files", "size");
    for (const auto& [kind, counts] : summary) {
        std::printf("%-16s %8llu %8llu %12s\n", std::string(cachedir::to_string(kind)).c_str(),
                    static_cast<unsigned long long>(counts.entries),
                    static_cast<unsigned long long>(counts.files),
                    format_bytes(counts.bytes).c_str());
    }
    std::printf("%-16s %8llu %8llu %12s\n", "total", static_cast<unsigned long long>(total_entries),
                static_cast<unsigned long long>(total_files), format_bytes(total_bytes).c_str());
    const auto unknown = summary.find(cachedir::FileKind::Unknown);
    const cachedir::KindSummary none;
    const auto& unknown_counts = unknown == summary.end() ? none : unknown->second;
    std::printf("\n%s\n",
                cachedir::coverage_line(errors.size(), unknown_counts.files, unknown_counts.bytes,
                                        "cachelens ls " + shell_quote(options.dir) +
                                            " --kind unknown --sort size")
                    .c_str());
    if (!nested.empty()) {
        std::printf("%s\n", cachedir::nested_cache_dirs_note(options.dir, nested).c_str());
    }
    for (const auto& error : errors) {
        std::printf("  %s\n", error.describe().c_str());
    }
    return exit_code;
}

} // namespace

void add_scan_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ScanOptions>();
    auto* command = app.add_subcommand(
        "scan", "Count what a cache dir holds, by kind (entries, files, bytes), and parse every "
                "entry to report the ones that fail (exit 1 when one does).");
    command->add_option("DIR", options->dir, "the cache dir")->required();
    command->add_flag("--json", options->json,
                      "print {root, entries, files, bytes, kinds: {KIND: {entries, files, "
                      "bytes}}, errors: [{path, kind, message}]}");
    command->callback([options, &exit_code] { exit_code = run_scan(*options); });
}

} // namespace cachelens::cli
