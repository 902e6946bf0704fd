#include "models/entry_fields_model.h"

#include "text/engine_text.h"
#include "text/plain_text.h"

#include <cachelens/core/format.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/repr.h>

#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPalette>

#include <set>

namespace cachelens::ui {

namespace {

using namespace cachedir;

// Tooltips and display text stay bounded: a guard or graph can be megabytes.
constexpr qsizetype kMaxShown = 400;
constexpr qsizetype kMaxTooltip = 4000;

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString number(std::int64_t value) {
    return QString::number(value);
}

QString optionalNumber(const std::optional<std::int64_t>& value) {
    return value ? number(*value) : QStringLiteral("—");
}

QString yesNo(bool value) {
    return value ? QStringLiteral("yes") : QStringLiteral("no");
}

QString bytes(std::uint64_t size) {
    return qs(format_bytes(size));
}

QString duration(std::int64_t ns) {
    return qs(format_duration_ns(ns));
}

QString milliseconds(double ms) {
    return qs(pickle::float_repr(ms)) + QStringLiteral(" ms");
}

// "177 lines, 8.3 KiB", as `cachelens show` says it.
QString textSummary(std::string_view text) {
    std::size_t lines = 0;
    for (char c : text) {
        lines += c == '\n' ? 1 : 0;
    }
    if (!text.empty() && text.back() != '\n') {
        ++lines;
    }
    return QStringLiteral("%1 lines, %2").arg(lines).arg(bytes(text.size()));
}

QString joined(const std::vector<std::string>& items, const char* separator = ", ") {
    QStringList out;
    for (const auto& item : items) {
        out << qs(item);
    }
    return out.join(QLatin1String(separator));
}

QString pairsText(const std::vector<std::pair<std::string, std::int64_t>>& pairs) {
    QStringList out;
    for (const auto& [name, value] : pairs) {
        out << QStringLiteral("%1=%2").arg(qs(name)).arg(value);
    }
    return out.join(QStringLiteral(", "));
}

QString configPairsText(const std::vector<std::pair<std::string, ConfigValue>>& pairs) {
    QStringList out;
    for (const auto& [name, value] : pairs) {
        out << qs(name) + QLatin1Char('=') + qs(to_string(value));
    }
    return out.join(QStringLiteral(", "));
}

FieldNode field(QString name, QString value, bool monospace = false) {
    FieldNode node;
    node.name = std::move(name);
    node.value = std::move(value);
    node.monospace = monospace;
    return node;
}

FieldNode linkField(QString name, QString value, FileKind kind, QString target) {
    FieldNode node = field(std::move(name), std::move(value), true);
    node.link = EntryLink{kind, std::move(target)};
    return node;
}

// `children` by reference: callers count them in `summary`, evaluated in any order.
FieldNode group(QString name, QString summary, std::vector<FieldNode>&& children) {
    FieldNode node = field(std::move(name), std::move(summary));
    node.children = std::move(children);
    return node;
}

FieldNode countsGroup(QString name,
                      const std::vector<std::pair<std::string, std::int64_t>>& counts) {
    std::vector<FieldNode> children;
    std::vector<std::pair<std::string, std::int64_t>> nonZero;
    for (const auto& [key, value] : counts) {
        children.push_back(field(qs(key), number(value)));
        if (value != 0) {
            nonZero.emplace_back(key, value);
        }
    }
    return group(std::move(name), pairsText(nonZero), std::move(children));
}

// Every attribute of a pickled object not shown elsewhere, as Python-style text.
FieldNode attributesGroup(const pickle::Value& root, const std::vector<std::string_view>& names,
                          const std::set<std::string_view>& shownElsewhere) {
    pickle::ReprOptions options;
    options.max_string = 2000;
    options.max_length = 20000;
    std::vector<FieldNode> children;
    for (auto name : names) {
        if (shownElsewhere.contains(name)) {
            continue;
        }
        if (const pickle::Value* value = root.attribute(name)) {
            children.push_back(field(qs(name), qs(pickle::repr(*value, options)), true));
        }
    }
    const QString count = QString::number(children.size());
    return group(QStringLiteral("Other attributes"), count, std::move(children));
}

FieldNode guardsField(const std::optional<std::string_view>& guards) {
    return guards ? field(QStringLiteral("Guards"), qs(*guards), true)
                  : field(QStringLiteral("Guards"), QStringLiteral("none (always hits)"));
}

FieldNode graphTextField(QString name, const std::optional<std::string_view>& text) {
    return field(std::move(name), text ? textSummary(*text) + QStringLiteral(" (in the Source tab)")
                                       : QStringLiteral("none"));
}

FieldNode configFields(QString name, const KernelConfig& config) {
    std::vector<FieldNode> children;
    for (const auto& [key, value] : config.kwargs) {
        children.push_back(field(qs(key), qs(to_string(value)), true));
    }
    children.push_back(field(QStringLiteral("num_warps"), optionalNumber(config.num_warps)));
    children.push_back(field(QStringLiteral("num_stages"), optionalNumber(config.num_stages)));
    if (config.num_ctas) {
        children.push_back(field(QStringLiteral("num_ctas"), number(*config.num_ctas)));
    }
    if (config.maxnreg) {
        children.push_back(field(QStringLiteral("maxnreg"), number(*config.maxnreg)));
    }
    return group(std::move(name), qs(config.describe()), std::move(children));
}

FieldNode candidateNode(const CompiledCandidate& candidate, std::size_t index) {
    const QString dir = qs(candidate.triton_dir());
    std::vector<FieldNode> children;
    children.push_back(configFields(QStringLiteral("Config"), candidate.config));
    children.push_back(linkField(QStringLiteral("Triton kernel"), dir, FileKind::Triton, dir));
    children.push_back(field(QStringLiteral("Triton hash"), qs(candidate.triton_hash), true));
    children.push_back(field(QStringLiteral("Kernel name"), qs(candidate.kernel_name), true));
    children.push_back(field(QStringLiteral("Result class"), qs(candidate.result_class)));
    children.push_back(field(QStringLiteral("Arguments"), joined(candidate.arg_names), true));
    children.push_back(field(QStringLiteral("Argument types"), qs(candidate.arg_types), true));
    children.push_back(field(QStringLiteral("num_warps"), optionalNumber(candidate.num_warps)));
    children.push_back(field(QStringLiteral("Shared memory"),
                             candidate.shared ? bytes(static_cast<std::uint64_t>(*candidate.shared))
                                              : QStringLiteral("—")));
    children.push_back(
        field(QStringLiteral("Global scratch"), yesNo(candidate.has_global_scratch)));
    children.push_back(
        field(QStringLiteral("Profile scratch"), yesNo(candidate.has_profile_scratch)));
    FieldNode node =
        linkField(QStringLiteral("#%1  %2").arg(index).arg(qs(candidate.config.describe())), dir,
                  FileKind::Triton, dir);
    node.children = std::move(children);
    return node;
}

FieldNode kernelNode(const KernelAutotuner& tuner) {
    std::vector<FieldNode> children;
    if (!tuner.module_key.empty()) {
        children.push_back(linkField(QStringLiteral("Module"), qs(tuner.module_key),
                                     FileKind::Module, qs(tuner.module_key)));
    } else {
        children.push_back(field(QStringLiteral("Module"), QStringLiteral("(none)")));
    }
    children.push_back(field(QStringLiteral("Module path"), qs(tuner.module_path), true));
    children.push_back(field(QStringLiteral("Heuristic"), qs(tuner.heuristic)));
    children.push_back(field(QStringLiteral("Grid type"), qs(tuner.grid_type)));
    children.push_back(field(QStringLiteral("Size hints"), pairsText(tuner.size_hints), true));
    children.push_back(field(QStringLiteral("Cache key"), qs(tuner.cache_key), true));
    if (!tuner.best_config_path.empty()) {
        const QString relative = qs(cachedir::cache_relative_path(tuner.best_config_path));
        children.push_back(
            linkField(QStringLiteral("Best config"), relative, FileKind::BestConfig, relative));
    }
    std::vector<FieldNode> candidates;
    for (std::size_t i = 0; i < tuner.candidates.size(); ++i) {
        candidates.push_back(candidateNode(tuner.candidates[i], i + 1));
    }
    children.push_back(group(QStringLiteral("Candidates"), QString::number(candidates.size()),
                             std::move(candidates)));
    QString summary = qs(tuner.heuristic);
    if (!tuner.grid_type.empty()) {
        summary += QStringLiteral(", ") + qs(tuner.grid_type);
    }
    summary += QStringLiteral(", %1 candidates").arg(tuner.candidates.size());
    FieldNode node = group(qs(tuner.kernel_name), summary, std::move(children));
    node.monospace = true;
    return node;
}

FieldNode bundleNode(const TritonKernelArtifacts& kernel) {
    std::vector<FieldNode> files;
    std::uint64_t total = 0;
    QString kernelName;
    for (const auto& file : kernel.files) {
        files.push_back(field(qs(file.name), bytes(file.payload.size())));
        total += file.payload.size();
        if (kernelName.isEmpty() && !file.name.starts_with("__grp__")) {
            kernelName = qs(stem_of(file.name));
        }
    }
    const QString hash = qs(kernel.kernel_hash);
    FieldNode node =
        linkField(kernelName.isEmpty() ? hash : kernelName, hash, FileKind::Triton, hash);
    node.children.push_back(field(QStringLiteral("Device"), number(kernel.device)));
    node.children.push_back(group(
        QStringLiteral("Files"),
        QStringLiteral("%1, %2").arg(kernel.files.size()).arg(bytes(total)), std::move(files)));
    return node;
}

void addFxGraph(std::vector<FieldNode>& out, const FxGraphEntry& fx) {
    out.push_back(field(QStringLiteral("Class"), qs(fx.class_name), true));
    out.push_back(guardsField(fx.guards_expr));
    QStringList devices;
    for (std::size_t i = 0; i < fx.device_types.size(); ++i) {
        devices << qs(fx.device_types[i]) + (i < fx.device_idxs.size()
                                                 ? QStringLiteral(":%1").arg(fx.device_idxs[i])
                                                 : QString());
    }
    out.push_back(field(QStringLiteral("Devices"), devices.join(QStringLiteral(", "))));
    out.push_back(field(QStringLiteral("Compile time"),
                        fx.time_taken_ns ? duration(*fx.time_taken_ns) : QStringLiteral("—")));
    if (!fx.cache_key.empty()) {
        out.push_back(linkField(QStringLiteral("Wrapper module"), qs(fx.cache_key),
                                FileKind::Module, qs(fx.cache_key)));
    }
    out.push_back(field(QStringLiteral("Wrapper source"), textSummary(fx.source_code)));
    out.push_back(
        field(QStringLiteral("Source sha256"), qs(hash::sha256_hex(fx.source_code)), true));
    out.push_back(field(QStringLiteral("Debug lines"), QString::number(fx.debug_lines.size())));

    std::vector<FieldNode> kernels;
    for (const auto& tuner : fx.autotuners) {
        kernels.push_back(kernelNode(tuner));
    }
    out.push_back(
        group(QStringLiteral("Kernels"), QString::number(kernels.size()), std::move(kernels)));

    std::vector<FieldNode> bundle;
    std::size_t files = 0;
    std::uint64_t total = 0;
    for (const auto& kernel : fx.triton_artifacts) {
        bundle.push_back(bundleNode(kernel));
        files += kernel.files.size();
        for (const auto& file : kernel.files) {
            total += file.payload.size();
        }
    }
    out.push_back(group(QStringLiteral("Triton bundle"),
                        QStringLiteral("%1 kernel dirs, %2 files, %3")
                            .arg(fx.triton_artifacts.size())
                            .arg(files)
                            .arg(bytes(total)),
                        std::move(bundle)));
    out.push_back(countsGroup(QStringLiteral("Metrics"), fx.metrics_deltas));
    out.push_back(countsGroup(QStringLiteral("Counters"), fx.counter_deltas));

    std::vector<FieldNode> strides;
    for (std::size_t i = 0; i < fx.output_strides.size(); ++i) {
        const auto& output = fx.output_strides[i];
        strides.push_back(field(QStringLiteral("output %1").arg(i),
                                output ? QLatin1Char('[') + joined(*output) + QLatin1Char(']')
                                       : QStringLiteral("None"),
                                true));
    }
    out.push_back(group(QStringLiteral("Output strides"), QString::number(strides.size()),
                        std::move(strides)));
    out.push_back(field(
        QStringLiteral("Mutated inputs"),
        fx.mutated_inputs.empty() ? QStringLiteral("none") : joined(fx.mutated_inputs), true));
    out.push_back(graphTextField(QStringLiteral("Runnable graph"), fx.runnable_graph));
    out.push_back(graphTextField(QStringLiteral("Post-grad graph"), fx.post_grad_graph));

    out.push_back(attributesGroup(fx.root(), fx.attribute_names, decoded_fx_graph_attributes()));
}

FieldNode graphLinkField(QString name, const std::optional<FxGraphLink>& link) {
    if (!link) {
        return field(std::move(name), QStringLiteral("none"));
    }
    FieldNode node = linkField(std::move(name), qs(link->key), FileKind::FxGraph, qs(link->key));
    node.children.push_back(
        field(QStringLiteral("Debug lines recorded"), QString::number(link->debug_lines.size())));
    return node;
}

void addAot(std::vector<FieldNode>& out, const AotAutogradEntry& aot) {
    out.push_back(field(QStringLiteral("Class"), qs(aot.class_name), true));
    out.push_back(guardsField(aot.guards_expr));
    out.push_back(graphLinkField(QStringLiteral("Forward graph"), aot.forward));
    out.push_back(graphLinkField(QStringLiteral("Backward graph"), aot.backward));
    if (aot.forward_time_taken_ns) {
        out.push_back(
            field(QStringLiteral("Forward compile"), duration(*aot.forward_time_taken_ns)));
    }
    if (aot.backward_time_taken_ns && *aot.backward_time_taken_ns > 0) {
        out.push_back(
            field(QStringLiteral("Backward compile"), duration(*aot.backward_time_taken_ns)));
    }
    out.push_back(graphTextField(QStringLiteral("Forward graph text"), aot.forward_graph));
    out.push_back(graphTextField(QStringLiteral("Backward graph text"), aot.backward_graph));
    out.push_back(graphTextField(QStringLiteral("Joint graph text"), aot.joint_graph));
    out.push_back(
        attributesGroup(aot.root(), aot.attribute_names, decoded_aot_autograd_attributes()));
}

QString harnessArgsText(const BenchmarkHarness& harness) {
    QStringList args;
    for (const auto& arg : harness.args) {
        switch (arg.kind) {
        case HarnessArg::Kind::Tensor: {
            QStringList dims;
            for (auto d : arg.tensor.shape) {
                dims << QString::number(d);
            }
            args << QStringLiteral("%1[%2] %3")
                        .arg(qs(arg.tensor.dtype), dims.join(QLatin1Char(',')),
                             qs(arg.tensor.device));
            break;
        }
        case HarnessArg::Kind::Int:
            args << QString::number(arg.integer);
            break;
        case HarnessArg::Kind::Float:
            args << qs(pickle::float_repr(arg.real));
            break;
        case HarnessArg::Kind::Unknown:
            args << qs(arg.name);
            break;
        }
    }
    return args.join(QStringLiteral(", "));
}

FieldNode harnessNode(QString name, const BenchmarkHarness& harness) {
    std::vector<FieldNode> children;
    if (harness.get_args_line > 0) {
        children.push_back(
            field(QStringLiteral("get_args() line"), QString::number(harness.get_args_line)));
    }
    children.push_back(field(QStringLiteral("Arguments"), harnessArgsText(harness), true));
    children.push_back(field(QStringLiteral("call(args)"), yesNo(harness.has_call)));
    children.push_back(
        field(QStringLiteral("benchmark_all_configs"), yesNo(harness.has_benchmark_all_configs)));
    for (const auto& problem : harness.problems) {
        children.push_back(field(QStringLiteral("Problem"), qs(problem)));
    }
    return group(std::move(name), QStringLiteral("%1 arguments").arg(harness.args.size()),
                 std::move(children));
}

FieldNode moduleKernelNode(const KernelDefinition& kernel) {
    std::vector<FieldNode> children;
    children.push_back(field(QStringLiteral("Heuristic"), qs(kernel.heuristic)));
    children.push_back(field(QStringLiteral("Def line"), QString::number(kernel.def_line)));
    if (!kernel.kernel_name.empty()) {
        children.push_back(field(QStringLiteral("Kernel name"), qs(kernel.kernel_name), true));
    }
    if (!kernel.wrapper_binding.empty()) {
        children.push_back(
            field(QStringLiteral("Wrapper binding"), qs(kernel.wrapper_binding), true));
    }
    if (!kernel.grid_type.empty()) {
        children.push_back(field(QStringLiteral("Grid type"), qs(kernel.grid_type)));
    }
    QStringList parameters;
    for (const auto& parameter : kernel.parameters) {
        parameters << (parameter.annotation.empty()
                           ? qs(parameter.name)
                           : qs(parameter.name) + QStringLiteral(": ") + qs(parameter.annotation));
    }
    children.push_back(
        field(QStringLiteral("Parameters"), parameters.join(QStringLiteral(", ")), true));
    std::vector<FieldNode> signature;
    for (const auto& entry : kernel.signature) {
        signature.push_back(field(qs(entry.name), qs(entry.type), true));
    }
    children.push_back(group(QStringLiteral("Signature"), QString::number(signature.size()),
                             std::move(signature)));
    if (!kernel.constants.empty()) {
        children.push_back(
            field(QStringLiteral("Constants"), configPairsText(kernel.constants), true));
    }
    children.push_back(field(QStringLiteral("Size hints"), pairsText(kernel.size_hints), true));
    if (!kernel.reduction_hint.empty()) {
        children.push_back(field(QStringLiteral("Reduction hint"), qs(kernel.reduction_hint)));
    }
    if (kernel.num_warps) {
        children.push_back(field(QStringLiteral("num_warps"), number(*kernel.num_warps)));
    }
    if (kernel.num_stages) {
        children.push_back(field(QStringLiteral("num_stages"), number(*kernel.num_stages)));
    }
    if (kernel.kernel_num_gb) {
        children.push_back(
            field(QStringLiteral("Memory traffic"),
                  qs(pickle::float_repr(*kernel.kernel_num_gb)) + QStringLiteral(" GB")));
    }
    if (kernel.kernel_flop) {
        children.push_back(field(QStringLiteral("FLOP"), number(*kernel.kernel_flop)));
    }
    if (!kernel.config_args.empty()) {
        children.push_back(
            field(QStringLiteral("Config args"), configPairsText(kernel.config_args), true));
    }
    if (!kernel.mutated_arg_names.empty()) {
        children.push_back(
            field(QStringLiteral("Mutated args"), joined(kernel.mutated_arg_names), true));
    }
    children.push_back(
        field(QStringLiteral("Autotune candidate"), yesNo(kernel.is_benchmark_candidate)));
    if (kernel.harness.get_args_line > 0 || !kernel.harness.args.empty()) {
        children.push_back(harnessNode(QStringLiteral("Benchmark harness"), kernel.harness));
    }
    for (const auto& problem : kernel.problems) {
        children.push_back(field(QStringLiteral("Problem"), qs(problem)));
    }
    FieldNode node =
        group(qs(kernel.name),
              QStringLiteral("%1, line %2").arg(qs(kernel.heuristic)).arg(kernel.def_line),
              std::move(children));
    node.monospace = true;
    return node;
}

void addModule(std::vector<FieldNode>& out, const Entry& entry, const ModuleSource& source) {
    const KernelModule& module = source.module;
    out.push_back(field(QStringLiteral("Role"), qs(to_string(module.role))));
    out.push_back(field(QStringLiteral("Source"), textSummary(source.text())));
    const std::string codeHash = hash::code_hash(hash::python_strip(source.text()));
    out.push_back(field(QStringLiteral("Code hash"),
                        qs(codeHash) + (codeHash == entry.key
                                            ? QStringLiteral("  (matches the file name)")
                                            : QStringLiteral("  (differs from the file name)")),
                        true));
    out.push_back(field(QStringLiteral("Benchmark harness"), yesNo(module.has_benchmark_harness)));
    if (module.is_autotune_template_candidate) {
        out.push_back(field(QStringLiteral("Autotune candidate"),
                            QStringLiteral("yes (named by its benchmark, not by its content)")));
    }
    std::vector<FieldNode> kernels;
    for (const auto& kernel : module.kernels) {
        kernels.push_back(moduleKernelNode(kernel));
    }
    out.push_back(
        group(QStringLiteral("Kernels"), joined(module.kernel_names()), std::move(kernels)));
    if (module.role == ModuleRole::Wrapper &&
        (module.wrapper_harness.get_args_line > 0 || !module.wrapper_harness.args.empty())) {
        out.push_back(harnessNode(QStringLiteral("Wrapper harness"), module.wrapper_harness));
    }
    for (const auto& problem : module.problems) {
        out.push_back(field(QStringLiteral("Problem"), qs(problem)));
    }
}

void addBestConfig(std::vector<FieldNode>& out, const BestConfig& best) {
    out.push_back(configFields(QStringLiteral("Config"), best.config));
    if (best.triton_cache_hash) {
        const QString hash = qs(*best.triton_cache_hash);
        out.push_back(linkField(QStringLiteral("Winner cubin"), hash, FileKind::Triton, hash));
    }
    if (best.found_by_coordesc) {
        out.push_back(field(QStringLiteral("Coordinate descent"), yesNo(*best.found_by_coordesc)));
    }
    if (best.time_taken_ms) {
        out.push_back(field(QStringLiteral("Autotune time"), milliseconds(*best.time_taken_ms)));
    }
    if (best.configs_hash) {
        out.push_back(field(QStringLiteral("Configs hash"), qs(*best.configs_hash), true));
    }
    if (!best.other_fields.empty()) {
        std::vector<FieldNode> other;
        for (const auto& [key, json] : best.other_fields) {
            other.push_back(field(qs(key), qs(json), true));
        }
        out.push_back(
            group(QStringLiteral("Other fields"), QString::number(other.size()), std::move(other)));
    }
}

void addBenchmarkCache(std::vector<FieldNode>& out, const BenchmarkCache& cache) {
    out.push_back(field(QStringLiteral("Device"), qs(cache.device_name)));
    out.push_back(field(QStringLiteral("System hash"), qs(cache.system_hash), true));
    std::vector<FieldNode> versions;
    for (const auto& [name, version] : cache.versions) {
        versions.push_back(field(qs(name), qs(version), true));
    }
    out.push_back(
        group(QStringLiteral("Versions"), QString::number(versions.size()), std::move(versions)));
    out.push_back(field(QStringLiteral("Timed choices"), QString::number(cache.choices.size())));
    // One node per benchmark (op, inputs, precision) with its fastest choice.
    std::vector<FieldNode> benchmarks;
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const auto& choice : cache.choices) {
        if (!seen.insert({choice.op, choice.inputs, choice.precision}).second) {
            continue;
        }
        const BenchmarkChoice* best = cache.best(choice.op, choice.inputs, choice.precision);
        std::size_t count = 0;
        for (const auto& other : cache.choices) {
            count += other.op == choice.op && other.inputs == choice.inputs &&
                     other.precision == choice.precision;
        }
        FieldNode node = field(qs(choice.op), QStringLiteral("%1 choices, fastest %2")
                                                  .arg(count)
                                                  .arg(best ? qs(best->choice) : QString()));
        node.children.push_back(field(QStringLiteral("Inputs"), qs(choice.inputs), true));
        node.children.push_back(field(QStringLiteral("Precision"), qs(choice.precision)));
        if (best) {
            const std::string module = cachedir::module_key_of_choice(best->choice);
            FieldNode fastest = module.empty()
                                    ? field(QStringLiteral("Fastest"), qs(best->choice), true)
                                    : linkField(QStringLiteral("Fastest"), qs(best->choice),
                                                FileKind::Module, qs(module));
            fastest.children.push_back(field(QStringLiteral("Time"), milliseconds(best->ms)));
            node.children.push_back(std::move(fastest));
        }
        benchmarks.push_back(std::move(node));
    }
    out.push_back(group(QStringLiteral("Benchmarks"), QString::number(benchmarks.size()),
                        std::move(benchmarks)));
    if (!cache.other_entries.empty()) {
        std::vector<FieldNode> other;
        for (const auto& [key, json] : cache.other_entries) {
            other.push_back(field(qs(key), qs(json), true));
        }
        out.push_back(group(QStringLiteral("Other entries"), QString::number(other.size()),
                            std::move(other)));
    }
}

void addDynamoProfile(std::vector<FieldNode>& out, const DynamoProfile& profile) {
    const pickle::Value& root = profile.document->root();
    pickle::ReprOptions options;
    options.max_string = 2000;
    if (root.is(pickle::Kind::Dict)) {
        std::vector<FieldNode> items;
        for (const auto& item : root.dict_items()) {
            items.push_back(field(qs(pickle::repr(*item.key, options)),
                                  qs(pickle::repr(*item.value, options)), true));
        }
        out.push_back(group(QStringLiteral("State"), QStringLiteral("%1 frames").arg(items.size()),
                            std::move(items)));
    } else {
        out.push_back(field(QStringLiteral("State"), qs(pickle::repr(root, options)), true));
    }
}

} // namespace

