// The code audit (safety/code_audit.h) and its Python tokenizer
// (safety/python_tokens.h): the tokenizer against CPython's own `tokenize`
// (tests/data/code_audit/tokenize_cases.json, made by make_token_cases.py),
// every real cache's code with no finding, and hostile code flagged at the
// line that does it.

#include "test_paths.h"

#include <cachelens/cachedir/aot_autograd_entry.h>
#include <cachelens/cachedir/fx_graph_entry.h>
#include <cachelens/safety/code_audit.h>
#include <cachelens/safety/python_tokens.h>

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <set>
#include <string>
#include <vector>

using namespace cachelens;
using namespace cachelens::safety;

namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString describe(const std::vector<Finding>& findings) {
    QStringList lines;
    for (const Finding& finding : findings) {
        lines << QStringLiteral("%1:%2 [%3] %4 -- %5")
                     .arg(qs(finding.file))
                     .arg(finding.line)
                     .arg(qs(finding.rule), qs(finding.text), qs(finding.why));
    }
    return lines.join(u'\n');
}

std::string to_hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex;
    for (const char c : bytes) {
        hex += digits[static_cast<unsigned char>(c) >> 4];
        hex += digits[static_cast<unsigned char>(c) & 0xF];
    }
    return hex;
}

// The cache dirs of every fixture set and the sample cache.
std::vector<std::filesystem::path> cache_dirs() {
    std::vector<std::filesystem::path> dirs;
    for (const char* set :
         {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
        dirs.push_back(test::fixture(set));
    }
    dirs.push_back(test::sample_cache());
    return dirs;
}

std::vector<std::filesystem::path> files_under(const std::filesystem::path& dir,
                                               const QStringList& patterns) {
    std::vector<std::filesystem::path> files;
    QDirIterator it(qs(dir.string()), patterns, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        files.emplace_back(it.next().toStdString());
    }
    std::ranges::sort(files);
    return files;
}

// import_block + body["_code"] of reduce_graph_module(body, import_block).
void add_graph_module(const pickle::Value* args, std::vector<std::string>& sources) {
    if (args == nullptr || args->items().size() < 2) {
        return;
    }
    const pickle::Value* body = args->items()[0];
    const pickle::Value* import_block = args->items()[1];
    const pickle::Value* code = body->find("_code");
    if (code == nullptr) {
        code = body->find("code");
    }
    if (code != nullptr && code->is_str() && import_block->is_str()) {
        sources.push_back(std::string(import_block->text()) + std::string(code->text()));
    }
}

bool is_reduce_graph_module(const pickle::Value* value) {
    return value != nullptr && value->is(pickle::Kind::Global) &&
           value->qualified_name() == "torch.fx.graph_module.reduce_graph_module";
}

// Every GraphModule a pickle would rebuild: reduce_graph_module(body,
// import_block), called by REDUCE or kept for later as SerializedGraphModule's
// {"fn": reduce_graph_module, "args": (body, import_block)}; it execs
// import_block + body["_code"].
void collect_graph_modules(const pickle::Value* value, std::set<const pickle::Value*>& seen,
                           std::vector<std::string>& sources, int depth = 0) {
    if (value == nullptr || depth > 64 || !seen.insert(value).second) {
        return;
    }
    if (value->is(pickle::Kind::Object)) {
        if (is_reduce_graph_module(value->callable())) {
            add_graph_module(value->args(), sources);
        }
        collect_graph_modules(value->args(), seen, sources, depth + 1);
        collect_graph_modules(value->state(), seen, sources, depth + 1);
    }
    if (value->is(pickle::Kind::Dict) && is_reduce_graph_module(value->find("fn"))) {
        add_graph_module(value->find("args"), sources);
    }
    if (value->is_sequence() || value->is(pickle::Kind::Object)) {
        for (const pickle::Value* item : value->items()) {
            collect_graph_modules(item, seen, sources, depth + 1);
        }
    }
    if (value->is(pickle::Kind::Dict) || value->is(pickle::Kind::Object)) {
        for (const pickle::DictItem& item : value->dict_items()) {
            collect_graph_modules(item.value, seen, sources, depth + 1);
        }
    }
}

struct Hostile {
    const char* name;
    PythonCode kind;
    std::string source;
    std::string rule;
    std::size_t line;
    std::string text;
};

// A wrapper as Inductor writes it, around `kernel` (a Triton kernel's source).
std::string wrapper_with_kernel(std::string_view kernel) {
    return "from torch._inductor.async_compile import AsyncCompile\n"              // 1
           "async_compile = AsyncCompile()\n"                                      // 2
           "triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n" // 3
           + std::string(kernel) +
           "''', device_str='cuda')\n"
           "async_compile.wait(globals())\n";
}

} // namespace

