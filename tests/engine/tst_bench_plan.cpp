// Launch plans for the devset's kernels, built without a GPU, against what the
// cache itself says: every kernel module with a harness (golden.json) gets
// planned; each plan's slots are the PTX .entry parameters of its cubin; the
// grids, buffers and candidates equal what the harness, the FX bundles and the
// .best_config files give; configs read from the TTIR equal the bundle's; a
// cubin only a bundle carries, a PTX that disagrees, an unknown grid type and a
// missing cache dir each say what is wrong.

#include "test_paths.h"

#include <cachelens/bench/launch_plan.h>
#include <cachelens/cachedir/best_config.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/cachedir/triton_kernel.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

using namespace cachelens;
using namespace cachelens::bench;
namespace fs = std::filesystem;

namespace {

const std::string kReductionKey = "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w";
const std::string kReductionKernel = "triton_red_fused_mul_sqrt_sum_0";
const std::string kTemplateKey = "cp7e6q6ez6je2kgowcrkhmrkjmgmrj4xvf22iwb3zd7fmola7nch";
const std::string kTemplateKernel = "triton_tem_fused_add_mm_relu_0";
// The same template kernel, text identical but for blank lines; nothing in the
// cache links it to a cubin (the shared Triton dir's PTX names cp7e6...).
const std::string kOrphanKey = "coqd6knf5wbcutvrfctxurs52n6pq7s4i2kimwd23bllhymdgulh";

fs::path devset() {
    return test::fixture("devset/cache");
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream out;
    out << in.rdbuf();
    return out.str();
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::vector<KernelCandidates> plan(const fs::path& dir, const PlanOptions& options = {}) {
    auto plans = plan_kernels(dir, options);
    if (!plans) {
        qFatal("plan_kernels(%s): %s", dir.c_str(), plans.error().describe().c_str());
    }
    return std::move(*plans);
}

const KernelCandidates* find_kernel(const std::vector<KernelCandidates>& kernels,
                                    std::string_view module_key) {
    for (const auto& kernel : kernels) {
        if (kernel.module_key == module_key) {
            return &kernel;
        }
    }
    return nullptr;
}

std::string dir_name(const LaunchPlan& plan) {
    return plan.source.dir.filename().string();
}

// The module a Triton dir was compiled from, read straight off its PTX text.
std::string ptx_module_key(const fs::path& dir) {
    static const QRegularExpression file1("\\.file\\s+1\\s+\"[^\"]*/(c[a-z0-9]+)\\.py\"");
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".ptx") {
            const auto match = file1.match(qs(read_text(entry.path())));
            return match.hasMatch() ? match.captured(1).toStdString() : std::string();
        }
    }
    return {};
}

// Triton dir name -> the module its PTX names, for every dir of a cache.
std::map<std::string, std::string> triton_modules(const fs::path& cache) {
    std::map<std::string, std::string> out;
    for (const auto& device : fs::directory_iterator(cache / "triton")) {
        for (const auto& dir : fs::directory_iterator(device.path())) {
            out[dir.path().filename().string()] = ptx_module_key(dir.path());
        }
    }
    return out;
}

struct BundleKernel {
    std::set<std::string> dirs;
    std::map<std::string, cachedir::KernelConfig> configs;
    std::map<std::string, std::string> arg_types;
};

// (module key, kernel) -> what the FX entries' bundles list for it, read with
// the FX entry reader; a template autotuner names no module, its cubin's PTX does.
std::map<std::pair<std::string, std::string>, BundleKernel> bundle_kernels(const fs::path& cache) {
    const auto modules = triton_modules(cache);
    std::map<std::pair<std::string, std::string>, BundleKernel> out;
    for (const auto& file : fs::recursive_directory_iterator(cache / "fxgraph")) {
        if (!file.is_regular_file()) {
            continue;
        }
        auto entry = cachedir::load_fx_graph_entry(file.path());
        if (!entry) {
            qFatal("%s", entry.error().describe().c_str());
        }
        for (const auto& tuner : entry->autotuners) {
            for (const auto& candidate : tuner.candidates) {
                const std::string dir = candidate.triton_dir();
                const std::string key =
                    tuner.module_key.empty() ? modules.at(dir) : tuner.module_key;
                auto& kernel = out[{key, tuner.kernel_name}];
                kernel.dirs.insert(dir);
                kernel.configs[dir] = candidate.config;
                kernel.arg_types[dir] = candidate.arg_types;
            }
        }
    }
    return out;
}

bool same_launch_config(const cachedir::KernelConfig& a, const cachedir::KernelConfig& b) {
    std::map<std::string, cachedir::ConfigValue> ka(a.kwargs.begin(), a.kwargs.end());
    std::map<std::string, cachedir::ConfigValue> kb(b.kwargs.begin(), b.kwargs.end());
    return ka == kb && a.num_warps == b.num_warps && a.num_stages == b.num_stages;
}

