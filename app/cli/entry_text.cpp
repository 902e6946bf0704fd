#include "entry_text.h"

#include "output.h"

#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/repr.h>

#include <cstdio>
#include <string>

namespace cachelens::cli {

namespace {

using namespace cachedir;

void field(const char* name, const std::string& value) {
    std::printf("  %-22s %s\n", name, value.c_str());
}

std::string join(const std::vector<std::string>& items, const char* separator = ", ") {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) {
            out += separator;
        }
        out += item;
    }
    return out;
}

std::string first_line_count(std::string_view text) {
    std::size_t lines = 0;
    for (char c : text) {
        lines += c == '\n' ? 1 : 0;
    }
    return std::to_string(lines + (text.empty() || text.back() == '\n' ? 0 : 1)) + " lines, " +
           format_bytes(text.size());
}

void block(const char* title, std::string_view text) {
    std::printf("\n%s:\n%.*s\n", title, static_cast<int>(text.size()), text.data());
}

void print_guards(const std::optional<std::string_view>& guards) {
    field("guards", guards ? std::string(*guards) : "none (always hits)");
}

void print_fx_graph(const FxGraphEntry& fx, const TextOptions& options) {
    print_guards(fx.guards_expr);
    std::vector<std::string> devices;
    for (std::size_t i = 0; i < fx.device_types.size(); ++i) {
        devices.push_back(fx.device_types[i] + (i < fx.device_idxs.size()
                                                    ? ":" + std::to_string(fx.device_idxs[i])
                                                    : ""));
    }
    field("devices", join(devices));
    if (fx.time_taken_ns) {
        field("compile time", format_duration_ns(*fx.time_taken_ns));
    }
    field("wrapper module", fx.cache_key + " (" + first_line_count(fx.source_code) + ")");
    field("debug lines", std::to_string(fx.debug_lines.size()) +
                             (options.debug_lines ? "" : " (--debug-lines prints them)"));
    std::vector<std::string> metrics;
    for (const auto& [name, count] : fx.metrics_deltas) {
        if (count != 0) {
            metrics.push_back(name + "=" + std::to_string(count));
        }
    }
    if (!metrics.empty()) {
        field("metrics", join(metrics));
    }
    if (!fx.mutated_inputs.empty()) {
        field("mutated inputs", join(fx.mutated_inputs));
    }
    std::size_t artifact_files = 0, artifact_bytes = 0;
    for (const auto& kernel : fx.triton_artifacts) {
        artifact_files += kernel.files.size();
        for (const auto& file : kernel.files) {
            artifact_bytes += file.payload.size();
        }
    }
    field("triton bundle", std::to_string(fx.triton_artifacts.size()) + " kernel dirs, " +
                               std::to_string(artifact_files) + " files, " +
                               format_bytes(artifact_bytes));
    if (!fx.autotuners.empty()) {
        std::printf("\n  kernels:\n");
    }
    for (const auto& tuner : fx.autotuners) {
        std::printf("    %s  [%s%s%s]  module %s\n", tuner.kernel_name.c_str(),
                    tuner.heuristic.c_str(), tuner.grid_type.empty() ? "" : ", ",
                    tuner.grid_type.c_str(),
                    tuner.module_key.empty() ? "(none)" : tuner.module_key.c_str());
        for (const auto& candidate : tuner.candidates) {
            std::printf("      %-48s -> triton/0/%s\n", candidate.config.describe().c_str(),
                        candidate.triton_dir().c_str());
        }
    }
    if (options.debug_lines) {
        std::printf("\n  debug lines:\n");
        for (auto line : fx.debug_lines) {
            std::printf("    %.*s\n", static_cast<int>(line.size()), line.data());
        }
    }
    if (options.source) {
        block("source", fx.source_code);
    }
}

void print_aot(const AotAutogradEntry& aot, const TextOptions& options) {
    print_guards(aot.guards_expr);
    field("forward graph", aot.forward ? aot.forward->key : "none");
    field("backward graph", aot.backward ? aot.backward->key : "none");
    if (aot.forward_time_taken_ns) {
        field("forward compile", format_duration_ns(*aot.forward_time_taken_ns));
    }
    if (aot.backward_time_taken_ns && *aot.backward_time_taken_ns > 0) {
        field("backward compile", format_duration_ns(*aot.backward_time_taken_ns));
    }
    if (options.source) {
        for (const auto& [title, graph] : {std::pair{"forward graph", aot.forward_graph},
                                           std::pair{"backward graph", aot.backward_graph},
                                           std::pair{"joint graph", aot.joint_graph}}) {
            if (graph) {
                block(title, *graph);
            }
        }
    }
}