std::vector<FieldNode> tritonKernelFields(const TritonKernelDir& kernel) {
    std::vector<FieldNode> out;
    out.push_back(field(QStringLiteral("Kernel"), qs(kernel.kernel_name), true));
    out.push_back(field(QStringLiteral("Hash"), qs(kernel.hash), true));
    out.push_back(field(QStringLiteral("Device"), qs(kernel.device)));
    if (!kernel.module_key.empty()) {
        out.push_back(linkField(QStringLiteral("Module"), qs(kernel.module_key), FileKind::Module,
                                qs(kernel.module_key)));
    }
    out.push_back(field(
        QStringLiteral("Module path"),
        kernel.module_path.empty() ? QStringLiteral("(unknown)") : qs(kernel.module_path), true));
    if (kernel.metadata) {
        const TritonMetadata& meta = *kernel.metadata;
        std::vector<FieldNode> children;
        children.push_back(field(QStringLiteral("Name"), qs(meta.name), true));
        children.push_back(field(QStringLiteral("Hash"), qs(meta.hash), true));
        children.push_back(
            field(QStringLiteral("Target"), qs(meta.backend) + QLatin1Char(' ') + qs(meta.arch)));
        children.push_back(field(QStringLiteral("num_warps"), optionalNumber(meta.num_warps)));
        children.push_back(field(QStringLiteral("num_stages"), optionalNumber(meta.num_stages)));
        children.push_back(field(QStringLiteral("num_ctas"), optionalNumber(meta.num_ctas)));
        if (meta.warp_size) {
            children.push_back(field(QStringLiteral("Warp size"), number(*meta.warp_size)));
        }
        if (meta.maxnreg) {
            children.push_back(field(QStringLiteral("maxnreg"), number(*meta.maxnreg)));
        }
        children.push_back(
            field(QStringLiteral("Shared memory"), QStringLiteral("%1 B").arg(meta.shared)));
        children.push_back(
            field(QStringLiteral("Global scratch"), QStringLiteral("%1 B (align %2)")
                                                        .arg(meta.global_scratch_size)
                                                        .arg(meta.global_scratch_align)));
        children.push_back(
            field(QStringLiteral("Profile scratch"), QStringLiteral("%1 B (align %2)")
                                                         .arg(meta.profile_scratch_size)
                                                         .arg(meta.profile_scratch_align)));
        if (meta.tmem_size != 0) {
            children.push_back(
                field(QStringLiteral("Tensor memory"), QStringLiteral("%1 B").arg(meta.tmem_size)));
        }
        children.push_back(field(QStringLiteral("Triton version"), qs(meta.triton_version)));
        children.push_back(field(QStringLiteral("Launch PDL"), yesNo(meta.launch_pdl)));
        children.push_back(
            field(QStringLiteral("Cooperative grid"), yesNo(meta.launch_cooperative_grid)));
        children.push_back(field(QStringLiteral("Keys"), joined(meta.keys), true));
        out.push_back(
            group(QStringLiteral("Metadata"),
                  QStringLiteral("%1 %2, num_warps=%3, num_stages=%4, shared %5 B")
                      .arg(qs(meta.backend), qs(meta.arch), optionalNumber(meta.num_warps),
                           optionalNumber(meta.num_stages))
                      .arg(meta.shared),
                  std::move(children)));
    }
    if (kernel.ptx) {
        const PtxInfo& ptx = *kernel.ptx;
        std::vector<FieldNode> children;
        children.push_back(field(QStringLiteral("Entry"), qs(ptx.entry), true));
        children.push_back(field(QStringLiteral("Version"), qs(ptx.version), true));
        children.push_back(field(QStringLiteral("Target"), qs(ptx.target), true));
        if (ptx.reqntid) {
            children.push_back(field(QStringLiteral("Threads per block"), number(*ptx.reqntid)));
        }
        std::vector<FieldNode> parameters;
        QStringList summary;
        for (std::size_t i = 0; i < ptx.parameters.size(); ++i) {
            const PtxParameter& p = ptx.parameters[i];
            const QString text = qs(p.type) + (p.pointer ? QStringLiteral(" ptr") : QString());
            parameters.push_back(field(QStringLiteral("param %1").arg(i),
                                       text + QStringLiteral("  (%1 B)").arg(p.bytes), true));
            summary << text;
        }
        children.push_back(group(QStringLiteral("Entry parameters"),
                                 summary.join(QStringLiteral(", ")), std::move(parameters)));
        out.push_back(group(QStringLiteral("PTX"), qs(ptx.target), std::move(children)));
    }
    std::vector<FieldNode> files;
    for (const auto& file : kernel.files) {
        files.push_back(field(qs(file.name), bytes(file.size), false));
    }
    out.push_back(
        group(QStringLiteral("Files"),
              QStringLiteral("%1, %2").arg(kernel.files.size()).arg(bytes(kernel.total_size())),
              std::move(files)));
    return out;
}