cachedir::PtxInfo ptx_of(const fs::path& cache, const LaunchPlan& plan) {
    if (!plan.source.dir.empty()) {
        const std::string name =
            plan.source.cubin_name.substr(0, plan.source.cubin_name.size() - 6);
        auto ptx = cachedir::parse_ptx(read_text(plan.source.dir / (name + ".ptx")));
        if (!ptx) {
            qFatal("%s", ptx.error().describe().c_str());
        }
        return *ptx;
    }
    auto entry = cachedir::load_fx_graph_entry(cache / plan.source.fx_entry);
    if (!entry) {
        qFatal("%s", entry.error().describe().c_str());
    }
    // The bundle names its dirs in base32, the plan its hash in hex: the
    // metadata JSON beside the PTX has the hex.
    for (const auto& kernel : entry->triton_artifacts) {
        std::optional<cachedir::PtxInfo> ptx;
        bool same_hash = false;
        for (const auto& file : kernel.files) {
            if (file.name.ends_with(".ptx")) {
                ptx = *cachedir::parse_ptx(file.payload);
            } else if (file.name.ends_with(".json") && !file.name.starts_with("__grp__")) {
                auto metadata = cachedir::parse_triton_metadata(file.payload);
                same_hash = metadata && metadata->hash == plan.source.triton_hash;
            }
        }
        if (same_hash && ptx) {
            return *ptx;
        }
    }
    qFatal("no PTX for %s", plan.kernel_name.c_str());
}

// A cache dir holding one module (edited by `edit`) and the Triton dirs its
// PTX names: no FX entries, so candidates come from the Triton dirs.
fs::path single_module_cache(const QTemporaryDir& tmp, const std::string& shard,
                             const std::string& key,
                             const std::function<std::string(std::string)>& edit) {
    const fs::path root = fs::path(tmp.path().toStdString()) / "cache";
    fs::create_directories(root / shard);
    const std::string module = key + ".py";
    write_text(root / shard / module, edit(read_text(devset() / shard / module)));
    for (const auto& [dir, owner] : triton_modules(devset())) {
        if (owner == key) {
            fs::create_directories(root / "triton/0");
            test::copy_tree(devset() / "triton/0" / dir, root / "triton/0" / dir);
        }
    }
    return root;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) {
        qFatal("'%s' is not in the module", from.c_str());
    }
    return text.replace(at, from.size(), to);
}

} // namespace

class TestBenchPlan : public QObject {
    Q_OBJECT

private slots:
    void plansEveryKernelModuleWithAHarness() {
        // golden.json lists which modules have a harness; wrappers (graphs,
        // which compile their kernels through async_compile) are not kernels.
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        static const QRegularExpression kernel_def("^def (triton_\\w*)\\(",
                                                   QRegularExpression::MultilineOption);
        std::set<std::pair<std::string, std::string>> expected;
        for (const auto& value : golden["modules"].toArray()) {
            const QJsonObject module = value.toObject();
            const QString path = module["path"].toString();
            if (!module["has_benchmark_harness"].toBool() || !path.startsWith("cache/")) {
                continue;
            }
            const QString text = qs(read_text(test::fixture("devset/" + path.toStdString())));
            if (text.contains("async_compile")) {
                continue;
            }
            const std::string key = fs::path(path.toStdString()).stem().string();
            for (auto it = kernel_def.globalMatch(text); it.hasNext();) {
                expected.insert({key, it.next().captured(1).toStdString()});
            }
        }
        QCOMPARE(expected.size(), std::size_t{20});

        const auto kernels = plan(devset());
        std::set<std::pair<std::string, std::string>> planned;
        std::size_t plans = 0;
        for (const auto& kernel : kernels) {
            planned.insert({kernel.module_key, kernel.kernel_name});
            plans += kernel.plans.size();
            QCOMPARE(kernel.module.parent_path().parent_path(), devset());
            if (kernel.module_key == kOrphanKey) {
                QVERIFY(kernel.plans.empty());
                QCOMPARE(kernel.unplannable.size(), std::size_t{1});
                QVERIFY(kernel.unplannable.front().second.starts_with("no compiled cubin"));
                QVERIFY(kernel.unplannable.front().second.find(kOrphanKey) != std::string::npos);
            } else {
                QVERIFY2(kernel.unplannable.empty(),
                         qPrintable(
                             qs(kernel.module_key + ": " +
                                (kernel.unplannable.empty() ? std::string()
                                                            : kernel.unplannable.front().second))));
                QVERIFY(!kernel.plans.empty());
            }
        }
        QCOMPARE(kernels.size(), expected.size());
        QVERIFY(planned == expected);
        QCOMPARE(plans, std::size_t{35});
    }

    void slotsAreThePtxParameters() {
        const auto bundles = bundle_kernels(devset());
        std::size_t checked = 0;
        for (const auto& kernel : plan(devset())) {
            for (const auto& plan : kernel.plans) {
                const auto ptx = ptx_of(devset(), plan);
                QCOMPARE(ptx.entry, plan.kernel_name);
                QCOMPARE(plan.args.size(), ptx.parameters.size());
                for (std::size_t i = 0; i < ptx.parameters.size(); ++i) {
                    QCOMPARE(plan.args[i].bytes, ptx.parameters[i].bytes);
                }
                // Triton 3.6: the last two are the scratch pointers.
                QVERIFY(plan.args.size() >= 2);
                QVERIFY(plan.args[plan.args.size() - 2].kind == LaunchArg::Kind::GlobalScratch);
                QVERIFY(plan.args.back().kind == LaunchArg::Kind::ProfileScratch);
                // And the others are what Inductor's launcher passes (arg_tys).
                const auto bundle = bundles.find({kernel.module_key, kernel.kernel_name});
                if (bundle != bundles.end() && bundle->second.arg_types.contains(dir_name(plan))) {
                    const std::string& types = bundle->second.arg_types.at(dir_name(plan));
                    QCOMPARE(types.size(), plan.args.size() - 2);
                    for (std::size_t i = 0; i < types.size(); ++i) {
                        const auto& arg = plan.args[i];
                        const char expected = arg.kind == LaunchArg::Kind::Buffer ? 'O'
                                              : arg.bytes == 8                    ? 'l'
                                                                                  : 'i';
                        QCOMPARE(types[i], expected);
                    }
                }
                ++checked;
            }
        }
        QCOMPARE(checked, std::size_t{35});
    }

