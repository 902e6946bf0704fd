// Generated Python modules against what PyTorch itself says about them
// (golden.json modules[]), a kernel read in full, the 7-kernel wrapper, the
// template kernels of max-autotune, and malformed modules.

#include "test_paths.h"

#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/pickle/repr.h>

#include <QDirIterator>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <string>

using namespace cachelens;
using namespace cachelens::cachedir;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

std::string first_of(const std::vector<std::string>& problems) {
    return problems.empty() ? std::string() : problems.front();
}

QStringList qs_list(const std::vector<std::string>& texts) {
    QStringList out;
    for (const auto& text : texts) {
        out << qs(text);
    }
    return out;
}

KernelModule module_at(const std::string& relative) {
    auto module = read_kernel_module(test::fixture(relative));
    if (!module) {
        qFatal("%s", module.error().describe().c_str());
    }
    return std::move(*module);
}

KernelModule module_of(std::string_view text) {
    auto module = parse_kernel_module(text);
    if (!module) {
        qFatal("%s", module.error().describe().c_str());
    }
    return std::move(*module);
}

std::string text_of(const std::string& relative) {
    const QByteArray bytes = test::read_file(test::fixture(relative));
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

// The 1-based line of the first line of `text` starting with `prefix`.
std::size_t line_starting(const std::string& text, const std::string& prefix) {
    const std::size_t at = text.starts_with(prefix) ? 0 : text.find("\n" + prefix) + 1;
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::vector<std::pair<std::string, std::string>> signature_pairs(const KernelDefinition& kernel) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& entry : kernel.signature) {
        out.emplace_back(entry.name, entry.type);
    }
    return out;
}

void verify_tensor(const HarnessArg& arg, std::vector<std::int64_t> shape,
                   std::vector<std::int64_t> stride, const char* dtype,
                   const char* device = "cuda:0") {
    QCOMPARE(arg.kind, HarnessArg::Kind::Tensor);
    QCOMPARE(arg.tensor.shape, shape);
    QCOMPARE(arg.tensor.stride, stride);
    QCOMPARE(qs(arg.tensor.dtype), dtype);
    QCOMPARE(qs(arg.tensor.device), device);
}

void verify_int(const HarnessArg& arg, std::int64_t value) {
    QCOMPARE(arg.kind, HarnessArg::Kind::Int);
    QCOMPARE(arg.integer, value);
}

const std::string kReduction =
    "devset/cache/2c/c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w.py";
const std::string kWrapper =
    "devset/cache/4s/c4s6yx7fq5iyvycyam74t4trtui6iydc4h63eei77sdkic5eu3bl.py";
const std::string kTemplate =
    "devset/cache/oq/coqd6knf5wbcutvrfctxurs52n6pq7s4i2kimwd23bllhymdgulh.py";
const std::string kTemplateChoice =
    "devset/cache/4x/c4xg4td7f33pgz2ruhk35nkacxbs5mqjfphimhtvbfiul7mlncit.py";
const std::string kFusedChoice =
    "devset/cache/lq/clqkpwbfyq7jwqrcc4v5kwhamrhqhy3pikudd4fzr4hbevocbz6g.py";

} // namespace