FieldNode tritonKernelsGroup(const QString& name, const std::vector<TritonKernelDir>& kernels) {
    std::vector<FieldNode> children;
    for (const auto& kernel : kernels) {
        const QString hash = qs(kernel.hash);
        FieldNode node = linkField(qs(kernel.kernel_name), hash, FileKind::Triton, hash);
        if (kernel.metadata) {
            node.children.push_back(
                field(QStringLiteral("num_warps"), optionalNumber(kernel.metadata->num_warps)));
            node.children.push_back(
                field(QStringLiteral("num_stages"), optionalNumber(kernel.metadata->num_stages)));
        }
        children.push_back(std::move(node));
    }
    return group(name, QString::number(children.size()), std::move(children));
}

FieldNode bestConfigsGroup(const QString& name,
                           const std::vector<cachedir::LocatedBestConfig>& configs) {
    std::vector<FieldNode> children;
    for (const auto& located : configs) {
        const QString path = qs(located.path);
        const KernelConfig& config = located.config.config;
        FieldNode node =
            linkField(configPairsText(config.kwargs), path, FileKind::BestConfig, path);
        node.children.push_back(
            field(QStringLiteral("num_warps"), optionalNumber(config.num_warps)));
        node.children.push_back(
            field(QStringLiteral("num_stages"), optionalNumber(config.num_stages)));
        if (located.config.triton_cache_hash) {
            const QString hash = qs(*located.config.triton_cache_hash);
            node.children.push_back(
                linkField(QStringLiteral("Winner cubin"), hash, FileKind::Triton, hash));
        }
        children.push_back(std::move(node));
    }
    return group(name, QString::number(children.size()), std::move(children));
}