    void theReductionOfFormatsMd() {
        const auto kernels = plan(devset());
        const KernelCandidates* kernel = find_kernel(kernels, kReductionKey);
        QVERIFY(kernel != nullptr);
        QCOMPARE(kernel->kernel_name, kReductionKernel);
        for (const auto& plan : kernel->plans) {
            QCOMPARE(plan.grid_type, std::string("Grid1D"));
            // XBLOCK = 1 in every config: one program per row.
            QCOMPARE(plan.grid, (std::array<std::uint32_t, 3>{4096, 1, 1}));
            QCOMPARE(plan.args.size(), std::size_t{6});
            QVERIFY(plan.args[0].kind == LaunchArg::Kind::Buffer);
            QCOMPARE(plan.args[0].buffer_bytes, std::uint64_t{4096 * 4});
            QCOMPARE(plan.args[0].shape, (std::vector<std::int64_t>{4096}));
            QVERIFY(plan.args[1].kind == LaunchArg::Kind::Buffer);
            QCOMPARE(plan.args[1].buffer_bytes, std::uint64_t{4096} * 3000 * 4);
            QCOMPARE(plan.args[1].stride, (std::vector<std::int64_t>{3000, 1}));
            QVERIFY(plan.args[0].random_fill && plan.args[1].random_fill);
            QCOMPARE(plan.total_buffer_bytes(), std::uint64_t{4096} * 4 + 4096 * 3000 * 4);
            QCOMPARE(plan.args[2].name, std::string("xnumel"));
            QVERIFY(plan.args[2].kind == LaunchArg::Kind::Int);
            QCOMPARE(plan.args[2].integer, std::int64_t{4096});
            QCOMPARE(plan.args[2].bytes, 4u);
            QCOMPARE(plan.args[3].name, std::string("r0_numel"));
            QCOMPARE(plan.args[3].integer, std::int64_t{3000});
            QCOMPARE(plan.args[3].bytes, 4u);
            QVERIFY(plan.args[4].kind == LaunchArg::Kind::GlobalScratch);
            QVERIFY(plan.args[5].kind == LaunchArg::Kind::ProfileScratch);
            QCOMPARE(plan.args[4].scratch_bytes_per_program, std::uint64_t{0});
            QCOMPARE(plan.block_threads, 32u * static_cast<std::uint32_t>(*plan.config.num_warps));
        }
        // The coordinate-descent winner is not in the bundle: its cubin is
        // the module's Triton dir whose TTIR has a 4096-wide r0 range, 4 warps.
        const auto best = std::find_if(kernel->plans.begin(), kernel->plans.end(),
                                       [](const LaunchPlan& p) { return p.is_current_best; });
        QVERIFY(best != kernel->plans.end());
        QCOMPARE(dir_name(*best),
                 std::string("HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA"));
        QCOMPARE(best->config.describe(),
                 std::string("XBLOCK=1, R0_BLOCK=4096, num_warps=4, num_stages=1"));
        QCOMPARE(best->block_threads, 128u);
        QCOMPARE(best->shared_bytes, 16u);
    }

    // cachedir::current_best, the one rule the plan and the GUI's Autotune
    // tab mark the current best by.
    void theCurrentBestRule() {
        using cachedir::CurrentBest;
        cachedir::KernelConfig small;
        small.kwargs = {{"XBLOCK", std::int64_t{8}}, {"R0_BLOCK", std::int64_t{8}}};
        small.num_warps = 2;
        small.num_stages = 1;
        small.num_ctas = 1; // a .best_config does not record it
        cachedir::KernelConfig large = small;
        large.kwargs = {{"XBLOCK", std::int64_t{64}}, {"R0_BLOCK", std::int64_t{8}}};
        const std::vector<cachedir::CandidateConfig> two{{"AAA", &small}, {"BBB", &large}};
        const std::vector<cachedir::CandidateConfig> one{{"AAA", &small}};

        // No .best_config: the only candidate runs; of several, nothing says which.
        QCOMPARE(cachedir::current_best(nullptr, one).kind, CurrentBest::Kind::Candidate);
        QCOMPARE(cachedir::current_best(nullptr, two).kind, CurrentBest::Kind::Unknown);

        cachedir::BestConfig best;
        best.config.kwargs = {{"R0_BLOCK", std::int64_t{8}}, {"XBLOCK", std::int64_t{64}}};
        best.config.num_warps = 2;
        best.config.num_stages = 1;
        // An older .best_config: by its config (kwargs in any order).
        auto current = cachedir::current_best(&best, two);
        QCOMPARE(current.kind, CurrentBest::Kind::Candidate);
        QCOMPARE(current.index, std::size_t{1});
        // The Triton dir it records wins over the config.
        best.triton_cache_hash = "AAA";
        current = cachedir::current_best(&best, two);
        QCOMPARE(current.kind, CurrentBest::Kind::Candidate);
        QCOMPARE(current.index, std::size_t{0});
        best.triton_cache_hash = "CCC";
        QCOMPARE(cachedir::current_best(&best, two).kind, CurrentBest::Kind::NotACandidate);
        // One candidate and a .best_config naming another: not that one.
        best.triton_cache_hash.reset();
        QCOMPARE(cachedir::current_best(&best, one).kind, CurrentBest::Kind::NotACandidate);

        // The devset reduction: coordinate descent's winner is none of the
        // bundle's compiled configs, and the plan finds its cubin.
        const auto bundle = bundle_kernels(devset()).at({kReductionKey, kReductionKernel});
        std::vector<cachedir::CandidateConfig> compiled;
        for (const auto& [dir, config] : bundle.configs) {
            compiled.push_back({dir, &config});
        }
        const auto kernels = plan(devset());
        const KernelCandidates* kernel = find_kernel(kernels, kReductionKey);
        QVERIFY(kernel != nullptr && kernel->best_config);
        QVERIFY(kernel->best_config->found_by_coordesc.value_or(false));
        QCOMPARE(cachedir::current_best(&*kernel->best_config, compiled).kind,
                 CurrentBest::Kind::NotACandidate);
        const auto winners = std::count_if(kernel->plans.begin(), kernel->plans.end(),
                                           [](const LaunchPlan& p) { return p.is_current_best; });
        QCOMPARE(winners, 1);
        PlanOptions onlyBest;
        onlyBest.all_configs = false;
        const auto bestOnly = plan(devset(), onlyBest);
        const KernelCandidates* reduction = find_kernel(bestOnly, kReductionKey);
        QVERIFY(reduction != nullptr);
        QCOMPARE(reduction->plans.size(), std::size_t{1});
        QCOMPARE(reduction->plans.front().config.describe(),
                 std::string("XBLOCK=1, R0_BLOCK=4096, num_warps=4, num_stages=1"));
    }