void print_module(const ModuleSource& source, const TextOptions& options) {
    const KernelModule& module = source.module;
    field("role", std::string(to_string(module.role)));
    field("source", first_line_count(source.text()));
    field("benchmark harness", module.has_benchmark_harness ? "yes" : "no");
    if (module.is_autotune_template_candidate) {
        field("autotune candidate", "yes (named by its benchmark, not by its content)");
    }
    for (const auto& kernel : module.kernels) {
        std::printf("\n  kernel %s  [%s]  line %zu\n", kernel.name.c_str(),
                    kernel.heuristic.c_str(), kernel.def_line);
        if (!kernel.grid_type.empty()) {
            field("  grid", kernel.grid_type);
        }
        std::vector<std::string> signature;
        for (const auto& entry : kernel.signature) {
            signature.push_back(entry.name + ": " + entry.type);
        }
        field("  signature", join(signature));
        if (!kernel.config_args.empty()) {
            std::vector<std::string> args;
            for (const auto& [name, value] : kernel.config_args) {
                args.push_back(name + "=" + to_string(value));
            }
            field("  config args", join(args));
        }
        std::vector<std::string> inputs;
        for (const auto& arg : kernel.harness.args) {
            if (arg.kind == HarnessArg::Kind::Tensor) {
                std::vector<std::string> dims;
                for (auto d : arg.tensor.shape) {
                    dims.push_back(std::to_string(d));
                }
                inputs.push_back(arg.tensor.dtype + "[" + join(dims, ",") + "]");
            } else if (arg.kind == HarnessArg::Kind::Int) {
                inputs.push_back(std::to_string(arg.integer));
            } else if (arg.kind == HarnessArg::Kind::Float) {
                inputs.push_back(pickle::float_repr(arg.real));
            } else {
                inputs.push_back(arg.name);
            }
        }
        if (!inputs.empty()) {
            field("  benchmark args", join(inputs));
        }
        for (const auto& problem : kernel.problems) {
            field("  problem", problem);
        }
    }
    for (const auto& problem : module.problems) {
        field("problem", problem);
    }
    if (options.source) {
        block("source", source.text());
    }
}

void print_best_config(const BestConfig& best) {
    field("config", best.config.describe());
    if (best.triton_cache_hash) {
        field("winner cubin", "triton/0/" + *best.triton_cache_hash);
    }
    if (best.found_by_coordesc) {
        field("coordinate descent", *best.found_by_coordesc ? "yes" : "no");
    }
    if (best.time_taken_ms) {
        field("autotune time", pickle::float_repr(*best.time_taken_ms) + " ms");
    }
    if (best.configs_hash) {
        field("configs hash", *best.configs_hash);
    }
}

void print_benchmark_cache(const BenchmarkCache& cache) {
    field("device", cache.device_name);
    field("system hash", cache.system_hash);
    std::string last_group;
    for (const auto& choice : cache.choices) {
        const std::string group = choice.op + " " + choice.inputs + " [" + choice.precision + "]";
        if (group != last_group) {
            std::printf("\n  %s\n", group.c_str());
            last_group = group;
        }
        const bool best = cache.best(choice.op, choice.inputs, choice.precision) == &choice;
        std::printf("    %s %-70s %.4f ms\n", best ? "*" : " ", choice.choice.c_str(), choice.ms);
    }
    if (!cache.other_entries.empty()) {
        std::printf("\n  other entries:\n");
        for (const auto& [key, value] : cache.other_entries) {
            std::printf("    %s = %s\n", key.c_str(), value.c_str());
        }
    }
}

void print_triton(const TritonKernelDir& kernel) {
    field("kernel", kernel.kernel_name);
    field("module (in this dir)", !kernel.module_file.empty() ? kernel.module_file
                                  : kernel.module_key.empty()
                                      ? "(unknown)"
                                      : "none: " + kernel.module_key + ".py is not in this dir");
    if (!kernel.module_path.empty()) {
        field("compiled from", kernel.module_path + " (path on the compiling machine)");
    }
    if (kernel.metadata) {
        const auto& meta = *kernel.metadata;
        field("num_warps", meta.num_warps ? std::to_string(*meta.num_warps) : "?");
        field("num_stages", meta.num_stages ? std::to_string(*meta.num_stages) : "?");
        field("shared memory", std::to_string(meta.shared) + " B");
        field("target", meta.backend + " " + meta.arch);
        field("triton", meta.triton_version);
    }
    if (kernel.ptx) {
        std::vector<std::string> params;
        for (const auto& p : kernel.ptx->parameters) {
            params.push_back(p.type + (p.pointer ? " ptr" : ""));
        }
        field("entry parameters", join(params));
    }
    std::printf("\n  files:\n");
    for (const auto& file : kernel.files) {
        std::printf("    %-60s %10s\n", file.name.c_str(), format_bytes(file.size).c_str());
    }
}

} // namespace

void print_entry(const Entry& entry, const EntryContent& content, const TextOptions& options) {
    std::printf("%s %s\n", std::string(to_string(entry.kind)).c_str(), entry.key.c_str());
    field("path", entry.path);
    field("size", format_bytes(entry.size));
    if (entry.mtime_ns != 0) { // 0: not a file (a Redis value)
        field("modified", format_time(entry.mtime_ns) + " (" + format_age(entry.mtime_ns) + ")");
    }
    std::visit(
        [&](const auto& item) {
            using T = std::decay_t<decltype(item)>;
            if constexpr (std::is_same_v<T, FxGraphEntry>) {
                print_fx_graph(item, options);
            } else if constexpr (std::is_same_v<T, AotAutogradEntry>) {
                print_aot(item, options);
            } else if constexpr (std::is_same_v<T, ModuleSource>) {
                print_module(item, options);
            } else if constexpr (std::is_same_v<T, CppSource>) {
                field("source", first_line_count(item.text()));
                if (options.source) {
                    block("source", item.text());
                }
            } else if constexpr (std::is_same_v<T, BestConfig>) {
                print_best_config(item);
            } else if constexpr (std::is_same_v<T, KernelPerf>) {
                field("time", pickle::float_repr(item.milliseconds) + " ms");
            } else if constexpr (std::is_same_v<T, BenchmarkCache>) {
                print_benchmark_cache(item);
            } else if constexpr (std::is_same_v<T, TritonKernelDir>) {
                print_triton(item);
            } else if constexpr (std::is_same_v<T, DynamoProfile>) {
                field("state", pickle::repr(item.document->root()));
            }
        },
        content);
}

} // namespace cachelens::cli