class TestCodeAudit : public QObject {
    Q_OBJECT

private slots:
    void tokenizer_matches_python_tokenize_data();
    void tokenizer_matches_python_tokenize();
    void fstring_fields_are_tokenized();
    void tokenizer_is_bounded();
    void every_real_wrapper_and_kernel_is_inductor_vocabulary();
    void every_cache_dir_source_is_inductor_vocabulary();
    void every_graph_module_is_inductor_vocabulary();
    void hostile_code_is_found_data();
    void hostile_code_is_found();
    void mentions_in_comments_and_strings_are_not_findings();
    void import_alone_is_not_a_finding();
    void older_releases_forms_are_inductor_vocabulary();
    void older_releases_forms_do_not_let_more_in();
    void unreadable_source_names_its_line();
    void findings_have_stable_ids();
    void findings_are_bounded();
};

void TestCodeAudit::tokenizer_matches_python_tokenize_data() {
    QTest::addColumn<QJsonObject>("testcase");
    const QJsonDocument cases = test::read_json(test::test_data("code_audit/tokenize_cases.json"));
    QVERIFY(cases.array().size() >= 20);
    for (const QJsonValue& value : cases.array()) {
        const QJsonObject object = value.toObject();
        QTest::newRow(qPrintable(object["name"].toString())) << object;
    }
}

void TestCodeAudit::tokenizer_matches_python_tokenize() {
    QFETCH(QJsonObject, testcase);
    const std::string source = testcase["source"].toString().toStdString();
    auto tokens = tokenize_python(source);
    if (testcase["error"].toBool()) {
        QVERIFY2(!tokens.has_value(), "tokenize fails on this input; so must the engine");
        QVERIFY2(tokens.error().message.starts_with("line "), tokens.error().message.c_str());
        return;
    }
    QVERIFY_RESULT(tokens);
    const QJsonArray expected = testcase["tokens"].toArray();
    QCOMPARE(static_cast<qsizetype>(tokens->tokens.size()), expected.size());
    for (qsizetype k = 0; k < expected.size(); ++k) {
        const QJsonObject want = expected[k].toObject();
        const PyToken& got = tokens->tokens[static_cast<std::size_t>(k)];
        const QString where = QStringLiteral("token %1 (%2 %3)")
                                  .arg(k)
                                  .arg(want["type"].toString(), want["string"].toString());
        QVERIFY2(qs(to_string(got.kind)) == want["type"].toString(),
                 qPrintable(where + " is " + qs(to_string(got.kind))));
        QVERIFY2(qs(got.text) == want["string"].toString(),
                 qPrintable(where + " reads " + qs(got.text)));
        const QJsonArray start = want["start"].toArray();
        const QJsonArray end = want["end"].toArray();
        QVERIFY2(got.line == static_cast<std::size_t>(start[0].toInt()) &&
                     got.column == static_cast<std::size_t>(start[1].toInt()) &&
                     got.end_line == static_cast<std::size_t>(end[0].toInt()) &&
                     got.end_column == static_cast<std::size_t>(end[1].toInt()),
                 qPrintable(where + QStringLiteral(" at (%1,%2)-(%3,%4)")
                                        .arg(got.line)
                                        .arg(got.column)
                                        .arg(got.end_line)
                                        .arg(got.end_column)));
        if (want.contains("value") || want.contains("bytes_hex")) {
            auto decoded = decode_string_token(got.text);
            QVERIFY_RESULT(decoded);
            if (want.contains("value")) {
                QCOMPARE(qs(decoded->value), want["value"].toString());
            } else {
                QCOMPARE(qs(to_hex(decoded->value)), want["bytes_hex"].toString());
            }
        }
    }
}