    void theTemplateOfFormatsMd() {
        const auto kernels = plan(devset());
        const KernelCandidates* kernel = find_kernel(kernels, kTemplateKey);
        QVERIFY(kernel != nullptr);
        QCOMPARE(kernel->kernel_name, kTemplateKernel);
        QCOMPARE(kernel->plans.size(), std::size_t{1});
        const LaunchPlan& plan = kernel->plans.front();
        QCOMPARE(plan.grid_type, std::string("FixedGrid"));
        QCOMPARE(plan.grid, (std::array<std::uint32_t, 3>{128, 1, 1}));
        QCOMPARE(plan.shared_bytes, 36864u);
        QCOMPARE(plan.block_threads, 128u);
        QCOMPARE(plan.args.size(), std::size_t{5});
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY(plan.args[i].kind == LaunchArg::Kind::Buffer);
            QCOMPARE(plan.args[i].dtype, std::string("float16"));
            QCOMPARE(plan.args[i].buffer_bytes, std::uint64_t{1024 * 1024 * 2});
        }
        QVERIFY(plan.is_current_best); // the one compiled config, no autotuning
        QCOMPARE(dir_name(plan),
                 std::string("4TGEEFB3BSHHUN6HULIPCMJZAVHWY426ZJQWNTL7BPYVVL2UZ6RQ"));
    }

    void buffersAreSizedFromTheHarness() {
        // Every buffer against rand_strided's rule, from the harness text itself.
        static const QRegularExpression tensor("rand_strided\\(\\(([0-9, ]*)\\), \\(([0-9, ]*)\\), "
                                               "device='[^']*', dtype=torch\\.(\\w+)\\)");
        const auto numbers = [](const QString& list) {
            std::vector<std::int64_t> out;
            for (const auto& part : list.split(',', Qt::SkipEmptyParts)) {
                out.push_back(part.trimmed().toLongLong());
            }
            return out;
        };
        const std::map<QString, std::uint64_t> sizes{{"float32", 4}, {"float16", 2}, {"int64", 8}};
        std::size_t buffers = 0;
        for (const auto& kernel : plan(devset())) {
            const QString text = qs(read_text(kernel.module));
            std::vector<std::uint64_t> expected;
            for (auto it = tensor.globalMatch(text); it.hasNext();) {
                const auto match = it.next();
                const auto shape = numbers(match.captured(1));
                const auto stride = numbers(match.captured(2));
                std::uint64_t elements = 1;
                for (std::size_t i = 0; i < shape.size(); ++i) {
                    elements = shape[i] == 0 ? 0 : elements + (shape[i] - 1) * stride[i];
                }
                expected.push_back(elements * sizes.at(match.captured(3)));
            }
            for (const auto& plan : kernel.plans) {
                std::vector<std::uint64_t> got;
                for (const auto& arg : plan.args) {
                    if (arg.kind == LaunchArg::Kind::Buffer) {
                        got.push_back(arg.buffer_bytes);
                        ++buffers;
                    }
                }
                QCOMPARE(got, expected);
            }
        }
        QVERIFY(buffers > 35);
    }

    void candidatesAreTheBundlesCompileResults() {
        const auto bundles = bundle_kernels(devset());
        const auto modules = triton_modules(devset());
        std::size_t from_bundles = 0;
        std::size_t from_dirs = 0;
        for (const auto& kernel : plan(devset())) {
            std::set<std::string> dirs;
            for (const auto& plan : kernel.plans) {
                dirs.insert(dir_name(plan));
            }
            const auto bundle = bundles.find({kernel.module_key, kernel.kernel_name});
            if (bundle == bundles.end()) {
                // No FX entry covers it: every Triton dir whose PTX names the module.
                std::set<std::string> expected;
                for (const auto& [dir, owner] : modules) {
                    if (owner == kernel.module_key) {
                        expected.insert(dir);
                    }
                }
                QCOMPARE(dirs, expected);
                from_dirs += dirs.size();
                continue;
            }
            std::set<std::string> extra;
            std::set_difference(dirs.begin(), dirs.end(), bundle->second.dirs.begin(),
                                bundle->second.dirs.end(), std::inserter(extra, extra.end()));
            for (const auto& dir : bundle->second.dirs) {
                QVERIFY2(dirs.contains(dir), dir.c_str());
            }
            for (const auto& plan : kernel.plans) {
                if (!extra.contains(dir_name(plan))) {
                    QVERIFY(
                        same_launch_config(plan.config, bundle->second.configs.at(dir_name(plan))));
                }
            }
            from_bundles += bundle->second.dirs.size();
            // Beyond the bundle: only a coordinate-descent winner the bundle lacks.
            if (!extra.empty()) {
                QCOMPARE(extra.size(), std::size_t{1});
                QVERIFY(kernel.best_config && !kernel.best_config->triton_cache_hash);
                QVERIFY(kernel.best_config->found_by_coordesc.value_or(false));
            }
        }
        QCOMPARE(from_bundles, std::size_t{27});
        QCOMPARE(from_dirs, std::size_t{7}); // pz's 6 and lq's 1
    }

    void theBestConfigMarksTheCurrentBest() {
        const auto golden = test::read_json(test::fixture("devset/golden.json"));
        const auto kernels = plan(devset());
        std::size_t found = 0;
        for (const auto& value : golden["best_configs"].toArray()) {
            const QJsonObject record = value.toObject();
            const QString path = record["path"].toString();
            if (!path.startsWith("cache/")) {
                continue;
            }
            const fs::path file = test::fixture("devset/" + path.toStdString());
            const auto kernel =
                std::find_if(kernels.begin(), kernels.end(),
                             [&](const KernelCandidates& k) { return k.best_config_path == file; });
            QVERIFY2(kernel != kernels.end(), qPrintable(path));
            ++found;
            std::vector<const LaunchPlan*> best;
            for (const auto& plan : kernel->plans) {
                if (plan.is_current_best) {
                    best.push_back(&plan);
                }
            }
            QCOMPARE(best.size(), std::size_t{1});
            const QJsonObject json = record["json"].toObject();
            if (json["triton_cache_hash"].isString()) {
                QCOMPARE(qs(dir_name(*best.front())), json["triton_cache_hash"].toString());
            }
            for (const auto& key : json.keys()) {
                if (key == "num_warps" || key == "num_stages") {
                    const auto& mine = key == "num_warps" ? best.front()->config.num_warps
                                                          : best.front()->config.num_stages;
                    QCOMPARE(static_cast<qint64>(mine.value_or(-1)), json[key].toInteger());
                } else if (key.toUpper() == key) {
                    const auto* kwarg = best.front()->config.kwarg(key.toStdString());
                    QVERIFY(kwarg != nullptr);
                    QCOMPARE(static_cast<qint64>(std::get<std::int64_t>(*kwarg)),
                             json[key].toInteger());
                }
            }
        }
        QCOMPARE(found, std::size_t{8});
        // No .best_config: only a kernel with one compiled config has a current best.
        for (const auto& kernel : kernels) {
            if (!kernel.best_config) {
                const auto marked = std::count_if(kernel.plans.begin(), kernel.plans.end(),
                                                  [](const auto& p) { return p.is_current_best; });
                QCOMPARE(static_cast<int>(marked), kernel.plans.size() == 1 ? 1 : 0);
            }
        }
    }

    void selectsKernelsAndBestConfigs() {
        PlanOptions only;
        only.only = {kReductionKey, "triton_per_fused_mul_silu_sum_0"};
        const auto some = plan(devset(), only);
        std::multiset<std::string> names;
        for (const auto& kernel : some) {
            names.insert(kernel.kernel_name);
        }
        // The silu kernel has two kernel modules (and two wrappers, not kernels).
        QCOMPARE(names,
                 (std::multiset<std::string>{kReductionKernel, "triton_per_fused_mul_silu_sum_0",
                                             "triton_per_fused_mul_silu_sum_0"}));

        PlanOptions best_only;
        best_only.all_configs = false;
        std::size_t plans = 0;
        for (const auto& kernel : plan(devset(), best_only)) {
            QVERIFY(kernel.plans.size() <= 1);
            for (const auto& plan : kernel.plans) {
                QVERIFY(plan.is_current_best);
                ++plans;
            }
        }
        QCOMPARE(plans, std::size_t{19});
    }

    void configsFromTheTtirEqualTheBundles() {
        // Without FX entries every candidate comes from a Triton dir, its config
        // read from the TTIR: it must be what the bundle recorded for that cubin.
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "cache";
        test::copy_tree(devset(), root);
        fs::remove_all(root / "fxgraph");
        const auto bundles = bundle_kernels(devset());
        std::size_t compared = 0;
        for (const auto& kernel : plan(root)) {
            const auto bundle = bundles.find({kernel.module_key, kernel.kernel_name});
            for (const auto& plan : kernel.plans) {
                QVERIFY(plan.source.fx_entry.empty());
                if (bundle != bundles.end() && bundle->second.configs.contains(dir_name(plan))) {
                    QVERIFY2(
                        same_launch_config(plan.config, bundle->second.configs.at(dir_name(plan))),
                        qPrintable(qs(dir_name(plan) + ": " + plan.config.describe())));
                    ++compared;
                }
            }
        }
        QCOMPARE(compared, std::size_t{27});
        // The reduction now has all 13 of its cubins; the same one is the best.
        const auto kernels = plan(root);
        const KernelCandidates* reduction = find_kernel(kernels, kReductionKey);
        QVERIFY(reduction != nullptr);
        QCOMPARE(reduction->plans.size(), std::size_t{13});
        const auto best = std::find_if(reduction->plans.begin(), reduction->plans.end(),
                                       [](const LaunchPlan& p) { return p.is_current_best; });
        QVERIFY(best != reduction->plans.end());
        QCOMPARE(dir_name(*best),
                 std::string("HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA"));
    }

    void aCubinOnlyTheBundleCarries() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "cache";
        test::copy_tree(devset(), root);
        const std::string gone = "ZBGBGFMGMILILGB2QX5SDNU3HWBPY3CNT6NIH47B23D3XB524Z7Q";
        fs::remove_all(root / "triton/0" / gone);
        const auto kernels = plan(root);
        const KernelCandidates* kernel =
            find_kernel(kernels, "c4az3bzplssfvyosqdizom3fkaxg4ecmepfkginzio75y43sii43");
        QVERIFY(kernel != nullptr);
        QCOMPARE(kernel->plans.size(), std::size_t{2});
        const auto best = std::find_if(kernel->plans.begin(), kernel->plans.end(),
                                       [](const LaunchPlan& p) { return p.is_current_best; });
        QVERIFY(best != kernel->plans.end());
        QVERIFY(best->source.dir.empty());
        QCOMPARE(best->source.fx_entry,
                 std::string("fxgraph/iw/fiwfskr6jnfhbcay4vb2hbw3ngt6vnf7ucr3drdcawgx5smoly2r/"
                             "x5fbi5kwx5lyka7o53ciccyqozypcz2c4uigidouv6ksdfitg42"));
        QCOMPARE(best->source.cubin_name, std::string("triton_poi_fused_mm_t_2.cubin"));
        const auto ptx = ptx_of(root, *best);
        QCOMPARE(best->args.size(), ptx.parameters.size());
        QCOMPARE(best->grid, (std::array<std::uint32_t, 3>{24, 1, 1}));

        // A template's autotuner names no module: with its Triton dir gone, the
        // bundle's PTX still ties the cubin to its module.
        fs::remove_all(root / "triton/0/4TGEEFB3BSHHUN6HULIPCMJZAVHWY426ZJQWNTL7BPYVVL2UZ6RQ");
        const auto again = plan(root);
        const KernelCandidates* tem = find_kernel(again, kTemplateKey);
        QVERIFY(tem != nullptr);
        QCOMPARE(tem->plans.size(), std::size_t{1});
        QCOMPARE(tem->plans.front().source.fx_entry,
                 std::string("fxgraph/tv/ftvqxanyff3zbn4dwcxxidcbpbi6non6uvldv5u6zxhyfp2tayes/"
                             "6duurekvitualyfvmyhyvulz237q76upzrf2zfrprsucfqowezr"));
        QCOMPARE(tem->plans.front().args.size(),
                 ptx_of(root, tem->plans.front()).parameters.size());
    }

    void theSavedBestConfigWinsOverADecoy() {
        // A second .best_config in the module's shard dir naming its other
        // cubin: the file the bundle's autotuner saved to is still the one.
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "cache";
        test::copy_tree(devset(), root);
        const fs::path real =
            root /
            "4a/ac2cabb0310ed6bb088c5febe0607a3e74136d5f61377d843d4f8f5a4927edef.best_config";
        write_text(
            root /
                "4a/0000000000000000000000000000000000000000000000000000000000000000.best_config",
            replaced(read_text(real), "ZBGBGFMGMILILGB2QX5SDNU3HWBPY3CNT6NIH47B23D3XB524Z7Q",
                     "CX2FBATYXCXA2KNNFSHMXSOI6KLCPCIHBUEKRMBG4WYZAIED662Q"));
        const auto kernels = plan(root);
        const KernelCandidates* kernel =
            find_kernel(kernels, "c4az3bzplssfvyosqdizom3fkaxg4ecmepfkginzio75y43sii43");
        QVERIFY(kernel != nullptr);
        QCOMPARE(kernel->best_config_path.value_or(fs::path()), real);
        QVERIFY(kernel->unplannable.empty());
        // Without the bundle nothing says which file is the kernel's own.
        fs::remove_all(root / "fxgraph");
        const auto unsure = plan(root);
        kernel = find_kernel(unsure, "c4az3bzplssfvyosqdizom3fkaxg4ecmepfkginzio75y43sii43");
        QVERIFY(kernel != nullptr && !kernel->best_config_path);
        QCOMPARE(kernel->unplannable.size(), std::size_t{1});
        QCOMPARE(kernel->unplannable.front().second,
                 std::string("2 .best_config files in 4a/ match this kernel's cubins; cannot tell "
                             "which is its own"));
    }

    void aGridRoundsUpAndTheTtirIsCrossChecked() {
        QTemporaryDir tmp;
        const std::string key = "cpzu2yxnhdqpbpwxxmjh3b6dimujtdrjcwzrvfsfhmmomtwwsyjx";
        const fs::path root = single_module_cache(tmp, "pz", key, [](std::string text) {
            return replaced(text, "return arg_0, 1048576,", "return arg_0, 1000000,");
        });
        const fs::path ttir =
            root / "triton/0/RVHQNEPRWENAKV7RUOPMVD43WB33SXGF526S7YOWOMUPA6CXZPMQ/triton_.ttir";
        write_text(ttir, replaced(read_text(ttir), "%xoffset_0 = arith.muli %xoffset, %c1024_i32",
                                  "%xoffset_0 = arith.muli %xoffset, %c512_i32"));
        const auto kernels = plan(root);
        QCOMPARE(kernels.size(), std::size_t{1});
        std::map<std::int64_t, std::set<std::uint32_t>> programs;
        for (const auto& plan : kernels.front().plans) {
            programs[std::get<std::int64_t>(*plan.config.kwarg("XBLOCK"))].insert(plan.grid[0]);
        }
        // 1000000 / 512 = 1953.1, / 1024 = 976.6, / 2048 = 488.3
        QCOMPARE(programs, (std::map<std::int64_t, std::set<std::uint32_t>>{
                               {512, {1954}}, {1024, {977}}, {2048, {489}}}));
        QCOMPARE(kernels.front().unplannable.size(), std::size_t{1});
        QCOMPARE(kernels.front().unplannable.front().first,
                 std::string("triton/0/RVHQNEPRWENAKV7RUOPMVD43WB33SXGF526S7YOWOMUPA6CXZPMQ"));
        QCOMPARE(kernels.front().unplannable.front().second,
                 std::string("the TTIR disagrees on XBLOCK: 1024 from its index values, 512 from "
                             "its program offset"));
    }

    // Transposes with a symbolic y extent, compiled by PyTorch 2.11 on an
    // H200 (real fixture yz_overflow): each launched config's grid as
    // Inductor's own GridExpr.eval_slow computed it (golden.json), for the
    // harness's extents and for y extents past CUDA's 65535 y-grid limit.
    void aGrid2DWithYZOverflowAsInductorLaunchesIt() {
        const auto golden = test::read_json(test::real_fixture("yz_overflow/golden.json"));
        // (module key, XBLOCK, YBLOCK) -> (xnumel, ynumel) -> grid
        using Extents = std::pair<std::int64_t, std::int64_t>;
        std::map<std::tuple<std::string, std::int64_t, std::int64_t>,
                 std::map<Extents, std::array<std::uint32_t, 3>>>
            expected;
        for (const auto& value : golden["runs"]["first"]["kernels"].toArray()) {
            const auto kernel = value.toObject();
            QCOMPARE(kernel["grid_type"].toString(), QStringLiteral("Grid2DWithYZOverflow"));
            const auto key = fs::path(kernel["module"].toString().toStdString()).stem().string();
            for (const auto& config : kernel["configs"].toArray()) {
                const auto kwargs = config.toObject()["kwargs"].toObject();
                auto& grids =
                    expected[{key, kwargs["XBLOCK"].toInteger(), kwargs["YBLOCK"].toInteger()}];
                for (const auto& grid : config.toObject()["grids"].toArray()) {
                    const auto g = grid.toObject()["grid"].toArray();
                    grids[{grid.toObject()["xnumel"].toInteger(),
                           grid.toObject()["ynumel"].toInteger()}] = {
                        static_cast<std::uint32_t>(g[0].toInteger()),
                        static_cast<std::uint32_t>(g[1].toInteger()),
                        static_cast<std::uint32_t>(g[2].toInteger())};
                }
            }
        }
        QCOMPARE(expected.size(), std::size_t{4});
        const Extents cases[] = {{200, 96}, {16, 600000}, {16, 65535 * 64 + 1}, {1000, 10000000}};
        for (const auto& [xnumel, ynumel] : cases) {
            QTemporaryDir tmp;
            const fs::path root = fs::path(tmp.path().toStdString()) / "cache";
            test::copy_tree(test::real_fixture("yz_overflow/cache"), root);
            // The harness passes ..., ynumel, xnumel last.
            static const QRegularExpression extents(
                QStringLiteral("(    return .*, )\\d+, \\d+,\n"));
            for (const auto& file : fs::recursive_directory_iterator(root)) {
                if (file.path().extension() == ".py") {
                    QString text = QString::fromStdString(read_text(file.path()));
                    text.replace(extents, QStringLiteral("\\1%1, %2,\n").arg(ynumel).arg(xnumel));
                    write_text(file.path(), text.toStdString());
                }
            }
            // Two kernels; each also sits in the wrapper module that ran it,
            // which golden.json lists too.
            const auto kernels = plan(root);
            QCOMPARE(kernels.size(), std::size_t{2});
            std::size_t checked = 0;
            for (const auto& kernel : kernels) {
                for (const auto& [what, why] : kernel.unplannable) {
                    QFAIL(qPrintable(QString::fromStdString(what + ": " + why)));
                }
                for (const auto& launch : kernel.plans) {
                    QCOMPARE(launch.grid_type, std::string("Grid2DWithYZOverflow"));
                    const auto it = expected.find(
                        {kernel.module_key, std::get<std::int64_t>(*launch.config.kwarg("XBLOCK")),
                         std::get<std::int64_t>(*launch.config.kwarg("YBLOCK"))});
                    if (it == expected.end()) {
                        continue; // a cached candidate PyTorch did not launch
                    }
                    QCOMPARE(launch.grid, it->second.at({xnumel, ynumel}));
                    ++checked;
                }
            }
            QCOMPARE(checked, std::size_t{2});
        }
    }

    void anUnsupportedGridType() {
        QTemporaryDir tmp;
        const fs::path root = single_module_cache(tmp, "2c", kReductionKey, [](std::string text) {
            return replaced(text, "'grid_type': 'Grid1D'", "'grid_type': 'Grid9D'");
        });
        const auto kernels = plan(root);
        QCOMPARE(kernels.size(), std::size_t{1});
        QVERIFY(kernels.front().plans.empty());
        QCOMPARE(kernels.front().unplannable.size(), std::size_t{13});
        for (const auto& [what, why] : kernels.front().unplannable) {
            QCOMPARE(why, std::string("unsupported grid type Grid9D"));
        }
    }

    // Grids Inductor computes from what a plan cannot see say so by name.
    void gridTypesNotPlannedSayWhy() {
        const std::pair<std::string, std::string> cases[] = {
            {"SequentialComboKernelGrid",
             "SequentialComboKernelGrid launches are not planned: the grid comes from each "
             "sub-kernel's combo_grid_meta"},
            {"PrecomputedGrid", "PrecomputedGrid launches are not planned: the grid comes from "
                                "the launcher's precomputed_grids"},
            {"CooperativeReductionGrid", "CooperativeReductionGrid needs the config's RSPLIT"},
            {"MixOrderReductionGrid", "MixOrderReductionGrid needs the config's RSPLIT_SIZE"},
        };
        for (const auto& [type, reason] : cases) {
            QTemporaryDir tmp;
            const fs::path root =
                single_module_cache(tmp, "2c", kReductionKey, [&type](std::string text) {
                    return replaced(text, "'grid_type': 'Grid1D'", "'grid_type': '" + type + "'");
                });
            const auto kernels = plan(root);
            QCOMPARE(kernels.size(), std::size_t{1});
            QVERIFY(kernels.front().plans.empty());
            QVERIFY(!kernels.front().unplannable.empty());
            for (const auto& [what, why] : kernels.front().unplannable) {
                QCOMPARE(QString::fromStdString(why), QString::fromStdString(reason));
            }
        }
    }

    void aSignatureThePtxDisagreesWith() {
        QTemporaryDir tmp;
        const fs::path root = single_module_cache(tmp, "2c", kReductionKey, [](std::string text) {
            return replaced(text, "'r0_numel': 'i32'", "'r0_numel': 'i64'");
        });
        const auto kernels = plan(root);
        QCOMPARE(kernels.size(), std::size_t{1});
        QVERIFY(kernels.front().plans.empty());
        for (const auto& [what, why] : kernels.front().unplannable) {
            QCOMPARE(why, std::string("PTX parameter 3 is .u32 (4 bytes); the plan passes "
                                      "r0_numel (i64, 8 bytes)"));
        }
    }

    void aPtxWithAParameterLess() {
        QTemporaryDir tmp;
        const fs::path root =
            single_module_cache(tmp, "2c", kReductionKey, [](std::string text) { return text; });
        const fs::path ptx = root /
                             "triton/0/HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA" /
                             (kReductionKernel + ".ptx");
        write_text(
            ptx, replaced(read_text(ptx), "\t.param .u32 " + kReductionKernel + "_param_3,\n", ""));
        const auto kernels = plan(root);
        QCOMPARE(kernels.front().plans.size(), std::size_t{12});
        QCOMPARE(kernels.front().unplannable.size(), std::size_t{1});
        QCOMPARE(kernels.front().unplannable.front().first,
                 std::string("HK2PZBCC3NQJCLNPPN6EVEIZL2IKDLKVUNJ2ZZE6UTXC7FVL56SA (XBLOCK=1, "
                             "R0_BLOCK=4096, num_warps=4, num_stages=1)"));
        QCOMPARE(kernels.front().unplannable.front().second,
                 "the PTX .entry " + kReductionKernel +
                     " takes 5 parameters, the plan has 6 (4 arguments + 2 scratch pointers)");
    }

    void aHarnessThatDoesNotFit() {
        QTemporaryDir tmp;
        const fs::path root = single_module_cache(tmp, "2c", kReductionKey, [](std::string text) {
            return replaced(text, "return arg_0, arg_1, 4096, 3000,", "return arg_0, arg_1, 4096,");
        });
        const auto kernels = plan(root);
        QVERIFY(kernels.front().plans.empty());
        QCOMPARE(kernels.front().unplannable.front().second,
                 std::string("get_args() returns 3 values; the kernel takes 4 (0 launcher args "
                             "included)"));
    }

    void aMissingCacheDir() {
        QTemporaryDir tmp;
        const fs::path missing = fs::path(tmp.path().toStdString()) / "no-such-cache";
        auto plans = plan_kernels(missing);
        QVERIFY(!plans);
        QVERIFY(plans.error().kind == ErrorKind::NotFound);
        QVERIFY2(plans.error().describe().find(missing.string()) != std::string::npos,
                 plans.error().describe().c_str());
    }

    void dtypeSizes() {
        const std::pair<const char*, std::uint32_t> sizes[] = {
            {"float32", 4},     {"float16", 2}, {"bfloat16", 2},  {"float64", 8},
            {"int8", 1},        {"uint8", 1},   {"bool", 1},      {"int16", 2},
            {"int32", 4},       {"int64", 8},   {"complex64", 8}, {"float8_e4m3fn", 1},
            {"float8_e5m2", 1},
        };
        for (const auto& [name, size] : sizes) {
            QCOMPARE(dtype_size(name).value_or(0), size);
        }
        QVERIFY(!dtype_size("float").has_value());
        QVERIFY(!dtype_size("").has_value());

        LaunchPlan plan;
        LaunchArg buffer;
        buffer.buffer_bytes = 1000;
        LaunchArg scratch;
        scratch.kind = LaunchArg::Kind::GlobalScratch;
        scratch.scratch_bytes_per_program = 64;
        LaunchArg other = buffer;
        other.buffer_bytes = 24;
        plan.args = {buffer, scratch, other};
        QCOMPARE(plan.total_buffer_bytes(), std::uint64_t{1024});
    }
};

QTEST_GUILESS_MAIN(TestBenchPlan)
#include "tst_bench_plan.moc"