std::vector<FieldNode> entryFields(const Entry& entry, const EntryContent& content) {
    std::vector<FieldNode> out;
    out.push_back(field(QStringLiteral("Kind"), qs(to_string(entry.kind))));
    out.push_back(field(QStringLiteral("Key"), qs(entry.key), true));
    out.push_back(field(QStringLiteral("Path"), qs(entry.path), true));
    out.push_back(
        field(QStringLiteral("File"), qs(entry.path.substr(entry.path.rfind('/') + 1)), true));
    out.push_back(field(QStringLiteral("Size"),
                        QStringLiteral("%1 (%2 bytes)").arg(bytes(entry.size)).arg(entry.size)));
    if (entry.file_count > 1) {
        out.push_back(field(QStringLiteral("Files"), QString::number(entry.file_count)));
    }
    out.push_back(
        field(QStringLiteral("Modified"), qs(format_time(entry.mtime_ns)) + QStringLiteral(" (") +
                                              qs(format_age(entry.mtime_ns)) + QLatin1Char(')')));
    std::visit(
        [&](const auto& item) {
            using T = std::decay_t<decltype(item)>;
            if constexpr (std::is_same_v<T, FxGraphEntry>) {
                addFxGraph(out, item);
            } else if constexpr (std::is_same_v<T, AotAutogradEntry>) {
                addAot(out, item);
            } else if constexpr (std::is_same_v<T, ModuleSource>) {
                addModule(out, entry, item);
            } else if constexpr (std::is_same_v<T, CppSource>) {
                out.push_back(field(QStringLiteral("Source"), textSummary(item.text())));
            } else if constexpr (std::is_same_v<T, BestConfig>) {
                addBestConfig(out, item);
            } else if constexpr (std::is_same_v<T, KernelPerf>) {
                out.push_back(field(QStringLiteral("Time"), milliseconds(item.milliseconds)));
            } else if constexpr (std::is_same_v<T, BenchmarkCache>) {
                addBenchmarkCache(out, item);
            } else if constexpr (std::is_same_v<T, TritonKernelDir>) {
                auto facts = tritonKernelFields(item);
                std::move(facts.begin(), facts.end(), std::back_inserter(out));
            } else if constexpr (std::is_same_v<T, DynamoProfile>) {
                addDynamoProfile(out, item);
            } else {
                out.push_back(field(QStringLiteral("Contents"),
                                    QStringLiteral("not parsed (a compiled library, lock, "
                                                   "temporary or unknown file)")));
            }
        },
        content);
    return out;
}