void TestCodeAudit::fstring_fields_are_tokenized() {
    auto tokens = tokenize_python("k = f\"a{__import__('os').system(f'{cmd!r:>{w}}')}b\"\n");
    QVERIFY_RESULT(tokens);
    const PyToken& string = tokens->tokens[2];
    QCOMPARE(string.kind, PyTokenKind::String);
    QVERIFY(string.field_end > string.field_begin);
    QStringList names;
    for (auto k = string.field_begin; k < string.field_end; ++k) {
        if (tokens->field_tokens[k].kind == PyTokenKind::Name) {
            names << qs(tokens->field_tokens[k].text);
        }
    }
    QCOMPARE(names, (QStringList{"__import__", "system", "cmd", "w"}));
    QCOMPARE(tokens->field_tokens[string.field_begin].column, std::size_t{8});
    // The decoded value of an f-string is computed at run time: refused.
    QVERIFY(!decode_string_token(string.text).has_value());
}

void TestCodeAudit::tokenizer_is_bounded() {
    // Brackets nested past CPython's limit, f-strings nested past any real
    // source, and long inputs: an error or a result, never a crash.
    auto brackets = tokenize_python(std::string(100000, '(') + "\n");
    QVERIFY(!brackets.has_value());
    QVERIFY(brackets.error().message.find("nested") != std::string::npos);
    std::string nested = "x";
    for (int k = 0; k < 200; ++k) {
        nested = "f'{" + nested + "}'";
        nested = "f\"{" + nested + "}\"";
    }
    auto fstrings = tokenize_python(nested + "\n");
    QVERIFY(!fstrings.has_value());
    QVERIFY(fstrings.error().message.find("nested too deeply") != std::string::npos);
    auto deep_spec = tokenize_python("f'{x:" + std::string(10000, '{') + "'\n");
    QVERIFY(!deep_spec.has_value());
}

void TestCodeAudit::every_real_wrapper_and_kernel_is_inductor_vocabulary() {
    std::size_t wrappers = 0;
    for (const auto& dir : cache_dirs()) {
        for (const auto& path : files_under(dir / "fxgraph", {"*"})) {
            auto entry = cachedir::load_fx_graph_entry(path);
            QVERIFY_RESULT(entry);
            auto findings =
                audit_python(entry->source_code, "source_code", PythonCode::InductorWrapper);
            QVERIFY_RESULT(findings);
            QVERIFY2(findings->empty(), qPrintable(qs(path.string()) + "\n" + describe(*findings)));
            ++wrappers;
        }
    }
    QVERIFY(wrappers >= 20);
}

void TestCodeAudit::every_cache_dir_source_is_inductor_vocabulary() {
    std::size_t python = 0;
    std::size_t cpp = 0;
    for (const auto& dir : cache_dirs()) {
        for (const auto& path : files_under(dir, {"*.py", "*.cpp"})) {
            const std::string relative = std::filesystem::relative(path, dir).string();
            auto findings = audit_cache_file(test::read_bytes(path), relative);
            QVERIFY_RESULT(findings);
            QVERIFY2(findings->empty(), qPrintable(describe(*findings)));
            (path.extension() == ".py" ? python : cpp) += 1;
        }
    }
    QVERIFY(python >= 80);
    QVERIFY(cpp >= 10);
}

void TestCodeAudit::every_graph_module_is_inductor_vocabulary() {
    std::size_t modules = 0;
    for (const auto& dir : cache_dirs()) {
        for (const auto& path : files_under(dir / "aotautograd", {"*"})) {
            auto entry = cachedir::load_aot_autograd_entry(path);
            QVERIFY_RESULT(entry);
            std::set<const pickle::Value*> seen;
            std::vector<std::string> sources;
            collect_graph_modules(&entry->root(), seen, sources);
            for (const std::string& source : sources) {
                auto findings = audit_python(source, "graph module", PythonCode::GraphModule);
                QVERIFY_RESULT(findings);
                QVERIFY2(findings->empty(),
                         qPrintable(qs(path.string()) + "\n" + describe(*findings)));
                ++modules;
            }
        }
    }
    // The backward graphs the fixtures keep as GraphModules (devset twice, the sample cache).
    QVERIFY2(modules >= 4, qPrintable(QString::number(modules)));
}