class TestKernelModule : public QObject {
    Q_OBJECT

private slots:
    void goldenModules_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QJsonObject>("record");
        for (const char* set : {"devset", "cpu_dev"}) {
            const auto golden = test::read_json(test::fixture(std::string(set) + "/golden.json"));
            for (const auto& value : golden["modules"].toArray()) {
                const QJsonObject record = value.toObject();
                QTest::newRow(qPrintable(QString(set) + "/" + record["path"].toString()))
                    << QString(set) << record;
            }
        }
    }

    void goldenModules() {
        QFETCH(QString, set);
        QFETCH(QJsonObject, record);
        const KernelModule module =
            module_at(set.toStdString() + "/" + record["path"].toString().toStdString());
        QStringList kernels;
        for (const auto& name : record["kernels"].toArray()) {
            kernels << name.toString();
        }
        QCOMPARE(qs_list(module.kernel_names()), kernels);
        QCOMPARE(module.has_benchmark_harness, record["has_benchmark_harness"].toBool());
        // PyTorch names a module by something other than its code_hash
        // exactly when it is a max-autotune template choice without a harness.
        QCOMPARE(!record["name_is_code_hash"].toBool(),
                 module.is_autotune_template_candidate && !module.has_benchmark_harness);
        QVERIFY(module.problems.empty());
        for (const KernelDefinition& kernel : module.kernels) {
            QVERIFY2(kernel.problems.empty(), first_of(kernel.problems).c_str());
            QVERIFY(kernel.def_line > kernel.decorator_line);
            QVERIFY(!kernel.signature.empty());
            QVERIFY(kernel.triton_meta != nullptr && kernel.inductor_meta != nullptr);
            QVERIFY(!kernel.grid_type.empty());
            QCOMPARE(kernel.harness.get_args_line != 0, module.has_benchmark_harness);
            QVERIFY(kernel.harness.problems.empty());
            // Every parameter not annotated tl.constexpr has an argument in the
            // harness (even one triton_meta made a constant), then the launcher's.
            if (kernel.harness.get_args_line != 0) {
                const auto runtime =
                    std::count_if(kernel.parameters.begin(), kernel.parameters.end(),
                                  [](const KernelParameter& parameter) {
                                      return parameter.annotation != "tl.constexpr";
                                  });
                QCOMPARE(kernel.harness.args.size(),
                         static_cast<std::size_t>(runtime) + kernel.extra_launcher_args.size());
            }
        }
        // Each golden name is a decorated kernel.
        for (const QString& name : kernels) {
            QVERIFY(module.find_kernel(name.toStdString()) != nullptr);
        }
    }

    void everyFixtureModuleReadsCleanly() {
        int modules = 0;
        for (const char* set : {"devset/cache", "cpu_dev/cache", "multi_dev/cache"}) {
            QDirIterator it(qs(test::fixture(set).string()), {"*.py"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                auto module = read_kernel_module(it.next().toStdString());
                QVERIFY(module.has_value());
                QVERIFY(module->problems.empty());
                for (const auto& kernel : module->kernels) {
                    QVERIFY2(kernel.problems.empty(), first_of(kernel.problems).c_str());
                }
                ++modules;
            }
        }
        QCOMPARE(modules, 55);
    }

    void reductionKernelInFull() {
        const KernelModule module = module_at(kReduction);
        QCOMPARE(module.role, ModuleRole::TritonKernels);
        QVERIFY(!module.is_autotune_template_candidate);
        QCOMPARE(module.kernels.size(), std::size_t{1});
        const KernelDefinition& kernel = module.kernels.front();
        QCOMPARE(qs(kernel.name), "triton_red_fused_mul_sqrt_sum_0");
        QCOMPARE(qs(kernel.heuristic), "reduction");
        QCOMPARE(kernel.decorator_line, std::size_t{14});
        QCOMPARE(kernel.def_line, std::size_t{22});
        QVERIFY(kernel.wrapper_binding.empty());
        QCOMPARE(kernel.parameters.size(), std::size_t{6});
        QCOMPARE(qs(kernel.parameters[0].name), "in_out_ptr0");
        QCOMPARE(qs(kernel.parameters[0].annotation), "");
        QCOMPARE(qs(kernel.parameters[5].name), "R0_BLOCK");
        QCOMPARE(qs(kernel.parameters[5].annotation), "tl.constexpr");
        const std::vector<std::pair<std::string, std::int64_t>> hints{{"x", 4096}, {"r0_", 4096}};
        QCOMPARE(kernel.size_hints, hints);
        QCOMPARE(qs(kernel.reduction_hint), "INNER");
        QVERIFY(!kernel.num_warps && !kernel.num_stages);
        const std::vector<std::pair<std::string, std::string>> signature{
            {"in_out_ptr0", "*fp32"}, {"in_ptr0", "*fp32"},    {"xnumel", "i32"},
            {"r0_numel", "i32"},      {"XBLOCK", "constexpr"}, {"R0_BLOCK", "constexpr"}};
        QCOMPARE(signature_pairs(kernel), signature);
        QVERIFY(kernel.constants.empty());
        QCOMPARE(qs(kernel.grid_type), "Grid1D");
        QCOMPARE(qs(kernel.kernel_name), "triton_red_fused_mul_sqrt_sum_0");
        QCOMPARE(kernel.kernel_num_gb, std::optional<double>(0.049184768));
        QCOMPARE(kernel.kernel_flop, std::optional<std::int64_t>(0));
        QCOMPARE(qs_list(kernel.mutated_arg_names), QStringList{"in_out_ptr0"});
        QVERIFY(kernel.fixed_grid.empty() && kernel.extra_launcher_args.empty());
        QVERIFY(!kernel.is_benchmark_candidate);
        // The documents hold the dicts as written.
        QCOMPARE(qs(pickle::repr(*kernel.triton_meta->root().find("constants"))), "{}");
        QCOMPARE(kernel.inductor_meta->root().find("num_load")->as_int(), 1);

        const BenchmarkHarness& harness = kernel.harness;
        QCOMPARE(harness.get_args_line, std::size_t{51});
        QVERIFY(harness.has_call && harness.has_benchmark_all_configs);
        QCOMPARE(harness.args.size(), std::size_t{4});
        verify_tensor(harness.args[0], {4096}, {1}, "float32");
        verify_tensor(harness.args[1], {4096, 3000}, {3000, 1}, "float32");
        QCOMPARE(qs(harness.args[1].name), "arg_1");
        verify_int(harness.args[2], 4096);
        verify_int(harness.args[3], 3000);
        QVERIFY(harness.args[3].name.empty());
        QVERIFY(module.wrapper_harness.args.empty()); // a kernel module's harness is its kernel's
    }

    void wrapperWithSevenKernels() {
        const std::string text = text_of(kWrapper);
        const KernelModule module = module_at(kWrapper);
        QCOMPARE(module.role, ModuleRole::Wrapper);
        QCOMPARE(module.kernels.size(), std::size_t{7});
        QStringList names;
        for (const KernelDefinition& kernel : module.kernels) {
            names << qs(kernel.name);
            QCOMPARE(kernel.wrapper_binding, kernel.name);
            QCOMPARE(kernel.def_line, line_starting(text, "def " + kernel.name + "("));
            QVERIFY(kernel.harness.has_call && kernel.harness.has_benchmark_all_configs);
            QVERIFY(kernel.harness.get_args_line > kernel.def_line);
        }
        QCOMPARE(names, qs_list(module.kernel_names()));
        QCOMPARE(qs(module.kernels[0].heuristic), "persistent_reduction");
        QCOMPARE(qs(module.kernels[1].heuristic), "pointwise");
        QCOMPARE(module.kernels[0].decorator_line, std::size_t{66});
        QCOMPARE(module.kernels[0].def_line, std::size_t{74});
        QCOMPARE(module.kernels[0].harness.get_args_line, std::size_t{101});
        // triton_per_fused__log_softmax_backward_data_0: three (64, 10) tensors, then 64, 10.
        const auto& args = module.kernels[0].harness.args;
        QCOMPARE(args.size(), std::size_t{5});
        verify_tensor(args[2], {64, 10}, {10, 1}, "float32");
        verify_int(args[3], 64);
        verify_int(args[4], 10);

        // The wrapper's own get_args(): the graph's inputs, returned as a list.
        const BenchmarkHarness& graph = module.wrapper_harness;
        QCOMPARE(graph.get_args_line, std::size_t{868});
        QVERIFY(graph.has_call);
        QVERIFY(!graph.has_benchmark_all_configs);
        QVERIFY(graph.problems.empty());
        QCOMPARE(graph.args.size(), std::size_t{10});
        QCOMPARE(qs(graph.args[0].name), "primals_3");
        verify_tensor(graph.args[0], {64, 256}, {256, 1}, "float32");
        verify_tensor(graph.args[1], {512}, {1}, "float32");
        QCOMPARE(qs(graph.args[9].name), "tangents_1");
    }

    void wrapperWithHelperAndIntArguments() {
        // A scan kernel with a @triton.jit helper (not a kernel) and ints bound to names.
        const KernelModule module =
            module_at("devset/cache/22/c22wpvcjrneebdmmtud7uecpnrgkyekowwgwymzjfikstookoejl.py");
        QCOMPARE(module.role, ModuleRole::Wrapper);
        QCOMPARE(module.kernels.size(), std::size_t{1});
        const KernelDefinition& kernel = module.kernels.front();
        QCOMPARE(qs(kernel.name), "triton_red_fused_cat_cumsum_sin_0");
        QCOMPARE(kernel.def_line, std::size_t{76});
        const auto& args = kernel.harness.args;
        QCOMPARE(args.size(), std::size_t{8});
        verify_tensor(args[0], {3, 32}, {32, 1}, "float32");
        verify_tensor(args[2], {8, 32}, {32, 1}, "float32");
        verify_int(args[3], 3);
        QCOMPARE(qs(args[3].name), "arg_3");
        verify_int(args[5], 5);
        verify_int(args[6], 32);
        verify_int(args[7], 8);
        // The graph's inputs mix ints and tensors.
        const auto& graph = module.wrapper_harness.args;
        QCOMPARE(graph.size(), std::size_t{5});
        verify_int(graph[0], 3);
        verify_tensor(graph[2], {3, 32}, {32, 1}, "float32");
    }

    void cpuWrapper() {
        const KernelModule module =
            module_at("cpu_dev/cache/2e/c2egzg6tdbi4yzlpsnxvofppzihoavkh4driktixkvblvybjr53u.py");
        QCOMPARE(module.role, ModuleRole::Wrapper);
        QVERIFY(module.kernels.empty());
        const auto& graph = module.wrapper_harness.args;
        QCOMPARE(graph.size(), std::size_t{3});
        verify_int(graph[0], 3);
        verify_int(graph[1], 96);
        verify_tensor(graph[2], {3, 96}, {96, 1}, "float32", "cpu");
    }

    void templateKernel() {
        const KernelModule module = module_at(kTemplate);
        QCOMPARE(module.role, ModuleRole::TritonKernels);
        QVERIFY(!module.is_autotune_template_candidate);
        const KernelDefinition& kernel = module.kernels.at(0);
        QCOMPARE(qs(kernel.name), "triton_tem_fused_add_mm_relu_0");
        QCOMPARE(qs(kernel.heuristic), "template");
        QCOMPARE(kernel.num_stages, std::optional<std::int64_t>(3));
        QCOMPARE(kernel.num_warps, std::optional<std::int64_t>(4));
        QVERIFY(kernel.size_hints.empty());
        QCOMPARE(qs(kernel.grid_type), "FixedGrid");
        const QStringList grid{"_grid_0", "_grid_1", "_grid_2"};
        QCOMPARE(qs_list(kernel.fixed_grid), grid);
        QCOMPARE(qs_list(kernel.extra_launcher_args), grid);
        QCOMPARE(kernel.kernel_flop, std::optional<std::int64_t>(2147483648));
        QCOMPARE(kernel.config_args.size(), std::size_t{8});
        QCOMPARE(qs(kernel.config_args[0].first), "EVEN_K");
        QCOMPARE(kernel.config_args[0].second, ConfigValue(true));
        QCOMPARE(kernel.config_args[2].second, ConfigValue(std::string("tl.float32")));
        QCOMPARE(qs(kernel.config_args[3].first), "BLOCK_M");
        QCOMPARE(kernel.config_args[3].second, ConfigValue(std::int64_t{128}));
        QVERIFY(!kernel.is_benchmark_candidate);
        const std::vector<std::pair<std::string, std::string>> signature{
            {"arg_A", "*fp16"}, {"arg_B", "*fp16"}, {"out_ptr1", "*fp16"}};
        QCOMPARE(signature_pairs(kernel), signature);
        // The grid comes last in the harness: 128 x 1 x 1.
        const auto& args = kernel.harness.args;
        QCOMPARE(args.size(), std::size_t{6});
        verify_tensor(args[0], {1024, 1024}, {1024, 1}, "float16");
        verify_int(args[3], 128);
        verify_int(args[4], 1);
        verify_int(args[5], 1);
    }

    void autotuneCandidates() {
        // A select-algorithm choice: placeholder name, no harness, not code-hashed.
        const KernelModule choice = module_at(kTemplateChoice);
        QVERIFY(choice.is_autotune_template_candidate);
        QCOMPARE(choice.role, ModuleRole::TritonKernels);
        QCOMPARE(choice.kernels.size(), std::size_t{1});
        QVERIFY(choice.kernels[0].is_benchmark_candidate);
        QCOMPARE(qs(choice.kernels[0].kernel_name), "Placeholder.DESCRIPTIVE_NAME");
        QCOMPARE(choice.kernels[0].num_stages, std::optional<std::int64_t>(5));
        QCOMPARE(choice.kernels[0].num_warps, std::optional<std::int64_t>(8));
        QCOMPARE(choice.kernels[0].harness.get_args_line, std::size_t{0});
        QVERIFY(!choice.kernels[0].harness.has_call);
        QVERIFY(choice.kernels[0].harness.args.empty());

        // An epilogue-fusion benchmark: def triton_, with a harness.
        const KernelModule fused = module_at(kFusedChoice);
        QVERIFY(fused.is_autotune_template_candidate);
        QVERIFY(fused.kernel_names().empty()); // `triton_` alone does not match triton_\w+
        QCOMPARE(qs(fused.kernels.at(0).name), "triton_");
        QVERIFY(fused.kernels[0].is_benchmark_candidate);
        QCOMPARE(fused.kernels[0].harness.args.size(), std::size_t{6});

        // A pointwise benchmark candidate: not a template.
        const KernelModule pointwise =
            module_at("devset/cache/pz/cpzu2yxnhdqpbpwxxmjh3b6dimujtdrjcwzrvfsfhmmomtwwsyjx.py");
        QVERIFY(!pointwise.is_autotune_template_candidate);
        QVERIFY(pointwise.kernels.at(0).is_benchmark_candidate);
    }

    void roles() {
        QCOMPARE(module_of("").role, ModuleRole::Other);
        QCOMPARE(module_of("x = 1\n").role, ModuleRole::Other);
        QCOMPARE(module_of("from torch._inductor.codecache import CppWrapperCodeCache\n"
                           "inductor_entry = CppWrapperCodeCache.load_pybinding(\n"
                           "    argtypes=['std::vector<AtenTensorHandle>'], main_code=src)\n")
                     .role,
                 ModuleRole::CppWrapper);
        QCOMPARE(module_of("def call(args):\n    k.run(1, stream=s)\n").role, ModuleRole::Wrapper);
        QCOMPARE(qs(to_string(ModuleRole::TritonKernels)), "Triton kernels");
    }

    void truncatedDecoratorIsAPartialResult() {
        const std::string text = text_of(kReduction);
        const std::size_t cut = text.find("'kernel_name'");
        const KernelModule module = module_of(std::string_view(text).substr(0, cut));
        QCOMPARE(module.kernels.size(), std::size_t{1});
        const KernelDefinition& kernel = module.kernels.front();
        QCOMPARE(qs(kernel.heuristic), "reduction");
        QCOMPARE(kernel.size_hints.size(), std::size_t{2}); // read before the fault
        QCOMPARE(kernel.signature.size(), std::size_t{6});
        QVERIFY(kernel.inductor_meta == nullptr);
        QVERIFY(kernel.def_line == 0);
        QCOMPARE(kernel.problems.size(), std::size_t{2});
        QVERIFY2(kernel.problems[0].starts_with("decorator argument 'inductor_meta': line 19"),
                 kernel.problems[0].c_str());
        QVERIFY2(kernel.problems[0].find("end of the input") != std::string::npos,
                 kernel.problems[0].c_str());
        QVERIFY2(kernel.problems[1].find("no def follows the decorator") != std::string::npos,
                 kernel.problems[1].c_str());
    }

    void brokenValueStillFindsTheDef() {
        std::string text = text_of(kReduction);
        const std::size_t hint = text.find("ReductionHint.INNER");
        text.replace(hint, 19, "ReductionHint.INNER + 1");
        const KernelModule module = module_of(text);
        const KernelDefinition& kernel = module.kernels.at(0);
        QCOMPARE(qs(kernel.name), "triton_red_fused_mul_sqrt_sum_0");
        QCOMPARE(kernel.def_line, std::size_t{22});
        QCOMPARE(kernel.harness.args.size(), std::size_t{4});
        QVERIFY(kernel.triton_meta == nullptr); // after the fault: not read
        QCOMPARE(kernel.problems.size(), std::size_t{1});
        QVERIFY2(kernel.problems[0].find("line 16, column 40 (byte 563): expected ',' or ')'") !=
                     std::string::npos,
                 kernel.problems[0].c_str());
    }

    void unterminatedKernelString() {
        const std::string text = text_of(kWrapper);
        const std::size_t cut = text.find("''', device_str='cuda')");
        const KernelModule module = module_of(std::string_view(text).substr(0, cut));
        QCOMPARE(module.problems.size(), std::size_t{1});
        QVERIFY2(module.problems[0].find("unterminated triple-quoted string") != std::string::npos,
                 module.problems[0].c_str());
        QVERIFY2(module.problems[0].find("line 53,") != std::string::npos,
                 module.problems[0].c_str());
        QVERIFY(module.kernels.empty());
        // The golden facts come from the text alone and survive.
        QCOMPARE(module.kernel_names().size(), std::size_t{1});
        QVERIFY(module.has_benchmark_harness);
    }

    void malformedDefsAndHarnesses() {
        const KernelModule no_def = module_of("@triton_heuristics.pointwise(size_hints={'x': 8})\n"
                                              "@triton.jit\n"
                                              "x = 1\n");
        QCOMPARE(no_def.kernels.size(), std::size_t{1});
        QCOMPARE(no_def.kernels[0].size_hints.size(), std::size_t{1});
        QCOMPARE(no_def.kernels[0].problems.size(), std::size_t{1});
        QVERIFY(no_def.kernels[0].problems[0].find("no def follows") != std::string::npos);

        const KernelModule no_jit = module_of("@triton_heuristics.foreach(num_warps=8)\n"
                                              "def triton_for_fused_0(a, b,\n"
                                              "        XBLOCK : tl.constexpr = 4):\n"
                                              "    pass\n"
                                              "def get_args():\n"
                                              "    a = rand_strided((n,), (1,), device='cuda:0')\n"
                                              "    return a, 2.5, f(x)[0]\n");
        const KernelDefinition& kernel = no_jit.kernels.at(0);
        QCOMPARE(qs(kernel.heuristic), "foreach");
        QCOMPARE(kernel.num_warps, std::optional<std::int64_t>(8));
        QCOMPARE(kernel.parameters.size(), std::size_t{3});
        QCOMPARE(qs(kernel.parameters[2].name), "XBLOCK");
        QCOMPARE(qs(kernel.parameters[2].annotation), "tl.constexpr");
        QCOMPARE(kernel.problems.size(), std::size_t{1});
        QVERIFY(kernel.problems[0].find("lacks @triton.jit") != std::string::npos);
        // A symbolic shape, a float and an unreadable value.
        const auto& args = kernel.harness.args;
        QCOMPARE(args.size(), std::size_t{3});
        QCOMPARE(args[0].kind, HarnessArg::Kind::Unknown);
        QCOMPARE(args[1].kind, HarnessArg::Kind::Float);
        QCOMPARE(args[1].real, 2.5);
        QCOMPARE(args[2].kind, HarnessArg::Kind::Unknown);
        QCOMPARE(kernel.harness.problems.size(), std::size_t{1});
        QVERIFY(kernel.harness.problems[0].find("not literal ints") != std::string::npos);

        const KernelModule unclosed = module_of("@triton_heuristics.pointwise()\n"
                                                "@triton.jit\n"
                                                "def triton_poi_0(a, b:\n");
        QCOMPARE(qs(unclosed.kernels.at(0).name), "triton_poi_0");
        QVERIFY(unclosed.kernels[0].problems.at(0).find("not closed") != std::string::npos);

        const KernelModule no_return = module_of("def get_args():\n    a = 1\n\nx = 2\n");
        QVERIFY(no_return.has_benchmark_harness);
        QVERIFY(no_return.kernels.empty());

        QCOMPARE(module_of("@triton_heuristics.pointwise\n").kernels.at(0).problems.size(),
                 std::size_t{2});
    }

    void brokenModulesStayLinear() {
        // Many broken values, each open to the end of the file: every one is read
        // only up to the next kernel, so this takes milliseconds, not hours.
        std::string decorators;
        for (int i = 0; i < 20000; ++i) {
            decorators += "@triton_heuristics.pointwise(size_hints=[\n";
        }
        QElapsedTimer timer;
        timer.start();
        const KernelModule many = module_of(decorators);
        QCOMPARE(many.kernels.size(), std::size_t{20000});
        QCOMPARE(many.kernels.back().problems.size(), std::size_t{2});
        QCOMPARE(qs(many.kernels[0].problems[0]),
                 "decorator argument 'size_hints': not closed before the next kernel at line 2");
        QVERIFY2(many.kernels.back().problems[0].find("line 20001, column 1") != std::string::npos,
                 many.kernels.back().problems[0].c_str());

        std::string harness = "@triton_heuristics.pointwise()\n@triton.jit\ndef k():\n"
                              "    pass\ndef get_args():\n";
        for (int i = 0; i < 20000; ++i) {
            harness += "    a = [\n    return (\n";
        }
        const KernelModule open_values = module_of(harness);
        QCOMPARE(open_values.kernels.at(0).harness.problems.size(), std::size_t{1});
        QVERIFY(timer.elapsed() < 10000);
    }

    void keptDocumentsAreBounded() {
        // Past 2048 kept dicts (1024 kernels) the fields are still read, the dicts not kept.
        std::string text;
        for (int i = 0; i < 1100; ++i) {
            text += "@triton_heuristics.pointwise(triton_meta={'signature': {'a': 'i32'}}, "
                    "inductor_meta={'grid_type': 'Grid1D'})\n@triton.jit\ndef k(a):\n    pass\n";
        }
        const KernelModule module = module_of(text);
        QCOMPARE(module.kernels.size(), std::size_t{1100});
        QVERIFY(module.kernels[1023].inductor_meta != nullptr);
        QVERIFY(module.kernels[1024].triton_meta == nullptr);
        QCOMPARE(module.kernels[1099].signature.size(), std::size_t{1});
        QCOMPARE(qs(module.kernels[1099].grid_type), "Grid1D");
        QCOMPARE(module.problems.size(), std::size_t{1});
        QVERIFY(module.problems[0].find("2048 decorator dicts") != std::string::npos);
    }

    void notSourceText() {
        auto binary = parse_kernel_module(std::string_view("def f():\0\xff", 10));
        QVERIFY(!binary);
        QCOMPARE(binary.error().kind, ErrorKind::Corrupt);
        auto missing = read_kernel_module(test::fixture("devset/cache/no/such.py"));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
    }

    void everyTruncationIsHandled() {
        // Cut real modules everywhere: each prefix gives a result, never a crash.
        for (const std::string& relative : {kReduction, kWrapper, kTemplate}) {
            const std::string text = text_of(relative);
            const std::size_t step = relative == kWrapper ? 97 : 7;
            for (std::size_t cut = 0; cut < text.size(); cut += step) {
                auto module = parse_kernel_module(std::string_view(text).substr(0, cut));
                QVERIFY(module.has_value());
            }
        }
    }

    // PyTorch 2.0: the heuristic imported by name, one meta= dict keyed by
    // position, every kernel's def `triton_`, the source given alone to
    // async_compile.triton and the kernel launched by its binding.
    void kernelsOfPyTorch20() {
        const KernelModule module = module_of(
            "from torch._inductor.codecache import AsyncCompile\n"
            "async_compile = AsyncCompile()\n"
            "triton__0 = async_compile.triton('''\n"
            "import triton\n"
            "from torch._inductor.triton_ops.autotune import reduction\n"
            "@reduction(\n"
            "    size_hints=[16384, 1024],\n"
            "    reduction_hint=ReductionHint.INNER,\n"
            "    filename=__file__,\n"
            "    meta={'signature': {0: '*fp32', 1: '*i64', 2: 'i32', 3: 'i32'}, 'device': 0, "
            "'constants': {}, 'mutated_arg_names': ['in_out_ptr0'], 'configs': "
            "[instance_descriptor(divisible_by_16=(0, 1, 2, 3), equal_to_1=())]}\n"
            ")\n"
            "@triton.jit\n"
            "def triton_(in_out_ptr0, in_ptr0, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : "
            "tl.constexpr):\n"
            "    xnumel = 12288\n"
            "''')\n"
            "async_compile.wait(globals())\n"
            "def call(args):\n"
            "    triton__0.run(args[0], args[1], 12288, 768, grid=grid(12288))\n");
        QCOMPARE(module.role, ModuleRole::Wrapper);
        QCOMPARE(module.problems, std::vector<std::string>{});
        QCOMPARE(module.kernels.size(), std::size_t{1});
        const KernelDefinition& kernel = module.kernels.front();
        QCOMPARE(kernel.heuristic, std::string("reduction"));
        QCOMPARE(kernel.wrapper_binding, std::string("triton__0"));
        QCOMPARE(kernel.display_name(), std::string("triton__0"));
        QVERIFY(!kernel.is_benchmark_candidate);
        QCOMPARE(kernel.mutated_arg_names, std::vector<std::string>{"in_out_ptr0"});
        QCOMPARE(kernel.signature.size(), std::size_t{4});
        QCOMPARE(kernel.signature[1].name, std::string("in_ptr0"));
        QCOMPARE(kernel.signature[1].type, std::string("*i64"));
        QCOMPARE(module.kernel_names(), std::vector<std::string>{"triton__0"});
        QVERIFY(module.kernel_def_names.empty()); // golden's ^def (triton_\w+)\( finds none
    }

    // Decorators no def follows (found by fuzz_kernel_module): each kernel
    // says so, and none gives the module a kernel without a name.
    void decoratorsWithoutADefNameNoKernel() {
        const KernelModule module = module_of("@triton_heuristics.pent_ru\n@triton_heuristics.p");
        QCOMPARE(module.kernels.size(), std::size_t{2});
        QVERIFY(module.kernel_names().empty());
        QVERIFY(!module.kernels[0].problems.empty());
    }

    // PyTorch 2.1: the same decorator with kernel_name in meta; 2.2 to 2.5:
    // @triton_heuristics.<heuristic> with inductor_meta's kernel_name, the def
    // still `triton_`. Neither is an autotuning candidate.
    void kernelsOfPyTorch21To25() {
        const KernelModule bare = module_of(
            "@pointwise(size_hints=[4096], filename=__file__, meta={'signature': {0: '*fp32', 1: "
            "'i32'}, 'device': 0, 'device_type': 'cuda', 'constants': {}, 'mutated_arg_names': "
            "[], 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_relu_0', 'configs': "
            "[]})\n"
            "@triton.jit\n"
            "def triton_(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
            "    pass\n");
        QCOMPARE(bare.role, ModuleRole::TritonKernels);
        QCOMPARE(bare.kernel_names(), std::vector<std::string>{"triton_poi_fused_relu_0"});
        QVERIFY(!bare.kernels.front().is_benchmark_candidate);
        QVERIFY(bare.find_kernel("triton_poi_fused_relu_0") != nullptr);

        const KernelModule named = module_of(
            "@triton_heuristics.pointwise(\n"
            "    size_hints=[1024],\n"
            "    filename=__file__,\n"
            "    triton_meta={'signature': {0: '*fp32', 1: 'i32'}, 'device': 0, 'device_type': "
            "'cuda', 'constants': {}},\n"
            "    inductor_meta={'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_7', "
            "'mutated_arg_names': []},\n"
            ")\n"
            "@triton.jit\n"
            "def triton_(in_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
            "    pass\n");
        QCOMPARE(named.kernel_names(), std::vector<std::string>{"triton_poi_fused_add_7"});
        QCOMPARE(named.kernels.front().signature.front().name, std::string("in_ptr0"));
        QVERIFY(!named.kernels.front().is_benchmark_candidate);

        // From 2.6 a bare triton_ with inductor_meta and no kernel_name is a
        // choice benchmarked under no name.
        const KernelModule candidate = module_of(
            "@triton_heuristics.pointwise(size_hints={'x': 1024}, filename=__file__, "
            "triton_meta={'signature': {'in_ptr0': '*fp32'}}, inductor_meta={'grid_type': "
            "'Grid1D'})\n"
            "@triton.jit\n"
            "def triton_(in_ptr0, XBLOCK : tl.constexpr):\n"
            "    pass\n");
        QVERIFY(candidate.kernels.front().is_benchmark_candidate);
    }
};

QTEST_GUILESS_MAIN(TestKernelModule)
#include "tst_kernel_module.moc"