// ---------------------------------------------------------------------------

struct EntryFieldsModel::Node {
    FieldNode field; // its children live in `children`
    Node* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;

    static std::unique_ptr<Node> make(FieldNode field, Node* parent, int row) {
        auto node = std::make_unique<Node>();
        node->parent = parent;
        node->row = row;
        std::vector<FieldNode> children = std::move(field.children);
        field.children.clear();
        node->field = std::move(field);
        node->children.reserve(children.size());
        for (auto& child : children) {
            node->children.push_back(
                make(std::move(child), node.get(), static_cast<int>(node->children.size())));
        }
        return node;
    }
};

FieldNode safetyField(const bundle::ArtifactCheck& check) {
    FieldNode field;
    field.name = QObject::tr("Safety");
    QStringList code;
    for (const auto& part : check.code) {
        code << text(part);
    }
    field.value = text(safety::to_string(check.verdict));
    if (!code.isEmpty()) {
        field.value += QObject::tr(": PyTorch would run %1").arg(code.join(QStringLiteral(", ")));
    }
    for (const auto& finding : check.findings) {
        field.children.push_back({.name = text(finding.id) + u' ' + text(safety::location(finding)),
                                  .value = text(finding.text) + u'\n' + text(finding.rule) +
                                           QStringLiteral(": ") + text(finding.why),
                                  .monospace = true,
                                  .link = std::nullopt,
                                  .children = {}});
    }
    // A readable entry's one problem is the import's refusal of its findings,
    // listed above already; an unreadable one's say why.
    for (const auto& problem : check.readable ? std::vector<std::string>{} : check.problems) {
        field.children.push_back({.name = QObject::tr("problem"),
                                  .value = text(problem),
                                  .monospace = false,
                                  .link = std::nullopt,
                                  .children = {}});
    }
    return field;
}