void TestCodeAudit::hostile_code_is_found_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("text");
    const std::vector<Hostile> cases{
        {"wrapper os.system", PythonCode::InductorWrapper,
         "import torch\nimport os; os.system('x')\n", "call-outside-vocabulary", 2,
         "import os; os.system('x')"},
        {"os aliased", PythonCode::InductorWrapper, "import os\nrun = os\nrun.system('x')\n",
         "call-outside-vocabulary", 2, "run = os"},
        {"torch.os", PythonCode::InductorWrapper, "import torch\ntorch.os.system('x')\n",
         "call-outside-vocabulary", 2, "torch.os.system('x')"},
        {"torch.load", PythonCode::InductorWrapper, "import torch\nt = torch\nt.load('evil.pt')\n",
         "call-outside-vocabulary", 3, "t.load('evil.pt')"},
        {"ctypes beyond Inductor's", PythonCode::InductorWrapper,
         "from ctypes import c_void_p, CDLL\nCDLL('libc.so.6')\n", "foreign-import", 1,
         "from ctypes import c_void_p, CDLL"},
        {"ctypes type misused", PythonCode::InductorWrapper,
         "from ctypes import c_void_p\nc_void_p.from_address(0)\n", "call-outside-vocabulary", 2,
         "c_void_p.from_address(0)"},
        {"import socket", PythonCode::InductorWrapper, "import torch\nimport socket\n",
         "foreign-import", 2, "import socket"},
        {"from subprocess", PythonCode::TritonKernel, "from subprocess import run as go\n",
         "foreign-import", 1, "from subprocess import run as go"},
        {"codecache PyCodeCache", PythonCode::InductorWrapper,
         "from torch._inductor.codecache import PyCodeCache\n", "foreign-import", 1,
         "from torch._inductor.codecache import PyCodeCache"},
        {"triton kernel hides __import__", PythonCode::InductorWrapper,
         wrapper_with_kernel("import triton\n"                       // 4
                             "@triton.jit\n"                         // 5
                             "def triton_poi_fused_0(x):\n"          // 6
                             "    __import__('os').system('id')\n"), // 7
         "dynamic-code", 7, "    __import__('os').system('id')"},
        {"kernel f-string hides a call", PythonCode::InductorWrapper,
         wrapper_with_kernel("import triton\n"                                       // 4
                             "name = f\"{getattr(triton, 'runtime').__dict__}\"\n"), // 5
         "dunder-attribute", 5, "name = f\"{getattr(triton, 'runtime').__dict__}\""},
        {"f-string hides eval", PythonCode::TritonKernel, "x = 1\ny = f'{eval(\"1+1\")}'\n",
         "dynamic-code", 2, "y = f'{eval(\"1+1\")}'"},
        {"kernel source computed", PythonCode::InductorWrapper,
         "async_compile = AsyncCompile()\nk = async_compile.triton('k', 'import ' + 'os')\n",
         "computed-kernel-source", 2, "k = async_compile.triton('k', 'import ' + 'os')"},
        {"cpp kernel calls system", PythonCode::InductorWrapper,
         "async_compile = AsyncCompile()\n"
         "cpp_fused_0 = async_compile.cpp_pybinding(['float*'], r'''\n"
         "#include <torch/csrc/inductor/cpp_prefix.h>\n"
         "extern \"C\" void kernel(float* out) {\n"
         "    std::system(\"id\");\n"
         "}\n"
         "''')\n",
         "cpp-call", 5, "    std::system(\"id\");"},
        {"graph module exec", PythonCode::GraphModule,
         "import torch\n\n\n\ndef forward(self, x):\n    exec('import os')\n    return (x,)\n",
         "dynamic-code", 6, "    exec('import os')"},
        {"computed getattr", PythonCode::GraphModule,
         "import torch\ndef forward(self, x, name):\n    return getattr(x, name)\n",
         "computed-getattr", 3, "    return getattr(x, name)"},
        {"getattr dunder literal", PythonCode::GraphModule,
         "def forward(self, x):\n    return getattr(x, '__class__')\n", "dunder-attribute", 2,
         "    return getattr(x, '__class__')"},
        {"getattr reaching torch.hub", PythonCode::InductorWrapper,
         "import torch\ngetattr(torch, 'hub').load('a', 'b')\n", "call-outside-vocabulary", 2,
         "getattr(torch, 'hub').load('a', 'b')"},
        {"subclasses", PythonCode::InductorWrapper, "x = 1\n().__class__.__subclasses__()\n",
         "dunder-attribute", 2, "().__class__.__subclasses__()"},
        {"builtins dict", PythonCode::TritonKernel, "b = __builtins__\n", "dunder-attribute", 1,
         "b = __builtins__"},
        {"globals", PythonCode::InductorWrapper, "globals()['x'] = 1\n", "dynamic-code", 1,
         "globals()['x'] = 1"},
        {"open", PythonCode::TritonKernel, "with open('/etc/passwd') as f:\n    pass\n",
         "call-outside-vocabulary", 1, "with open('/etc/passwd') as f:"},
        {"async_compile aliased", PythonCode::InductorWrapper,
         "async_compile = AsyncCompile()\nk = async_compile\n"
         "t = k.triton('t', \'\'\'\nimport subprocess\n\'\'\')\n",
         "foreign-import", 4, "import subprocess"},
        {"kernel method by another path", PythonCode::InductorWrapper,
         "def build(compiler, name, src):\n    return compiler.triton(name, src)\n",
         "unaudited-kernel", 2, "    return compiler.triton(name, src)"},
        {"kernel method as a value", PythonCode::InductorWrapper,
         "async_compile = AsyncCompile()\nkernels = list(map(async_compile.triton, names, srcs))\n",
         "unaudited-kernel", 2, "kernels = list(map(async_compile.triton, names, srcs))"},
        {"AsyncCompile made elsewhere", PythonCode::InductorWrapper,
         "from torch._inductor.async_compile import AsyncCompile\nAsyncCompile().cuda(src, 'so')\n",
         "unaudited-kernel", 2, "AsyncCompile().cuda(src, 'so')"},
        {"getattr kernel method", PythonCode::InductorWrapper,
         "getattr(async_compile, 'cpp')(src)\n", "unaudited-kernel", 1,
         "getattr(async_compile, 'cpp')(src)"},
        {"torch.load through a container", PythonCode::InductorWrapper,
         "import torch\n[torch][0].load('evil.pt')\n", "call-outside-vocabulary", 2,
         "[torch][0].load('evil.pt')"},
        {"cpp_wrapper_src changed", PythonCode::InductorWrapper,
         "cpp_wrapper_src = (r\'\'\'\nint x;\n\'\'\')\ncpp_wrapper_src += extra\n",
         "computed-kernel-source", 4, "cpp_wrapper_src += extra"},
        {"cpp_wrapper_src calls system", PythonCode::InductorWrapper,
         "cpp_wrapper_src = (r\'\'\'\n#include <cstdlib>\nint f() { return system(\"id\"); "
         "}\n\'\'\')\n",
         "cpp-call", 3, "int f() { return system(\"id\"); }"},
        {"frame globals", PythonCode::InductorWrapper,
         "import os\ng = (x for x in ())\ng.gi_frame.f_globals['os'].system('id')\n",
         "call-outside-vocabulary", 3, "g.gi_frame.f_globals['os'].system('id')"},
        {"inductor config rewritten", PythonCode::InductorWrapper,
         "import torch\ntorch._inductor.config.cpp.cxx = ('sh', '-c', 'id')\n",
         "call-outside-vocabulary", 2, "torch._inductor.config.cpp.cxx = ('sh', '-c', 'id')"},
        {"torchscript compiler", PythonCode::GraphModule,
         "import torch\ndef forward(self, x):\n    return torch._C._jit_script_compile(x)\n",
         "call-outside-vocabulary", 3, "    return torch._C._jit_script_compile(x)"},
        {"mps shader calls system", PythonCode::InductorWrapper,
         "from torch._inductor.runtime.runtime_utils import compile_mps_shader\n"
         "mps_lib_0 = compile_mps_shader(\"\"\"\n#include <c10/metal/utils.h>\n"
         "kernel void k() { system(\"id\"); }\n\"\"\")\n",
         "cpp-call", 4, "kernel void k() { system(\"id\"); }"},
        {"python DSL kernel", PythonCode::InductorWrapper,
         "async_compile = AsyncCompile()\nk = async_compile.cutedsl('k', \"import os\")\n",
         "unaudited-kernel", 2, "k = async_compile.cutedsl('k', \"import os\")"},
        {"coding declaration", PythonCode::InductorWrapper,
         "# -*- coding: utf-7 -*-\nx = 1  # +AAo-import os\n", "source-encoding", 1,
         "# -*- coding: utf-7 -*-"},
        {"fullwidth eval", PythonCode::InductorWrapper, "\xef\xbd\x85val('1')\n", "non-ascii-name",
         1, "\xef\xbd\x85val('1')"},
    };
    for (const Hostile& hostile : cases) {
        QTest::newRow(hostile.name)
            << static_cast<int>(hostile.kind) << qs(hostile.source) << qs(hostile.rule)
            << static_cast<int>(hostile.line) << qs(hostile.text);
    }
}