EntryFieldsModel::EntryFieldsModel(QObject* parent)
    : QAbstractItemModel(parent)
    , root_(std::make_unique<Node>()) {}

EntryFieldsModel::~EntryFieldsModel() = default;

void EntryFieldsModel::setEntry(const Entry& entry, const EntryContent& content) {
    setFields(entryFields(entry, content));
}

void EntryFieldsModel::setFields(std::vector<FieldNode> fields) {
    beginResetModel();
    FieldNode top;
    top.children = std::move(fields);
    root_ = Node::make(std::move(top), nullptr, 0);
    endResetModel();
}

void EntryFieldsModel::appendField(FieldNode field) {
    const int row = static_cast<int>(root_->children.size());
    beginInsertRows({}, row, row);
    root_->children.push_back(Node::make(std::move(field), root_.get(), row));
    endInsertRows();
}

void EntryFieldsModel::prependField(FieldNode field) {
    beginInsertRows({}, 0, 0);
    root_->children.insert(root_->children.begin(), Node::make(std::move(field), root_.get(), 0));
    for (std::size_t row = 1; row < root_->children.size(); ++row) {
        root_->children[row]->row = static_cast<int>(row);
    }
    endInsertRows();
}

void EntryFieldsModel::clear() {
    setFields({});
}