void TestCodeAudit::hostile_code_is_found() {
    QFETCH(int, kind);
    QFETCH(QString, source);
    QFETCH(QString, rule);
    QFETCH(int, line);
    QFETCH(QString, text);
    auto findings =
        audit_python(source.toStdString(), "source_code", static_cast<PythonCode>(kind));
    QVERIFY_RESULT(findings);
    QVERIFY2(!findings->empty(), "no finding");
    const Finding& first = findings->front();
    QVERIFY2(qs(first.rule) == rule && first.line == static_cast<std::size_t>(line) &&
                 qs(first.text) == text,
             qPrintable(describe(*findings)));
    QCOMPARE(qs(first.file), QStringLiteral("source_code"));
    QVERIFY(!first.why.empty());
}

void TestCodeAudit::mentions_in_comments_and_strings_are_not_findings() {
    const std::string python = "import torch\n"
                               "# os.system('rm -rf /') and eval(x) and __import__('os')\n"
                               "note = 'os.system(\"x\"); exec(y); getattr(a, b).__class__'\n"
                               "doc = '''import socket\nsubprocess.run([])'''\n"
                               "def call(args):\n"
                               "    return args  # open('/etc/passwd')\n";
    auto findings = audit_python(python, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(findings);
    QVERIFY2(findings->empty(), qPrintable(describe(*findings)));

    const std::string cpp = "#include <torch/csrc/inductor/cpp_prefix.h>\n"
                            "// system(\"id\"); popen; dlopen; asm(\"nop\")\n"
                            "/* #include <unistd.h>\n fork(); */\n"
                            "const char* s = \"system(\\\"x\\\") execv\";\n"
                            "const char* r = R\"x(dlopen(\"a\") \" fork)x\";\n"
                            "char c = '\\''; int n = 1'000;\n"
                            "extern \"C\" void kernel(float* out) { out[0] = 1.0f; }\n";
    const auto cpp_findings = audit_cpp(cpp, "k.cpp");
    QVERIFY2(cpp_findings.empty(), qPrintable(describe(cpp_findings)));
}

void TestCodeAudit::import_alone_is_not_a_finding() {
    // Inductor's wrapper header: imported, never used.
    const std::string header =
        "from ctypes import c_void_p, c_long, c_int\n"
        "import torch\nimport math\nimport random\nimport os\nimport tempfile\n"
        "from math import inf, nan\nfrom cmath import nanj\n"
        "x = math.floor(2.5)\n";
    auto findings = audit_python(header, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(findings);
    QVERIFY2(findings->empty(), qPrintable(describe(*findings)));
    // The same modules in a GraphModule's import block are foreign: FX never imports them.
    auto graph = audit_python("import os\n", "graph module", PythonCode::GraphModule);
    QVERIFY_RESULT(graph);
    QCOMPARE(graph->size(), std::size_t{1});
    QCOMPARE(qs(graph->front().rule), QStringLiteral("foreign-import"));
}

// What PyTorch 2.0 to 2.6 wrote, in the forms real caches of those releases
// hold (tests/data/real-world/, FORMATS.md "The version matrix").
void TestCodeAudit::older_releases_forms_are_inductor_vocabulary() {
    const std::string wrapper_2_0 =
        "from torch import empty_strided, as_strided, device\n"
        "from torch._inductor.codecache import AsyncCompile\n"
        "async_compile = AsyncCompile()\n"
        "import triton\n"
        "from torch._inductor.triton_ops.autotune import grid\n"
        "triton__0 = async_compile.triton('''\n"
        "import triton\n"
        "from torch._inductor.triton_ops.autotune import pointwise\n"
        "from torch._inductor.utils import instance_descriptor\n"
        "@pointwise(size_hints=[1024], filename=__file__, meta={'signature': {0: '*fp32', 1: "
        "'i32'}, 'device': 0, 'constants': {}, 'mutated_arg_names': [], 'configs': "
        "[instance_descriptor(divisible_by_16=(0,), equal_to_1=())]})\n"
        "@triton.jit\n"
        "def triton_(in_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    pass\n"
        "''')\n"
        "async_compile.wait(globals())\n"
        "del async_compile\n"
        "def call(args):\n"
        "    triton__0.run(args[0], 1024, grid=grid(1024))\n";
    auto findings = audit_python(wrapper_2_0, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(findings);
    QVERIFY2(findings->empty(), qPrintable(describe(*findings)));

    const std::string aoti_2_3 = "import torch\n"
                                 "import torch._inductor.kernel.bmm\n"
                                 "def call(args):\n"
                                 "    for kernel in globals().values():\n"
                                 "        kernel.cuda_kernel_saved = False\n"
                                 "    g = torch._inductor.kernel.bmm.bmm_grid(8, 1, 50, {})\n";
    findings = audit_python(aoti_2_3, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(findings);
    QVERIFY2(findings->empty(), qPrintable(describe(*findings)));

    const std::string cpp_2_1 =
        "#include "
        "\"/tmp/torchinductor_user/ib/cibrnuq56cxamjj4krp4zpjvsirbmlolpbnmomodzyd46huzhdw7.h\"\n"
        "#include \"F:\\\\cache\\\\ib\\\\cibrnuq56cxamjj4krp4zpjvsirbmlolpbnmomodzyd46huzhdw7.h\"\n"
        "#include <pybind11/pybind11.h>\n"
        "extern \"C\" void kernel(float* out) { out[0] = 1.0f; }\n";
    const auto cpp_findings = audit_cpp(cpp_2_1, "k.cpp");
    QVERIFY2(cpp_findings.empty(), qPrintable(describe(cpp_findings)));
}

// The older forms admitted above are exact: near misses are still findings.
void TestCodeAudit::older_releases_forms_do_not_let_more_in() {
    for (const std::string& source :
         {std::string("for kernel in globals().values():\n    pass\nns = globals()\n"),
          std::string("for k in globals().items():\n    pass\n"),
          std::string("from torch._inductor.codecache import PyCodeCache\nPyCodeCache.load('x')\n"),
          std::string("import torch._inductor.kernel.bmm as b\nimport torch._inductor.codecache\n"
                      "torch._inductor.codecache.PyCodeCache.load('x')\n")}) {
        auto findings = audit_python(source, "source_code", PythonCode::InductorWrapper);
        QVERIFY_RESULT(findings);
        QVERIFY2(!findings->empty(), source.c_str());
    }
    for (const std::string& header :
         {std::string("#include \"/etc/passwd\"\n"),
          std::string(
              "#include \"/tmp/x/zz/cibrnuq56cxamjj4krp4zpjvsirbmlolpbnmomodzyd46huzhdw7.h\"\n"),
          std::string("#include \"ib/cibrnuq56cxamjj4krp4zpjvsirbmlolpbnmomodzyd46huzhdw7.h\"\n"),
          std::string(
              "#include \"/tmp/../ib/cibrnuq56cxamjj4krp4zpjvsirbmlolpbnmomodzyd46huzhdw7.h\"\n"),
          std::string("#include <unistd.h>\n")}) {
        QVERIFY2(!audit_cpp(header, "k.cpp").empty(), header.c_str());
    }
}

void TestCodeAudit::unreadable_source_names_its_line() {
    auto findings = audit_python("x = 1\ny = 'open\n", "source_code", PythonCode::InductorWrapper);
    QVERIFY(!findings.has_value());
    QCOMPARE(qs(findings.error().describe()),
             QStringLiteral("source_code: line 2: unterminated string literal"));
    // C++: each rule at its line, through line splices.
    const std::string cpp = "#include <unistd.h>\n"                 // 1
                            "#include <ATen/cpu/vec/vec.h>\n"       // 2
                            "void k() {\n"                          // 3
                            "    FILE* f = popen(\"id\", \"r\");\n" // 4
                            "    void* h = dlopen(\"x.so\", 0);\n"  // 5
                            "    __asm__ volatile(\"nop\");\n"      // 6
                            "    sys\\\ntem(\"id\");\n"             // 7-8
                            "}\n";
    const auto cpp_findings = audit_cpp(cpp, "k.cpp");
    QStringList got;
    for (const Finding& finding : cpp_findings) {
        got << QStringLiteral("%1:%2").arg(qs(finding.rule)).arg(finding.line);
    }
    QCOMPARE(got, (QStringList{"cpp-include:1", "cpp-call:4", "cpp-call:5", "inline-asm:6",
                               "cpp-call:7"}));
    QCOMPARE(qs(cpp_findings[0].text), QStringLiteral("#include <unistd.h>"));
    // Digraphs, token pasting, #embed and symbol aliasing.
    const std::string spelled = "%:include <dlfcn.h>\n"                                       // 1
                                "#define CALL(a, b) a%:%:b\n"                                 // 2
                                "#embed \"/etc/passwd\"\n"                                    // 3
                                "int f(const char*) __attribute__((weakref(\"system\")));\n"; // 4
    got.clear();
    for (const Finding& finding : audit_cpp(spelled, "k.cpp")) {
        got << QStringLiteral("%1:%2").arg(qs(finding.rule)).arg(finding.line);
    }
    QCOMPARE(got,
             (QStringList{"cpp-include:1", "cpp-obfuscation:2", "cpp-include:3", "cpp-call:4"}));
}

void TestCodeAudit::findings_have_stable_ids() {
    const std::string source = "import socket\n";
    auto first = audit_python(source, "source_code", PythonCode::InductorWrapper);
    auto second = audit_python(source, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(first);
    QVERIFY_RESULT(second);
    QCOMPARE(first->size(), std::size_t{1});
    QCOMPARE(qs(first->front().id), qs(second->front().id));
    auto elsewhere = audit_python(source, "other.py", PythonCode::InductorWrapper);
    QVERIFY_RESULT(elsewhere);
    QVERIFY(elsewhere->front().id != first->front().id);
}

void TestCodeAudit::findings_are_bounded() {
    // A rule once per line, whatever repeats on it; a line's text cut.
    std::string one_line = "import torch\nx = torch";
    for (int k = 0; k < 500; ++k) {
        one_line += ".load";
    }
    one_line += "\n";
    auto findings = audit_python(one_line, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(findings);
    QCOMPARE(findings->size(), std::size_t{1});
    QCOMPARE(findings->front().line, std::size_t{2});
    QVERIFY(findings->front().text.size() <= 403);
    QVERIFY(findings->front().text.ends_with("\u2026"));
    // At most 1000 findings, then one that says the list stops.
    std::string many = "import os\n";
    for (int k = 0; k < 3000; ++k) {
        many += "os.system('x')\n";
    }
    auto listed = audit_python(many, "source_code", PythonCode::InductorWrapper);
    QVERIFY_RESULT(listed);
    QCOMPARE(listed->size(), std::size_t{1001});
    QCOMPARE(qs(listed->back().rule), QStringLiteral("too-many-findings"));
    QCOMPARE(listed->back().line, std::size_t{1002});
    std::string cpp;
    for (int k = 0; k < 3000; ++k) {
        cpp += "system(); system();\n";
    }
    const auto cpp_findings = audit_cpp(cpp, "k.cpp");
    QCOMPARE(cpp_findings.size(), std::size_t{1001});
}

QTEST_GUILESS_MAIN(TestCodeAudit)
#include "tst_code_audit.moc"