EntryFieldsModel::Node* EntryFieldsModel::nodeAt(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

std::optional<EntryLink> EntryFieldsModel::linkAt(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) {
        return std::nullopt;
    }
    return nodeAt(index)->field.link;
}

void EntryFieldsModel::collectLinks(const Node& node, QModelIndexList& out) const {
    for (const auto& child : node.children) {
        if (child->field.link) {
            out << createIndex(child->row, 0, child.get());
        }
        collectLinks(*child, out);
    }
}

QModelIndexList EntryFieldsModel::linkIndexes() const {
    QModelIndexList out;
    collectLinks(*root_, out);
    return out;
}

QModelIndex EntryFieldsModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    Node* node = nodeAt(parent);
    return createIndex(row, column, node->children[static_cast<std::size_t>(row)].get());
}

QModelIndex EntryFieldsModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) {
        return {};
    }
    Node* parentNode = nodeAt(child)->parent;
    if (parentNode == nullptr || parentNode == root_.get()) {
        return {};
    }
    return createIndex(parentNode->row, 0, parentNode);
}

int EntryFieldsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) {
        return 0;
    }
    return static_cast<int>(nodeAt(parent)->children.size());
}

int EntryFieldsModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant EntryFieldsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) {
        return {};
    }
    const Node* node = nodeAt(index);
    const FieldNode& f = node->field;
    const bool valueColumn = index.column() == ValueColumn;
    switch (role) {
    case Qt::DisplayRole: {
        if (!valueColumn) {
            return f.name;
        }
        const qsizetype newline = f.value.indexOf(QLatin1Char('\n'));
        QString shown = newline < 0 ? f.value : f.value.left(newline);
        if (shown.size() > kMaxShown) {
            shown = shown.left(kMaxShown);
        }
        if (shown.size() < f.value.size()) {
            shown += QStringLiteral(" …");
        }
        return shown;
    }
    case Qt::EditRole:
    case FullValueRole:
        return valueColumn ? f.value : f.name;
    case Qt::ToolTipRole: {
        QString tip = valueColumn ? f.value : f.name;
        if (tip.size() > kMaxTooltip) {
            tip = tip.left(kMaxTooltip) + QStringLiteral(" …");
        }
        if (f.link) {
            tip += QStringLiteral("\n\nDouble-click or Enter: go to %1").arg(f.link->describe());
        }
        return literalText(tip);
    }
    case Qt::FontRole: {
        const bool group = !valueColumn && !node->children.empty();
        if (!group && !(valueColumn && (f.monospace || f.link))) {
            return {}; // the view's own font
        }
        QFont font = (f.monospace && valueColumn)
                         ? QFontDatabase::systemFont(QFontDatabase::FixedFont)
                         : QGuiApplication::font();
        if (f.link && valueColumn) {
            font.setUnderline(true);
        }
        font.setBold(group);
        return font;
    }
    case Qt::ForegroundRole:
        if (f.link && valueColumn) {
            return QGuiApplication::palette().brush(QPalette::Link);
        }
        return {};
    case LinkKindRole:
        return f.link ? QVariant(static_cast<int>(f.link->kind)) : QVariant();
    case LinkTargetRole:
        return f.link ? QVariant(f.link->target) : QVariant();
    default:
        return {};
    }
}

QVariant EntryFieldsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    return section == NameColumn ? QStringLiteral("Field") : QStringLiteral("Value");
}

} // namespace cachelens::ui
