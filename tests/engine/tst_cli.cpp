// The `cachelens` command line as scripts use it: exit codes, the stable JSON
// of scan/ls/show/verify, and clear errors naming the file and the problem.

#include "test_paths.h"

#include <cachelens/hash/sha256.h>
#include <cachelens/policy/root_policy.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

QString fixture_dir(const char* relative) {
    return QString::fromStdString(test::fixture(relative).string());
}

QJsonDocument parse_json(const test::CliRun& run) {
    QJsonParseError error{};
    auto doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()),
                 run.out.left(400).constData());
    }
    return doc;
}

// tests/data/precompile/<relative> and the real fixtures' files, as arguments.
QString precompile_data(const char* relative) {
    return QString::fromStdString(test::test_data(std::string("precompile/") + relative).string());
}

QString real_path(const char* relative) {
    return QString::fromStdString(test::real_fixture(relative).string());
}

// What the hostile precompile files would make if anything ran them.
const char* const kPrecompileMarker = "/tmp/cachelens-precompile-marker";

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void helpNamesEveryCommand() {
        const auto run = test::run_cli({"--help"});
        QCOMPARE(run.exit_code, 0);
        for (const char* command :
             {"scan", "ls", "show", "verify", "diff", "why", "guards", "lookup", "trace"}) {
            QVERIFY2(run.out.contains(command), command);
        }
        QCOMPARE(test::run_cli({"--version"}).exit_code, 0);
        QCOMPARE(test::run_cli({}).exit_code, 2);
        QCOMPARE(test::run_cli({"frobnicate"}).exit_code, 2);
    }

    void scanJsonCountsEveryKind() {
        const auto run = test::run_cli({"scan", fixture_dir("devset/cache"), "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run).object();
        QCOMPARE(json["entries"].toInt(), 145);
        QCOMPARE(json["files"].toInt(), 607);
        const auto kinds = json["kinds"].toObject();
        QCOMPARE(kinds["fxgraph"].toObject()["entries"].toInt(), 10);
        QCOMPARE(kinds["aotautograd"].toObject()["entries"].toInt(), 9);
        QCOMPARE(kinds["module"].toObject()["entries"].toInt(), 49);
        QCOMPARE(kinds["best_config"].toObject()["entries"].toInt(), 8);
        QCOMPARE(kinds["kernel_perf"].toObject()["entries"].toInt(), 2);
        QCOMPARE(kinds["benchmark_cache"].toObject()["entries"].toInt(), 1);
        QCOMPARE(kinds["triton"].toObject()["entries"].toInt(), 66);
        QCOMPARE(kinds["triton"].toObject()["files"].toInt(), 528);
        QVERIFY(json["errors"].toArray().isEmpty());
        // Where its graphs can hit: the fingerprint `env --from` gives.
        const auto fingerprint = json["fingerprint"].toObject();
        QCOMPARE(fingerprint["environment"].toObject()["device_name"].toString(),
                 "NVIDIA H100 80GB HBM3");
        QCOMPARE(fingerprint["triton_targets"].toArray(), QJsonArray{"cuda 90"});
        QCOMPARE(fingerprint["fx_entries"].toInt(), 10);

        const auto text = test::run_cli({"scan", fixture_dir("devset/cache")});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("fxgraph"));
        QVERIFY(text.out.contains("Every entry parsed."));
        QVERIFY2(
            text.out.contains(
                "\ncompiled on NVIDIA H100 80GB HBM3 (sm90), CUDA 13.0, Triton 3.6.0, "
                "torch build bhbxfhox for cuda (10 of its 10 FX entries name it; config differs "
                "between them "
                "in coordinate_descent_tuning, epilogue_fusion, max_autotune, "
                "max_fusion_size)\n"),
            text.out.constData());
        // A dir without FX entries says nothing of it (null in JSON).
        QTemporaryDir empty;
        const auto none = test::run_cli({"scan", empty.path(), "--json"});
        QCOMPARE(none.exit_code, 0);
        QVERIFY(parse_json(none).object()["fingerprint"].isNull());
    }

    void scanReportsEntriesThatFailToParse() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("multi_dev/cache"), root);
        const fs::path key_dir =
            root / "fxgraph/tk/ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const fs::path entry = fs::directory_iterator(key_dir)->path();
        std::ofstream(entry, std::ios::trunc) << "not a pickle";
        // As verify: what does not parse is a problem found, exit 1.
        const auto run = test::run_cli({"scan", QString::fromStdString(root.string()), "--json"});
        QCOMPARE(run.exit_code, 1);
        const auto errors = parse_json(run)["errors"].toArray();
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].toObject()["path"].toString(), QString::fromStdString(entry.string()));
        QVERIFY(errors[0].toObject()["message"].toString().contains("pickle"));
        const auto text = test::run_cli({"scan", QString::fromStdString(root.string())});
        QCOMPARE(text.exit_code, 1);
        QVERIFY2(text.out.contains("\n1 entry does not parse.\n"), text.out.constData());
    }

    void lsJsonHasOneRowPerEntry() {
        const auto run = test::run_cli({"ls", fixture_dir("devset/cache"), "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto rows = parse_json(run).array();
        QCOMPARE(rows.size(), 145);
        for (const auto& value : rows) {
            const auto row = value.toObject();
            for (const char* field : {"kind", "key", "path", "size"}) {
                QVERIFY2(row.contains(field), field);
            }
            QVERIFY(
                fs::exists(test::fixture("devset/cache") / row["path"].toString().toStdString()));
        }
        const auto fx =
            test::run_cli({"ls", fixture_dir("devset/cache"), "--kind", "fxgraph", "--json"});
        const auto fx_rows = parse_json(fx).array();
        QCOMPARE(fx_rows.size(), 10);
        for (const auto& value : fx_rows) {
            const auto row = value.toObject();
            QCOMPARE(row["kind"].toString(), "fxgraph");
            QVERIFY(row["path"].toString().startsWith("fxgraph/"));
            QVERIFY(row["path"].toString().contains(row["key"].toString()));
            QCOMPARE(row["size"].toInteger(),
                     static_cast<qint64>(fs::file_size(test::fixture("devset/cache") /
                                                       row["path"].toString().toStdString())));
        }
        const auto several = test::run_cli(
            {"ls", fixture_dir("devset/cache"), "--kind", "best_config,kernel_perf", "--json"});
        QCOMPARE(parse_json(several).array().size(), 10);

        const auto bad = test::run_cli({"ls", fixture_dir("devset/cache"), "--kind", "sausage"});
        QCOMPARE(bad.exit_code, 2);
        QVERIFY(bad.err.contains("unknown kind 'sausage'"));
    }

    void showFxGraphJson() {
        const auto golden =
            test::read_json(test::fixture("devset/golden.json"))["fxgraph"].toArray();
        const auto expected = golden[1].toObject(); // a dynamic-shape graph with guards
        const auto run = test::run_cli({"show", fixture_dir("devset/cache"),
                                        expected["fx_graph_cache_key"].toString(), "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto entry = parse_json(run).object();
        QCOMPARE(entry["kind"].toString(), "fxgraph");
        QCOMPARE(entry["key"].toString(), expected["fx_graph_cache_key"].toString());
        QCOMPARE("cache/" + entry["path"].toString(), expected["path"].toString());
        QCOMPARE(entry["guards_expr"].toString(), expected["guards_expr"].toString());
        QCOMPARE(entry["debug_lines"].toArray(), expected["debug_lines"].toArray());
        QCOMPARE(entry["source_code_sha256"].toString(), expected["source_code_sha256"].toString());
        QCOMPARE(entry["cache_key"].toString(), expected["cache_key"].toString());
        QCOMPARE(entry["device_types"].toArray(), expected["device_types"].toArray());
        QCOMPARE(entry["time_taken_ns"].toInteger(), expected["time_taken_ns"].toInteger());
        const auto kernels = entry["kernels"].toArray();
        QVERIFY(!kernels.isEmpty());
        for (const auto& value : kernels) {
            const auto kernel = value.toObject();
            QVERIFY(kernel["name"].toString().startsWith("triton_"));
            QVERIFY(!kernel["configs"].toArray().isEmpty());
            const auto config = kernel["configs"].toArray()[0].toObject();
            QVERIFY(config["kwargs"].toObject().contains("XBLOCK"));
            QVERIFY(config["num_warps"].toInt() > 0);
            QVERIFY(fs::is_directory(test::fixture("devset/cache/triton/0") /
                                     config["triton_dir"].toString().toStdString()));
        }
        // Guards absent: null, not a string.
        const auto plain =
            test::run_cli({"show", fixture_dir("devset/cache"),
                           golden[0].toObject()["fx_graph_cache_key"].toString(), "--json"});
        QVERIFY(parse_json(plain)["guards_expr"].isNull());
    }

    void showKeyWithSeveralEntriesShowsAll() {
        const auto run =
            test::run_cli({"show", fixture_dir("multi_dev/cache"),
                           "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto entries = parse_json(run).array();
        QCOMPARE(entries.size(), 2);
        const auto golden = test::read_json(test::fixture("multi_dev/golden_multi.json"));
        const auto expected = golden["keys"][0]["entries"].toArray();
        for (qsizetype i = 0; i < 2; ++i) {
            QVERIFY(entries[i].toObject()["path"].toString().endsWith(
                expected[i].toObject()["file"].toString()));
            QCOMPARE(entries[i].toObject()["guards_expr"].toString(),
                     expected[i].toObject()["guards_expr"].toString());
        }
        const auto text = test::run_cli({"show", fixture_dir("multi_dev/cache"),
                                         "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt"});
        QCOMPARE(text.exit_code, 0);
        QCOMPARE(text.out.count("\nfxgraph ") + (text.out.startsWith("fxgraph ") ? 1 : 0), 2);
    }

    void showAotJsonLinksItsGraphs() {
        const auto golden =
            test::read_json(test::fixture("devset/golden.json"))["aotautograd"].toArray();
        for (const auto& value : golden) {
            const auto expected = value.toObject();
            const QString set_path =
                expected["path"].toString(); // "cache/..." or "cache_from_mega/..."
            const QString dir = "devset/" + set_path.section('/', 0, 0);
            const QString path = set_path.section('/', 1);
            const auto run =
                test::run_cli({"show", fixture_dir(dir.toUtf8().constData()), path, "--json"});
            QCOMPARE(run.exit_code, 0);
            const auto entry = parse_json(run).object();
            QCOMPARE(entry["kind"].toString(), "aotautograd");
            QCOMPARE(entry["key"].toString(), path.section('/', 1, 1));
            const QString forward_repr = expected["small_fields"]["compiled_fw"].toString();
            QVERIFY(forward_repr.contains(entry["forward_key"].toString()));
            if (expected["small_fields"]["compiled_bw"].toString() == "None") {
                QVERIFY(entry["backward_key"].isNull());
            } else {
                QVERIFY(entry["backward_key"].toString().startsWith('f'));
            }
            QVERIFY(entry.contains("guards_expr"));
        }
    }

    void showOtherKinds() {
        const auto module =
            test::run_cli({"show", fixture_dir("devset/cache"),
                           "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w", "--json"});
        QCOMPARE(module.exit_code, 0);
        const auto m = parse_json(module).object();
        QCOMPARE(m["kind"].toString(), "module");
        QCOMPARE(m["kernel_names"].toArray()[0].toString(), "triton_red_fused_mul_sqrt_sum_0");
        QCOMPARE(m["code_hash"].toString(), m["key"].toString());
        QCOMPARE(m["kernels"][0]["harness"]["args"].toArray().size(), 4);

        const auto best = test::run_cli(
            {"show", fixture_dir("devset/cache"),
             "e4ba318612276f8fb2204775462f06fc309cce5bc0c4ddd85d51e606cbf9aa41", "--json"});
        QCOMPARE(best.exit_code, 0);
        const auto b = parse_json(best).object();
        QCOMPARE(b["kwargs"]["XBLOCK"].toInt(), 8);
        QCOMPARE(b["num_warps"].toInt(), 2);
        QCOMPARE(b["triton_cache_hash"].toString(),
                 "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA");

        const auto triton =
            test::run_cli({"show", fixture_dir("devset/cache"),
                           "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA", "--json"});
        const auto t = parse_json(triton).object();
        QCOMPARE(t["kernel_name"].toString(), "triton_red_fused_cat_cumsum_sin_0");
        // The module in this dir, and the path the PTX names on the compiling machine.
        const QString module_py = "nf/cnf5o5w6odimfhtjmrti5cer2hekx5pgyfkpq4zyd2efii4utvcp.py";
        QCOMPARE(t["module_file"].toString(), module_py);
        QCOMPARE(t["module_path"].toString(), "/tmp/fixtures/devset/cache/" + module_py);
        const auto triton_text =
            test::run_cli({"show", fixture_dir("devset/cache"),
                           "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA"});
        QCOMPARE(triton_text.exit_code, 0);
        QVERIFY(triton_text.out.contains(("module (in this dir)   " + module_py).toUtf8()));
        QVERIFY(triton_text.out.contains(("compiled from          /tmp/fixtures/devset/cache/" +
                                          module_py + " (path on the compiling machine)")
                                             .toUtf8()));
        // A kernel dir whose module is not in the dir says so.
        QTemporaryDir alone;
        const fs::path kernel_dir = fs::path(alone.path().toStdString()) /
                                    "triton/0/2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA";
        fs::create_directories(kernel_dir.parent_path());
        test::copy_tree(test::fixture("devset/cache/triton/0/"
                                      "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA"),
                        kernel_dir);
        const auto lone = test::run_cli(
            {"show", alone.path(), "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA"});
        QVERIFY(lone.out.contains(
            "module (in this dir)   none: cnf5o5w6odimfhtjmrti5cer2hekx5pgyfkpq4zyd2efii4utvcp.py "
            "is not in this dir"));
        const auto lone_json =
            test::run_cli({"show", alone.path(),
                           "2NNRW3X2CAAVD2JMNKYZEQW4LQHPTFRFTALBPFV27IWAOPVZHTEA", "--json"});
        QVERIFY(parse_json(lone_json)["module_file"].isNull());
        QCOMPARE(t["metadata"]["num_warps"].toInt(), 2);
        QCOMPARE(t["ptx"]["parameters"].toArray().size(), 10);

        const auto cache = test::run_cli(
            {"show", fixture_dir("devset/cache"),
             "cache/2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158", "--json"});
        const auto c = parse_json(cache).object();
        QCOMPARE(c["kind"].toString(), "benchmark_cache");
        QVERIFY(!c["choices"].toArray().isEmpty());
    }

    void showErrorsNameTheProblem() {
        const auto missing = test::run_cli({"show", fixture_dir("devset/cache"), "fnosuchkey"});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY(missing.err.contains("nothing matches 'fnosuchkey'"));
        QVERIFY(missing.err.contains("devset/cache"));

        const auto no_dir = test::run_cli({"show", "/nonexistent/dir", "fx"});
        QCOMPARE(no_dir.exit_code, 2);
        QVERIFY(no_dir.err.contains("/nonexistent/dir: no such cache dir"));

        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString());
        fs::create_directories(root / "fxgraph/ab/fabc");
        std::ofstream(root / "fxgraph/ab/fabc/entry", std::ios::binary) << "\x80\x04\x95";
        const auto corrupt = test::run_cli({"show", QString::fromStdString(root.string()), "fabc"});
        QCOMPARE(corrupt.exit_code, 2);
        QVERIFY(corrupt.err.contains("fxgraph/ab/fabc/entry"));
        QVERIFY(corrupt.err.contains("pickle"));
    }

    void diffNamesWhatChanged() {
        const QString devset = fixture_dir("devset/cache");
        const auto run =
            test::run_cli({"diff", devset + ":fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq",
                           "fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run).object();
        QStringList names;
        for (const auto& value : json["differences"].toArray()) {
            const auto difference = value.toObject();
            names << difference["attribute"].toString();
            QCOMPARE(difference["change"].toString(), "changed");
            QVERIFY(difference["left"]["value"].toString() !=
                    difference["right"]["value"].toString());
        }
        names.sort();
        QCOMPARE(names, QStringList({"inductor_config[epilogue_fusion]",
                                     "inductor_config[max_fusion_size]"}));
        QCOMPARE(json["same"].toInt(), 538);
        const auto lines = json["lines"].toObject();
        QCOMPARE(lines["shared"].toInt(), 538);
        QCOMPARE(lines["changed"].toInt(), 2);
        QCOMPARE(lines["differ"].toInt(), 2);
        QCOMPARE(lines["left"].toInt(),
                 lines["shared"].toInt() + lines["changed"].toInt() + lines["only_left"].toInt());

        // Across two dirs: the mega-cache re-run against the original run.
        const auto across = test::run_cli(
            {"diff",
             fixture_dir("devset/cache_from_mega") +
                 ":fc4trgrb2j5vgs4efv523duie5glgxlqc4ue2pybjpnp2cbbaxm3",
             devset + ":flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e", "--json"});
        QCOMPARE(across.exit_code, 0);
        const auto differences = parse_json(across)["differences"].toArray();
        QCOMPARE(differences.size(), 1);
        QCOMPARE(differences[0]["attribute"].toString(), "inductor_config[benchmark_kernel]");
        QCOMPARE(differences[0]["left"]["value"].toString(), "False");
        QCOMPARE(differences[0]["right"]["value"].toString(), "True");

        const auto text =
            test::run_cli({"diff", devset + ":fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq",
                           "fcblktfdhj2nw664pzoe6ceizrqj2gonbqakerkx6hbjkiz5g3fa"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("example_inputs[0] (changed)"));
        QVERIFY(text.out.contains("dtype=torch.float16"));
        // The inputs aligned by what they are, before the lines.
        QVERIFY2(text.out.contains("example inputs, aligned by what they are (0 unchanged):\n"
                                   "  input 0 -> 0: dtype: float32 -> float16\n"
                                   "  input 1 -> 1: dtype: float32 -> float16\n"),
                 text.out.constData());

        // Two dynamic compiles: their symbols renamed (s77 -> s97, ...) are no
        // change; the one input whose sizes follow other symbols is.
        const auto dynamic =
            test::run_cli({"diff", devset + ":f44wpapccbqjred6qtwm7d3hxi4aoplfv6guceuj2jajh3wsdgko",
                           "f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy", "--json"});
        QCOMPARE(dynamic.exit_code, 0);
        const auto inputs = parse_json(dynamic)["inputs"].toArray();
        QCOMPARE(inputs.size(), 5);
        QStringList changed;
        for (const auto& value : inputs) {
            const auto input = value.toObject();
            QCOMPARE(input["left"].toInt(-1), input["right"].toInt(-2));
            for (const auto& change : input["changes"].toArray()) {
                changed
                    << QStringLiteral("%1: %2").arg(input["left"].toInt()).arg(change.toString());
            }
        }
        QCOMPARE(changed, (QStringList{"4: dim 0: s27 -> s52", "4: dim 1: s94 -> s98"}));

        QCOMPARE(test::run_cli({"diff", "fugz3", "fajgub"}).exit_code, 2); // no DIR
        // Keys shortened as the README prints them: the one key they start.
        const auto shortened = test::run_cli({"diff", devset + ":fugz3vdph3s6", "fcblktfdhj2n"});
        QCOMPARE(shortened.exit_code, 0);
        QCOMPARE(shortened.out, text.out);
        const auto shown = test::run_cli({"show", devset, "fugz3vdph3s6", "--json"});
        QCOMPARE(shown.exit_code, 0);
        QVERIFY(shown.out.contains("fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq"));
        const auto several =
            test::run_cli({"diff",
                           fixture_dir("multi_dev/cache") +
                               ":ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt",
                           "x"});
        QCOMPARE(several.exit_code, 2);
        QVERIFY(several.err.contains("names 2 entries; give one by its path"));
        const auto aot = test::run_cli(
            {"diff", devset + ":acbrwiqvrn7rg4grcchrurss26pj64efbb4xv6kecwqscfodrjec", "x"});
        QCOMPARE(aot.exit_code, 2);
        QVERIFY(aot.err.contains("forward fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily"));
    }

    void whyAndDiffCountAlike() {
        // The same pair: the same numbers in the same words, in text and JSON.
        const QString devset = fixture_dir("devset/cache");
        const QString key = "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq";
        const auto why = test::run_cli({"why", devset, key, "--limit", "9", "--json"});
        QCOMPARE(why.exit_code, 0);
        const auto why_text = test::run_cli({"why", devset, key, "--limit", "9"});
        const auto nearest = parse_json(why)["nearest"].toArray();
        QCOMPARE(nearest.size(), 9);
        for (const auto& value : nearest) {
            const auto near = value.toObject();
            const auto diff =
                test::run_cli({"diff", devset + ":" + key, near["key"].toString(), "--json"});
            QCOMPARE(diff.exit_code, 0);
            const auto json = parse_json(diff).object();
            QCOMPARE(near["lines"].toObject(), json["lines"].toObject());
            QCOMPARE(near["shared"].toInt(), json["same"].toInt());
            const auto lines = json["lines"].toObject();
            QCOMPARE(lines["shared"].toInt() + lines["differ"].toInt(), lines["left"].toInt());
            QCOMPARE(lines["differ"].toInt() + lines["only_right"].toInt(),
                     json["differences"].toArray().size());
            QCOMPARE(near["differing"].toArray().size(), json["differences"].toArray().size());
            // The aligned inputs and the causes too, read as why reads them:
            // from the near key to the one that missed.
            const auto reverse =
                test::run_cli({"diff", devset + ":" + near["key"].toString(), key, "--json"});
            QCOMPARE(reverse.exit_code, 0);
            const auto reversed = parse_json(reverse).object();
            QCOMPARE(near["inputs"].toArray(), reversed["inputs"].toArray());
            QCOMPARE(near["causes"].toArray(), reversed["causes"].toArray());
            QCOMPARE(near["verdict"].toString(), reversed["verdict"].toString());
            // Another graph did not miss: its verdict says how it differs.
            const QString verdict = near["same_family"].toBool()
                                        ? "Missed because "
                                        : "Another graph, not this one compiled before; ";
            QVERIFY(near["verdict"].toString().startsWith(verdict));

            const auto diff_text =
                test::run_cli({"diff", devset + ":" + key, near["key"].toString()});
            // The verdict first, then the causes, then the keys and the counts.
            QVERIFY(diff_text.out.startsWith(verdict.toUtf8()));
            QByteArray summary;
            for (const auto& line : diff_text.out.split('\n')) {
                if (line.startsWith("shares ")) {
                    summary = line;
                    break;
                }
            }
            QVERIFY2(summary.startsWith("shares " + QByteArray::number(lines["shared"].toInt()) +
                                        " of " + QByteArray::number(lines["left"].toInt()) +
                                        " debug lines"),
                     summary.constData());
            QVERIFY2(why_text.out.contains("\n  " + summary + ":\n"), summary.constData());
        }
        // The float16 compile: its verdict on top, its inputs under its
        // differing attributes, read from it to the key that missed.
        QVERIFY2(why_text.out.contains("  Missed because input dtypes changed: inputs 0, 1: "
                                       "float16 -> float32; also: graph.\n"),
                 why_text.out.constData());
        QVERIFY2(why_text.out.contains("    example_inputs[1]\n"
                                       "  example inputs, from this key to " +
                                       key.toUtf8() +
                                       ":\n"
                                       "    input 0 -> 0: dtype: float16 -> float32\n"
                                       "    input 1 -> 1: dtype: float16 -> float32\n"),
                 why_text.out.constData());
    }

    // A CPU cache made on a GPU machine was compiled on that GPU's machine
    // for the CPU, not for the GPU.
    void scanSaysWhereAndForWhatACpuCacheWasCompiled() {
        const auto text = test::run_cli({"scan", fixture_dir("cpu_dev/cache")});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(
            text.out.contains("\ncompiled on NVIDIA H100 80GB HBM3, CUDA 13.0, Triton 3.6.0, "
                              "torch build bhbxfhox for cpu (2 of its 2 FX entries name it)\n"),
            text.out.constData());
    }

    // The same dir named again (or as "dir/.") is searched once, as the Why
    // missed page searches it.
    void whySearchesEachDirOnce() {
        const QString devset = fixture_dir("devset/cache");
        const auto once = parse_json(test::run_cli({"why", devset, "fajgubgj", "--json"}));
        const auto twice = parse_json(test::run_cli({"why", devset, "fajgubgj", "--against", devset,
                                                     "--against", devset + "/.", "--json"}));
        QCOMPARE(twice["searched"].toInt(), once["searched"].toInt());
        QCOMPARE(twice["family"].toInt(), 2);
        QCOMPARE(twice["answer"].toString(), once["answer"].toString());
    }

    // A dir PyTorch filled from a bundle of a cache holds the very keys: the
    // answer is that the key is there, a guard or which-dir question.
    void whySaysTheSameKeyIsInTheOtherDir() {
        const QString original =
            QString::fromStdString(test::real_fixture("gpt2_shapes/cache").string());
        const QString filled =
            QString::fromStdString(test::real_fixture("gpt2_shapes/cache_from_bundle").string());
        const auto text = test::run_cli({"why", filled, "fhxelcf7", "--against", original});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.startsWith(("fhxelcf7s3wt… is in " + original +
                                      " too (same key): PyTorch did not miss the key there; "
                                      "check its guards (cachelens lookup " +
                                      original + " fhxelcf7s3wt)")
                                         .toUtf8()),
                 text.out.constData());
        const auto json =
            test::run_cli({"why", filled, "fhxelcf7", "--against", original, "--json"});
        const auto object = parse_json(json).object();
        QCOMPARE(object["same_key"].toArray().size(), 1);
        QCOMPARE(object["same_key"][0]["dir"].toString(), original);
        QCOMPARE(object["first_compile"].toBool(), false);
        QCOMPARE(object["family"].toInt(), 4); // two in each dir
        for (const auto& near : object["nearest"].toArray()) {
            QVERIFY(near.toObject()["key"].toString() != object["key"].toString());
        }
    }

    // The config variant is the same graph compiled again; the MLP's backward
    // graph has no earlier compile in its dir.
    void whySaysAFirstCompile() {
        const auto variant =
            test::run_cli({"why", fixture_dir("devset/cache"),
                           "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq", "--json"});
        QCOMPARE(variant.exit_code, 0);
        QCOMPARE(parse_json(variant)["first_compile"].toBool(), false);
        QCOMPARE(parse_json(variant)["nearest"][0]["graph_similarity"].toDouble(), 1.0);
        const auto first = test::run_cli({"why", fixture_dir("devset/cache"), "fiwfskr6"});
        QCOMPARE(first.exit_code, 0);
        // The answer first; under it rows of other graphs, not "Missed because".
        QVERIFY2(first.out.startsWith("A first compile: none of the 9 graphs searched is this "
                                      "backward graph compiled before; below, the nearest other "
                                      "graphs\n\n"),
                 first.out.constData());
        QVERIFY(!first.out.contains("Missed because"));
        QVERIFY(first.out.contains("  Another graph, not this one compiled before; it differs: "));
        // Graphs named by what they are to AOTAutograd.
        QVERIFY(first.out.contains("\nfiwfskr6jnfhbcay4vb2hbw3ngt6vnf7ucr3drdcawgx5smoly2r "
                                   "(backward graph, 547 debug lines): 0 of 9 graphs searched "
                                   "are this graph compiled before\n"));
        QVERIFY(first.out.contains(": nearest other graph\n"));
        QCOMPARE(parse_json(variant)["role"].toString(), "inference");
        const auto show =
            test::run_cli({"show", fixture_dir("devset/cache"), "fiwfskr6", "--json"});
        QCOMPARE(parse_json(show)["role"].toString(), "backward");
        // What another machine must match for it to hit.
        QCOMPARE(parse_json(show)["environment"]["device_name"].toString(),
                 "NVIDIA H100 80GB HBM3");
        // And which calls of the user's code it was traced from.
        const auto forward = test::run_cli({"show", fixture_dir("devset/cache"), "flgtecy7"});
        QVERIFY2(forward.out.contains("  compiled on            NVIDIA H100 80GB HBM3 (sm90), "
                                      "CUDA 13.0, Triton 3.6.0, torch build bhbxfhox, torch "
                                      "2.11.0+cu130 for cuda\n"
                                      "  traced from            calls of layer_norm, gelu, "
                                      "log_softmax, linear x2\n"),
                 forward.out.constData());
        const auto calls = parse_json(test::run_cli(
            {"show", fixture_dir("devset/cache"), "flgtecy7", "--json"}))["traced_calls"];
        QCOMPARE(calls.toArray().size(), 4);
        QCOMPARE(calls[3]["name"].toString(), "linear");
        QCOMPARE(calls[3]["count"].toInt(), 2);
        // And which AOTAutograd entry runs it.
        const auto owners = parse_json(show)["aot_entries"].toArray();
        QCOMPARE(owners.size(), 1);
        QCOMPARE(owners[0]["key"].toString(),
                 "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i");
        QCOMPARE(owners[0]["as"].toString(), "backward");
        const auto text = test::run_cli({"show", fixture_dir("devset/cache"), "fiwfskr6"});
        QVERIFY(
            text.out.contains("  graph                  backward graph of a training compile\n"));
        QVERIFY(text.out.contains("  AOTAutograd entry      aotautograd/azz63xek"));
    }

    // ls --graphs: each FX graph's role and the AOTAutograd entries that run it.
    void lsNamesTheGraphs() {
        const auto run = test::run_cli(
            {"ls", fixture_dir("devset/cache"), "--kind", "fxgraph", "--graphs", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto rows = parse_json(run).array();
        QCOMPARE(rows.size(), 10);
        QMap<QString, QString> roles;
        for (const auto& value : rows) {
            const auto row = value.toObject();
            roles[row["key"].toString().left(4)] = row["role"].toString();
            QCOMPARE(row["aot_keys"].toArray().size(), 1);
        }
        QCOMPARE(roles["flgt"], "forward");
        QCOMPARE(roles["fiwf"], "backward");
        QCOMPARE(roles["fajg"], "inference");
        const auto text =
            test::run_cli({"ls", fixture_dir("devset/cache"), "--kind", "fxgraph", "--graphs"});
        QVERIFY(text.out.contains("  (backward graph, of aotautograd "
                                  "azz63xekxqvt27cuad3a7l55oldjldqgsdqa4ixhkzcsp3mnrv7i)\n"));
        // Without --graphs, nothing is read: no role.
        const auto plain = test::run_cli({"ls", fixture_dir("devset/cache"), "--json"});
        QVERIFY(!plain.out.contains("\"role\""));
    }

    void whyRanksTheNearestKeys() {
        const auto run = test::run_cli({"why", fixture_dir("devset/cache_from_mega"),
                                        "fc4trgrb2j5vgs4efv523duie5glgxlqc4ue2pybjpnp2cbbaxm3",
                                        "--against", fixture_dir("devset/cache"), "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto nearest = parse_json(run)["nearest"].toArray();
        QCOMPARE(nearest.size(), 5);
        const auto first = nearest[0].toObject();
        QCOMPARE(first["key"].toString(), "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e");
        QCOMPARE(first["differing"].toArray(), QJsonArray({"inductor_config[benchmark_kernel]"}));
        QCOMPARE(first["shared"].toInt(), 543);
        for (qsizetype i = 1; i < nearest.size(); ++i) {
            QVERIFY(nearest[i]["shared"].toInt() <= nearest[i - 1]["shared"].toInt());
        }
        const auto limited =
            test::run_cli({"why", fixture_dir("devset/cache"),
                           "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq", "--limit", "2"});
        QCOMPARE(limited.exit_code, 0);
        QVERIFY(limited.out.contains("inductor_config[epilogue_fusion]"));
        QVERIFY(limited.out.contains("example_inputs[0]"));
        QCOMPARE(test::run_cli({"why", fixture_dir("devset/cache"), "fnothing"}).exit_code, 2);
    }

    void guardsCheckJson() {
        const auto run = test::run_cli(
            {"guards", "check", "L['t1']*L['t0'] <= 2147483647 and 2 <= L['t0'] and 2 <= L['t1']",
             "--hints", "65536,32769", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run).object();
        QCOMPARE(json["result"].toBool(), false);
        const auto clauses = json["clauses"].toArray();
        QCOMPARE(clauses.size(), 3);
        QCOMPARE(clauses[0]["text"].toString(), "L['t1']*L['t0'] <= 2147483647");
        QCOMPARE(clauses[0]["value"].toBool(), false);
        QCOMPARE(clauses[0]["pass"].toBool(), false);
        QCOMPARE(clauses[0]["operands"][0]["value"].toInteger(), 2147549184);
        QCOMPARE(clauses[1]["pass"].toBool(), true);
        QCOMPARE(clauses[1]["reached"].toBool(), false); // Python's `and` stopped at clause 0
        QCOMPARE(json["first_failure"].toInt(), 0);

        const auto pass = test::run_cli(
            {"guards", "check", "2 <= L['t0'] and L['t1'] <= 4096", "--hints", "t1=4096,t0=2"});
        QCOMPARE(pass.exit_code, 0);
        QVERIFY(pass.out.contains("result: True"));

        const auto bad = test::run_cli({"guards", "check", "2 <= L['t0'] and", "--hints", "1"});
        QCOMPARE(bad.exit_code, 2);
        QVERIFY(bad.err.contains("column"));
        const auto bad_hints = test::run_cli({"guards", "check", "2 <= L['t0']", "--hints", "x"});
        QCOMPARE(bad_hints.exit_code, 2);
        QVERIFY(bad_hints.err.contains("--hints"));
        const auto missing = test::run_cli({"guards", "check", "2 <= L['t3']", "--hints", "4"});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY(missing.err.contains("--hints: 1 value given, but the guards read 1 symbol: "
                                     "L['t3'] (no value for L['t3'])"));
        const auto extra = test::run_cli(
            {"guards", "check", "2 <= L['t0'] and L['t1'] <= 4096", "--hints", "1,2,3"});
        QCOMPARE(extra.exit_code, 2);
        QVERIFY(extra.err.contains(
            "--hints: 3 values given, but the guards read 2 symbols: L['t0'], L['t1']"));
        QVERIFY(extra.out.isEmpty());
        // An expression that reads nothing takes no hints, and needs none.
        QCOMPARE(test::run_cli({"guards", "check", "True"}).exit_code, 0);
        QCOMPARE(test::run_cli({"guards", "check", "True", "--hints", "1"}).exit_code, 2);
    }

    void guardsEvalOfEntries() {
        const auto run = test::run_cli({"guards", "eval", fixture_dir("multi_dev/cache"),
                                        "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt",
                                        "--hints", "46341,46341", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto entries = parse_json(run).array();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries[0]["result"].toBool(), false);
        QCOMPARE(entries[1]["result"].toBool(), true);
        QVERIFY(entries[0]["path"].toString().endsWith(
            "hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas"));
        // Values the guards do not read are an error, naming what they read.
        const auto extra = test::run_cli({"guards", "eval", fixture_dir("multi_dev/cache"),
                                          "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt",
                                          "--hints", "1,2,3,4"});
        QCOMPARE(extra.exit_code, 2);
        QVERIFY(extra.err.contains("--hints: 4 values given, but the guards of "
                                   "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt's 2 "
                                   "entries read 2 symbols: L['t0'], L['t1']"));
        QVERIFY(extra.out.isEmpty());
        // No guards: no hints needed, and none taken.
        const auto plain =
            test::run_cli({"guards", "eval", fixture_dir("devset/cache"),
                           "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq", "--json"});
        QCOMPARE(plain.exit_code, 0);
        QCOMPARE(parse_json(plain)["result"].toBool(), true);
        QVERIFY(parse_json(plain)["expression"].isNull());
        const auto plain_hints =
            test::run_cli({"guards", "eval", fixture_dir("devset/cache"),
                           "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq", "--hints", "1"});
        QCOMPARE(plain_hints.exit_code, 2);
        QVERIFY(plain_hints.err.contains("read no symbols"));
        const auto module =
            test::run_cli({"guards", "eval", fixture_dir("devset/cache"),
                           "c2cluqctnlajzehw2weknm56ffw2b4ypsrwdp5qukn6noe5xk34w", "--hints", "1"});
        QCOMPARE(module.exit_code, 2);
        QVERIFY(module.err.contains("only fxgraph and aotautograd entries have guards"));
    }

    void lookupJson() {
        const QString dir = fixture_dir("multi_dev/cache");
        const QString key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const auto hit = test::run_cli({"lookup", dir, key, "--hints", "65536,32769", "--json"});
        QCOMPARE(hit.exit_code, 0);
        const auto json = parse_json(hit).object();
        QCOMPARE(json["status"].toString(), "hit");
        QCOMPARE(json["hit"].toString(), "ndyhf46ldwmlkvpp4mky6repcjnctgzt5cojksekpxljmat467r");
        const auto tried = json["tried"].toArray();
        QCOMPARE(tried.size(), 2);
        QCOMPARE(tried[0]["first_failure"]["clause"].toString(), "L['t1']*L['t0'] <= 2147483647");
        QVERIFY(tried[0]["first_failure"]["detail"].toString().contains("2147549184"));

        const auto miss = test::run_cli({"lookup", dir, key, "--hints", "1,7", "--json"});
        QCOMPARE(parse_json(miss)["status"].toString(), "guard_miss");
        QVERIFY(parse_json(miss)["hit"].isNull());
        const auto full =
            test::run_cli({"lookup", dir, "fnotthere0000000000000000000000000000000000000000000",
                           "--hints", "1", "--json"});
        QCOMPARE(parse_json(full)["status"].toString(), "full_miss");
        const auto text = test::run_cli({"lookup", dir, key, "--hints", "65536,32769"});
        QVERIFY(text.out.contains(
            "fails: L['t1']*L['t0'] <= 2147483647 (L['t1']*L['t0'] = 2147549184)"));
        QCOMPARE(test::run_cli({"lookup", dir, "c2clu", "--hints", "1"}).exit_code, 2);
    }

    void lookupRefusesHintsThatDoNotFit() {
        // A typo is an error naming the symbols, not a plausible guard_miss.
        const QString dir = fixture_dir("multi_dev/cache");
        const QString key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const QString read =
            "the guards of " + key + "'s 2 entries read 2 symbols: L['t0'], L['t1']";
        const std::pair<const char*, QString> cases[] = {
            {"64", "--hints: 1 value given, but " + read},
            {"64,128,5", "--hints: 3 values given, but " + read},
            {"", "--hints: no values given, but " + read},
            {"t5=3", "--hints: 1 value given, but " + read +
                         " (no value for L['t0'], L['t1']; nothing reads L['t5'])"},
        };
        for (const auto& [hints, says] : cases) {
            for (const bool json : {false, true}) {
                QStringList arguments = {"lookup", dir, key, "--hints", hints};
                if (json) {
                    arguments << "--json";
                }
                const auto run = test::run_cli(arguments);
                QCOMPARE(run.exit_code, 2);
                QVERIFY2(run.err.contains(says.toUtf8()), run.err.constData());
                QVERIFY(run.out.isEmpty());
            }
        }
        QCOMPARE(test::run_cli({"lookup", dir, key}).exit_code, 2);
        // A key with no guards needs no hints; a full miss has nothing to check them against.
        const auto plain = test::run_cli({"lookup", fixture_dir("devset/cache"),
                                          "fugz3vdph3s6scj74ka3bp7bloh4sl3pw6itkd6kn3nlx4a3ngiq"});
        QCOMPARE(plain.exit_code, 0);
        QVERIFY(plain.out.contains("hit: "));
        QCOMPARE(
            test::run_cli({"lookup", dir, "fnotthere0000000000000000000000000000000000000000000",
                           "--hints", "1"})
                .exit_code,
            0);
        // A short key is the start of one, which must be there.
        const auto unknown = test::run_cli({"lookup", dir, "fnotthere", "--hints", "1"});
        QCOMPARE(unknown.exit_code, 2);
        QVERIFY2(unknown.err.contains(
                     "nothing matches 'fnotthere': give a key (or at least 4 of its first "
                     "characters), a kernel name, or a path in the dir"),
                 unknown.err.constData());
    }

    // --sizes: the sizes by symbol or by dim, every L['tN'] derived; a key's
    // first characters; and without a key, every FX key that takes them.
    void lookupBySizes() {
        const QString dir = fixture_dir("multi_dev/cache");
        const auto by_hints = test::run_cli({"lookup", dir, "ftk5o3es", "--hints", "65536,32769"});
        QCOMPARE(by_hints.exit_code, 0);
        for (const char* sizes : {"s77=65536,s27=32769", "input2.dim0=65536,input2.dim1=32769"}) {
            const auto run = test::run_cli({"lookup", dir, "ftk5o3es", "--sizes", sizes});
            QCOMPARE(run.exit_code, 0);
            QVERIFY2(run.out.startsWith("--sizes " + QByteArray(sizes) + ": t0=65536, t1=32769\n"),
                     run.out.constData());
            // The same lookup, answered the same way.
            QVERIFY(run.out.endsWith(by_hints.out));
            QVERIFY(run.out.contains("where\n  t0 = s77 (input 0): input 2 dim 0 ([s77, s27] "
                                     "float16 on cuda:0)\n"));
        }
        const auto json =
            test::run_cli({"lookup", dir, "ftk5o3es", "--sizes", "s77=64,s27=128", "--json"});
        QCOMPARE(json.exit_code, 0);
        const auto symbols = parse_json(json)["symbols"].toArray();
        QCOMPARE(symbols.size(), 2);
        QCOMPARE(symbols[1]["name"].toString(), "t1");
        QCOMPARE(symbols[1]["symbol"].toString(), "s27");
        QCOMPARE(symbols[1]["input"].toInt(), 1);
        QCOMPARE(symbols[1]["dims"].toArray().size(), 1);
        QCOMPARE(parse_json(json)["hit"].toString(),
                 "hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas");

        const auto both =
            test::run_cli({"lookup", dir, "ftk5o3es", "--sizes", "s77=1", "--hints", "1,2"});
        QCOMPARE(both.exit_code, 2);
        QVERIFY(both.err.contains("give --hints or --sizes, not both"));
        const auto wrong = test::run_cli({"lookup", dir, "ftk5o3es", "--sizes", "s99=1"});
        QCOMPARE(wrong.exit_code, 2);
        QVERIFY2(wrong.err.contains("'s99=1': this graph has no size s99; its sizes are s77 "
                                    "(input 2 dim 0), s27 (input 2 dim 1)"),
                 wrong.err.constData());

        // Would it hit anywhere? Every FX key that takes the sizes.
        const auto anywhere =
            test::run_cli({"lookup", dir, "--sizes", "input2.dim0=64,input2.dim1=128", "--json"});
        QCOMPARE(anywhere.exit_code, 0);
        const auto result = parse_json(anywhere).object();
        QCOMPARE(result["hits"].toInt(), 1);
        const auto first = result["keys"].toArray()[0].toObject();
        QCOMPARE(first["key"].toString(), "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt");
        QCOMPARE(first["hints"].toObject()["t1"].toInt(), 128);
        const auto nowhere = test::run_cli({"lookup", dir, "--sizes", "s1=3"});
        QCOMPARE(nowhere.exit_code, 2);
        QVERIFY2(nowhere.err.contains("no FX graph key of " + dir.toUtf8() + " takes --sizes s1=3"),
                 nowhere.err.constData());
        QCOMPARE(test::run_cli({"lookup", dir}).exit_code, 2);
    }

    void guardsEvalNamesSymbols() {
        const auto run = test::run_cli({"guards", "eval", fixture_dir("devset/cache"), "f4h6wj3z",
                                        "--sizes", "s97=8,s98=16,input4.dim0=4", "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run).object();
        QCOMPARE(json["result"].toBool(), true);
        const auto symbols = json["symbols"].toArray();
        QCOMPARE(symbols.size(), 3);
        QCOMPARE(symbols[2]["symbol"].toString(), "s52");
        QCOMPARE(symbols[1]["dims"].toArray().size(), 2); // s98: two tensors carry it
        QCOMPARE(test::run_cli({"guards", "eval", fixture_dir("devset/cache"), "f4h6wj3z",
                                "--sizes", "s97=8"})
                     .exit_code,
                 2);
    }

    void lookupSaysWhatItCannotRead() {
        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("multi_dev/cache"), root);
        const QString key = "ftk5o3esbiwgxl7lmk4qxfqciu7xafyi4yfigwtqep4irctgaowt";
        const fs::path key_dir = root / "fxgraph/tk" / key.toStdString();
        const fs::path first = key_dir / "hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas";
        fs::resize_file(first, fs::file_size(first) / 2);
        const QString dir = QString::fromStdString(root.string());

        // PyTorch skips it and takes the next entry: the answer stands, exit 1.
        const auto text = test::run_cli({"lookup", dir, key, "--hints", "64,64"});
        QCOMPARE(text.exit_code, 1);
        QVERIFY2(text.out.startsWith(
                     "unreadable  hjhnw6azgd6tla6trsnehzke4j5doxsegqmai4fpurmrc2yqoas: "),
                 text.out.constData());
        QVERIFY(text.out.contains("(PyTorch would skip this entry)\nHIT   ndyhf46l"));
        QVERIFY(!text.out.contains("no guards"));
        const auto json = test::run_cli({"lookup", dir, key, "--hints", "64,64", "--json"});
        QCOMPARE(json.exit_code, 1);
        const auto tried = parse_json(json)["tried"].toArray();
        QCOMPARE(tried[0]["unreadable"].toBool(), true);
        QVERIFY(tried[0]["error"].toString().contains("pickle"));
        QCOMPARE(tried[1]["unreadable"].toBool(), false);
        QCOMPARE(parse_json(json)["status"].toString(), "hit");

        // Nothing readable: a full miss, as PyTorch reports it.
        const fs::path second = key_dir / "ndyhf46ldwmlkvpp4mky6repcjnctgzt5cojksekpxljmat467r";
        fs::resize_file(second, 10);
        const auto none = test::run_cli({"lookup", dir, key, "--hints", "64,64"});
        QCOMPARE(none.exit_code, 1);
        QVERIFY(none.out.contains("full_miss: none of the 2 entries under fxgraph/tk/" +
                                  key.toUtf8() + " can be read"));
        QCOMPARE(
            parse_json(test::run_cli({"lookup", dir, key, "--hints", "64,64", "--json"}))["status"]
                .toString(),
            "full_miss");
    }

    void benchSaysWhyThereIsNothingToBenchmark() {
        // A CPU cache holds C++ kernels: nothing for a Triton benchmark, said so, exit 2.
        for (const bool plan : {true, false}) {
            QStringList arguments = {"bench", fixture_dir("cpu_dev/cache")};
            if (plan) {
                arguments << "--plan";
            }
            const auto run = test::run_cli(arguments);
            QCOMPARE(run.exit_code, 2);
            QVERIFY2(
                run.err.contains("cpu_dev/cache: no Triton kernels to benchmark: its FX graphs "
                                 "were compiled for cpu (C++ kernels); cachelens bench times "
                                 "Triton kernels on a CUDA GPU"),
                run.err.constData());
        }
        const auto lines =
            test::run_cli({"bench", fixture_dir("cpu_dev/cache"), "--plan", "--json-lines"});
        QCOMPARE(lines.exit_code, 2);
        // The header, then the error record.
        const auto records = lines.out.trimmed().split('\n');
        QCOMPARE(records.size(), 2);
        QCOMPARE(QJsonDocument::fromJson(records[0]).object()["event"].toString(),
                 QString("header"));
        const auto error = QJsonDocument::fromJson(records[1]).object();
        QVERIFY(error["message"].toString().contains("compiled for cpu"));
        QCOMPARE(error["kind"].toString(), QString("not-found"));
        QTemporaryDir empty;
        const auto nothing = test::run_cli({"bench", empty.path(), "--plan"});
        QCOMPARE(nothing.exit_code, 2);
        QVERIFY(nothing.err.contains("no compiled FX graphs or kernel modules"));
        const auto unknown =
            test::run_cli({"bench", fixture_dir("devset/cache"), "--plan", "nosuchkernel"});
        QCOMPARE(unknown.exit_code, 2);
        QVERIFY(
            unknown.err.contains("no kernel or module named nosuchkernel has a benchmark harness"));
    }

    void traceLinksEventsToEntries() {
        const auto run = test::run_cli({"trace", fixture_dir("devset/trace"), "--cache",
                                        fixture_dir("devset/cache"), "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto logs = parse_json(run)["logs"].toArray();
        QCOMPARE(logs.size(), 2);
        int events = 0;
        for (const auto& log : logs) {
            for (const auto& compile : log.toObject()["compiles"].toArray()) {
                for (const auto& value : compile.toObject()["events"].toArray()) {
                    const auto event = value.toObject();
                    QCOMPARE(event["status"].toString(), "miss");
                    QCOMPARE(event["detailed_status"].toString(), "full_miss");
                    // Each miss wrote the entry the cache now holds.
                    QCOMPARE(event["entries"].toArray().size(), 1);
                    if (event["cache"].toString() == "fxgraph") {
                        QVERIFY(!event["nearest"].toArray().isEmpty());
                        // Five different graphs, each compiled once: no earlier
                        // compile of the same graph to have missed.
                        QCOMPARE(event["first_compile"].toBool(), true);
                    }
                    ++events;
                }
            }
        }
        QCOMPARE(events, 9);
        const auto one = test::run_cli(
            {"trace", fixture_dir("devset/trace") + "/dedicated_log_torch_trace_zyfkwfwy.log"});
        QCOMPARE(one.exit_code, 0);
        QVERIFY(one.out.contains("compile 2/0  h"));
        QVERIFY(!one.out.contains("first compile")); // without --cache, nothing to compare
        const auto linked = test::run_cli(
            {"trace", fixture_dir("devset/trace"), "--cache", fixture_dir("devset/cache")});
        QVERIFY(linked.out.contains("      first compile of this graph: no entry in the cache is "
                                    "this graph compiled before\n"));
        QVERIFY(!linked.out.contains("      near "));
        QVERIFY(one.out.contains("f4h6wj3z2ch3hwiotz5hct4ivdtd6blgc4qcfuyiepcwtjzdmfuy"));
        const auto not_a_log = test::run_cli({"trace", fixture_dir("devset/golden.json")});
        QCOMPARE(not_a_log.exit_code, 2);
        QVERIFY(not_a_log.err.contains("golden.json"));
    }

    void verifyExitCodes() {
        for (const char* dir :
             {"devset/cache", "devset/cache_from_mega", "multi_dev/cache", "cpu_dev/cache"}) {
            const auto run = test::run_cli({"verify", fixture_dir(dir)});
            QVERIFY2(run.exit_code == 0, run.out.constData());
            QVERIFY(run.out.isEmpty());
        }
        const auto sample = test::run_cli(
            {"verify", QString::fromStdString(test::sample_cache().string()), "--json"});
        QCOMPARE(sample.exit_code, 0);
        QVERIFY(parse_json(sample)["clean"].toBool());

        QTemporaryDir temp;
        const fs::path root = fs::path(temp.path().toStdString()) / "cache";
        test::copy_tree(test::fixture("cpu_dev/cache"), root);
        const fs::path aot_dir =
            root / "aotautograd/aacdf3qaizy7pkxrpytaj4lt4v6bsgdftv7she2ujmxaby66jstn";
        const fs::path aot = fs::directory_iterator(aot_dir)->path();
        fs::resize_file(aot, fs::file_size(aot) - 1);
        const auto damaged = test::run_cli({"verify", QString::fromStdString(root.string())});
        QCOMPARE(damaged.exit_code, 1);
        const auto lines = damaged.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2); // the name no longer matches, and it no longer parses
        for (const auto& line : lines) {
            QVERIFY(line.startsWith(
                QByteArray::fromStdString(aot.lexically_relative(root).string() + ": ")));
        }
        const auto json =
            test::run_cli({"verify", QString::fromStdString(root.string()), "--json"});
        QCOMPARE(json.exit_code, 1);
        const auto problems = parse_json(json)["problems"].toArray();
        QCOMPARE(problems.size(), 2);
        QCOMPARE(problems[0].toObject()["problem"].toString(), "name-mismatch");
        QCOMPARE(problems[1].toObject()["problem"].toString(), "parse-error");

        QCOMPARE(test::run_cli({"verify", "/nonexistent/dir"}).exit_code, 2);
    }

    // The real caches PyTorch 2.11 wrote on an H200 (#38) that hold only the
    // formats cachelens read before: every file known, every entry parsed,
    // nothing for verify to report.
    void realFixturesScanAndVerifyClean_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<int>("fxgraph");
        QTest::addColumn<int>("aotautograd");
        QTest::addColumn<int>("best_config");
        QTest::addColumn<int>("triton");
        QTest::newRow("transformer at two lengths") << "transformer" << 4 << 2 << 30 << 80;
        QTest::newRow("channels_last CNN") << "cnn" << 1 << 1 << 1 << 4;
        QTest::newRow("precompile's Inductor cache") << "precompile" << 0 << 2 << 2 << 10;
    }
    void realFixturesScanAndVerifyClean() {
        QFETCH(QString, set);
        QFETCH(int, fxgraph);
        QFETCH(int, aotautograd);
        QFETCH(int, best_config);
        QFETCH(int, triton);
        const QString dir =
            QString::fromStdString(test::real_fixture(set.toStdString() + "/cache").string());
        const auto scan = test::run_cli({"scan", dir, "--json"});
        QCOMPARE(scan.exit_code, 0);
        const auto json = parse_json(scan).object();
        QVERIFY(json["errors"].toArray().isEmpty());
        const auto kinds = json["kinds"].toObject();
        QVERIFY2(!kinds.contains("unknown"), scan.out.constData());
        QCOMPARE(kinds["fxgraph"].toObject()["entries"].toInt(), fxgraph);
        QCOMPARE(kinds["aotautograd"].toObject()["entries"].toInt(), aotautograd);
        QCOMPARE(kinds["best_config"].toObject()["entries"].toInt(), best_config);
        QCOMPARE(kinds["triton"].toObject()["entries"].toInt(), triton);
        if (fxgraph > 0) {
            QCOMPARE(json["fingerprint"]["environment"]["device_name"].toString(), "NVIDIA H200");
        }
        const auto verify = test::run_cli({"verify", dir});
        QVERIFY2(verify.exit_code == 0, verify.out.constData());
        QVERIFY(verify.out.isEmpty());
    }

    // The dir above a cache dir called "cache": not a tangle of broken
    // OnDiskCache values, but a pointer to the cache dir itself.
    void scanOfACacheDirsParentNamesTheCacheDir() {
        const QString parent = QString::fromStdString(test::real_fixture("transformer").string());
        const auto scan = test::run_cli({"scan", parent});
        QCOMPARE(scan.exit_code, 0);
        QVERIFY2(!scan.out.contains("OnDiskCache"), scan.out.constData());
        QVERIFY2(scan.out.contains("files (") && scan.out.contains("cachelens does not know"),
                 scan.out.constData());
        QVERIFY2(scan.out.contains(parent.toUtf8() +
                                   "/cache looks like a cache dir of its own: "
                                   "cachelens scan " +
                                   parent.toUtf8() + "/cache\n"),
                 scan.out.constData());
        const auto json = parse_json(test::run_cli({"scan", parent, "--json"})).object();
        QCOMPARE(json["nested_cache_dirs"].toArray(), QJsonArray{"cache"});
    }

    // A precompiled function (torch.compile(...).aot_compile(), then
    // save_compiled_function) shown on its own: the made-up 2.11 layout and
    // the file PyTorch 2.11 wrote on an H200 say the same things.
    void showPrecompiledFunction_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("made-up 2.11 layout") << precompile_data("fn_2_11.bin");
        QTest::newRow("real fn.bin") << real_path("precompile/fn.bin");
    }
    void showPrecompiledFunction() {
        QFETCH(QString, file);
        const QString backend = "__compiled_fn_1_73d33ae1_68ab_4fd8_8e10_12b8d5010613";
        const auto text = test::run_cli({"show", file});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.err.isEmpty(), text.err.constData());
        for (const QByteArray& expected :
             {QByteArray("format"), QByteArray("precompiled function"),
              QByteArray("fn(x, y) at <string>:3"), QByteArray("NVIDIA H200"), backend.toUtf8(),
              QByteArray("TENSOR_MATCH L['x']")}) {
            QVERIFY2(text.out.contains(expected),
                     ("no '" + expected + "' in:\n" + text.out).constData());
        }

        const auto run = test::run_cli({"show", file, "--json"});
        QCOMPARE(run.exit_code, 0);
        const auto json = parse_json(run).object();
        QCOMPARE(json["kind"].toString(), "precompile");
        QVERIFY2(
            json["layout"].toString().startsWith("precompiled function (save_compiled_function, "
                                                 "PyTorch 2.11 layout)"),
            qPrintable(json["layout"].toString()));
        const auto functions = json["functions"].toArray();
        QCOMPARE(functions.size(), 1);
        QCOMPARE(functions[0]["qualname"].toString(), "fn");
        QCOMPARE(functions[0]["signature"].toString(), "(x, y)");
        QCOMPARE(functions[0]["first_line"].toInt(), 3);
        QCOMPARE(json["system_info"]["gpu_name"].toString(), "NVIDIA H200");
        const auto backends = json["backends"].toArray();
        QCOMPARE(backends.size(), 1);
        QCOMPARE(backends[0]["id"].toString(), backend);
        QVERIFY(backends[0]["present"].toBool());
        const auto graphs = backends[0]["graphs"].toArray();
        QCOMPARE(graphs.size(), 1);
        QCOMPARE(graphs[0]["role"].toString(), "forward");
        QVERIFY(graphs[0]["key_matches_source"].toBool());
        const auto guards = json["guards"].toArray();
        QCOMPARE(guards.size(), 1);
        const auto inputs = guards[0]["inputs"].toArray();
        QCOMPARE(inputs.size(), 2);
        QCOMPARE(inputs[0]["name"].toString(), "x");
        QCOMPARE(inputs[1]["name"].toString(), "y");
        QCOMPARE(guards[0]["guards"][0]["kind"].toString(), "TENSOR_MATCH");
        QCOMPARE(guards[0]["guards"][0]["source"].toString(), "L['x']");
        QVERIFY(json["problems"].toArray().isEmpty());
    }

    // A DynamoCache entry is shown by its path in the dir or by its key
    // alone, and says the key PyTorch looks it up by.
    void showDynamoCacheEntry() {
        const QString dir = real_path("dynamo_cache/cache");
        const QString key = "239261316e505a034abae9a2c9f0f69e94af25d0c2253f753d10824ac5c9c34d";
        for (const QString& which : {"dynamo/" + key, key}) {
            const auto run = test::run_cli({"show", dir, which});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            QVERIFY2(run.out.startsWith("precompile " + key.toUtf8() + "\n"), run.out.constData());
            QVERIFY2(run.out.contains("DynamoCache entry"), run.out.constData());
            const auto lines = run.out.split('\n');
            const auto looked_up =
                std::find_if(lines.begin(), lines.end(), [](const QByteArray& l) {
                    return l.trimmed().startsWith("looked up as");
                });
            QVERIFY2(looked_up != lines.end(), run.out.constData());
            QVERIFY2(looked_up->contains(key.toUtf8()), looked_up->constData());
            QVERIFY2(!looked_up->contains("never loaded"), looked_up->constData());
            QVERIFY2(run.out.contains("g at <string>:5"), run.out.constData());

            const auto json = parse_json(test::run_cli({"show", dir, which, "--json"})).object();
            QCOMPARE(json["kind"].toString(), "precompile");
            QCOMPARE(json["key"].toString(), key);
            QCOMPARE(json["expected_key"].toString(), key);
            QCOMPARE(json["functions"][0]["qualname"].toString(), "g");
        }
    }

    // The DynamoCache's dir beside Inductor's: one precompile entry, every
    // file known, every entry parsed, nothing for verify to report.
    void realDynamoCacheScansAndVerifiesClean() {
        const QString dir = real_path("dynamo_cache/cache");
        const auto scan = test::run_cli({"scan", dir, "--json"});
        QCOMPARE(scan.exit_code, 0);
        const auto json = parse_json(scan).object();
        QVERIFY(json["errors"].toArray().isEmpty());
        const auto kinds = json["kinds"].toObject();
        QVERIFY2(!kinds.contains("unknown"), scan.out.constData());
        QCOMPARE(kinds["precompile"].toObject()["entries"].toInt(), 1);
        QCOMPARE(kinds["precompile"].toObject()["files"].toInt(), 1);
        const auto text = test::run_cli({"scan", dir});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.contains("\nEvery entry parsed.\n"), text.out.constData());
        const auto verify = test::run_cli({"verify", dir});
        QVERIFY2(verify.exit_code == 0, verify.out.constData());
        QVERIFY(verify.out.isEmpty());
    }

    // verify FILE: a clean precompiled function; the hostile ones flagged by
    // the rule each breaks, never run; broken ones an error naming the file.
    void verifyPrecompiledFunctions_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QStringList>("expected"); // in stdout
        QTest::newRow("real fn.bin") << real_path("precompile/fn.bin") << 0 << QStringList{};
        QTest::newRow("made-up fn") << precompile_data("fn_2_11.bin") << 0 << QStringList{};
        QTest::newRow("bytecode calls os.system")
            << precompile_data("hostile_code.bin") << 1
            << QStringList{"code with findings", "bytecode-name: the bytecode names 'os'",
                           "bytecode-name: the bytecode names 'system'",
                           "foreign-import: loading imports os"};
        QTest::newRow("a REDUCE of posix.system")
            << precompile_data("hostile_pickle.bin") << 1
            << QStringList{"code with findings", "pickle-call: posix.system"};
        QTest::newRow("guards_state evals") << precompile_data("hostile_guards.bin") << 1
                                            << QStringList{"code with findings", "guards_state",
                                                           "pickle-call: builtins.eval is refused"};
        QTest::newRow("hostile DynamoCache entry")
            << precompile_data("hostile_entry") << 1
            << QStringList{"dynamo/239261316e505a034abae9a2c9f0f69e94af25d0c2253f753d10824ac5c9c34d"
                           ": code with findings",
                           "bytecode-name: the bytecode names 'os'",
                           "foreign-import: loading imports os"};
        QTest::newRow("a missing backend")
            << precompile_data("cache_dir") << 1
            << QStringList{"dynamo/f254a1e7d56840a4f2faa65b43f82d21e65add6e7376169cb5a51da30007822a"
                           ": parse-error: Backend "
                           "__compiled_fn_3_5e0d8a9c_41b2_4c7f_9e36_8f2a1d0c7b54 is not found in "
                           "the given backends"};
        QTest::newRow("truncated") << precompile_data("truncated.bin") << 2 << QStringList{};
        QTest::newRow("not a pickle") << precompile_data("not_a_pickle.bin") << 2 << QStringList{};
    }
    void verifyPrecompiledFunctions() {
        QFETCH(QString, path);
        QFETCH(int, exit_code);
        QFETCH(QStringList, expected);
        QFile::remove(kPrecompileMarker);
        const auto run = test::run_cli({"verify", path});
        QVERIFY2(!QFile::exists(kPrecompileMarker), "verify ran what the file holds");
        QVERIFY2(run.exit_code == exit_code, (run.out + run.err).constData());
        for (const QString& text : expected) {
            QVERIFY2(run.out.contains(text.toUtf8()),
                     ("no '" + text.toUtf8() + "' in:\n" + run.out).constData());
        }
        if (exit_code == 2) {
            QVERIFY(run.out.isEmpty());
            QVERIFY2(run.err.startsWith("cachelens: " + path.toUtf8() + ": "), run.err.constData());
        }
        if (exit_code == 0) {
            QVERIFY(run.out.isEmpty());
        }
    }

    // show FILE --against CHECKOUT: which span PyTorch hashes on load changed.
    void showAgainstACheckout() {
        const QString file = precompile_data("mlp_sources_2_11.bin");
        const auto same =
            test::run_cli({"show", file, "--against", precompile_data("source_tree")});
        QCOMPARE(same.exit_code, 0);
        QVERIFY2(same.out.startsWith("All 2 checked spans are unchanged"), same.out.constData());

        const QString changed_dir = precompile_data("source_tree_changed");
        const auto changed = test::run_cli({"show", file, "--against", changed_dir});
        QCOMPARE(changed.exit_code, 1);
        const auto lines = changed.out.split('\n');
        QVERIFY2(lines[0].startsWith("1 of 2 checked spans changed"), changed.out.constData());
        QVERIFY2(std::any_of(lines.begin(), lines.end(),
                             [](const QByteArray& line) {
                                 return line.contains("Source code changes detected for "
                                                      "mymodels.mlp (line 17 - line 21)");
                             }),
                 changed.out.constData());
        QVERIFY2(!changed.out.contains("Source code changes detected for mymodels.mlp (line 6"),
                 changed.out.constData());

        const auto json_run = test::run_cli({"show", file, "--against", changed_dir, "--json"});
        QCOMPARE(json_run.exit_code, 1);
        const auto json = parse_json(json_run).object();
        QVERIFY(json["answer"].toString().startsWith("1 of 2 checked spans changed"));
        QVERIFY(json["rejected"].toBool());
        const auto sources = json["sources"].toArray();
        QCOMPARE(sources.size(), 2);
        QCOMPARE(sources[0]["status"].toString(), "same");
        QCOMPARE(sources[0]["first_line"].toInt(), 6);
        QCOMPARE(sources[1]["status"].toString(), "changed");
        QCOMPARE(sources[1]["module"].toString(), "mymodels.mlp");
        QCOMPARE(sources[1]["first_line"].toInt(), 17);
        QCOMPARE(sources[1]["last_line"].toInt(), 21);
        QCOMPARE(sources[1]["path"].toString(), "mymodels/mlp.py");
        const auto same_json = parse_json(
            test::run_cli({"show", file, "--against", precompile_data("source_tree"), "--json"}));
        QVERIFY(!same_json["rejected"].toBool());

        // Errors: no such checkout, and a file that records no source spans.
        const auto missing = test::run_cli({"show", file, "--against", "/nonexistent/checkout"});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY2(missing.err.contains("/nonexistent/checkout"), missing.err.constData());
        const QString pt2 = QString::fromStdString(test::test_data("pt2/two_models.pt2").string());
        const auto not_precompile =
            test::run_cli({"show", pt2, "--against", precompile_data("source_tree")});
        QCOMPARE(not_precompile.exit_code, 2);
        QVERIFY2(not_precompile.err.contains(pt2.toUtf8() + " is pt2"),
                 not_precompile.err.constData());
        const QString value = QString::fromStdString(
            test::test_data(
                "keyed_cache/root/cache/inductor_on_disk_cache/054560f575c37a2e455c434de988c4cc")
                .string());
        const auto keyed =
            test::run_cli({"show", value, "--against", precompile_data("source_tree")});
        QCOMPARE(keyed.exit_code, 2);
        QVERIFY2(keyed.err.contains(value.toUtf8() + " is on_disk_cache"), keyed.err.constData());
    }

    // Will it hit on another machine? The answer first, then each entry.
    void preflightAgainstATargetDir() {
        const QString devset = fixture_dir("devset/cache");
        const auto same = test::run_cli({"preflight", devset, "--target", devset});
        QCOMPARE(same.exit_code, 0);
        QVERIFY2(same.out.startsWith("19 of 19 entries can hit on the target; 0 will miss, 0 "
                                     "cannot tell\ntarget: "),
                 same.out.constData());
        const auto cpu = test::run_cli(
            {"preflight", devset, "--target", fixture_dir("cpu_dev/cache"), "--json"});
        QCOMPARE(cpu.exit_code, 1);
        const auto json = parse_json(cpu);
        QCOMPARE(json["target"]["fingerprint"]["device_types"].toArray().size(), 1);
        const auto entries = json["entries"].toArray();
        QCOMPARE(entries.size(), 19);
        for (const auto& value : entries) {
            const auto entry = value.toObject();
            // The CPU cache's graphs never ran on cuda: that says nothing of its GPU.
            QCOMPARE(entry["outcome"].toString(), "cannot_tell");
            QCOMPARE(entry["reasons"][0]["category"].toString(), "device");
            QCOMPARE(entry["reasons"][0]["effect"].toString(), "cannot_tell");
        }
        QTemporaryDir empty;
        const auto nothing = test::run_cli({"preflight", devset, "--target", empty.path()});
        QCOMPARE(nothing.exit_code, 2);
        QVERIFY2(
            nothing.err.contains(
                empty.path().toUtf8() +
                ": no FX graph entry, benchmark cache or Triton kernel to learn the machine from"),
            nothing.err.constData());
        QCOMPARE(test::run_cli({"preflight", "/nonexistent/dir", "--target", devset}).exit_code, 2);
    }

    // preflight FILE --target: PyTorch's SystemInfo.check_compatibility
    // against what the target's fingerprint knows.
    void preflightAPrecompiledFunction() {
        const QString fn = real_path("precompile/fn.bin");
        // The same H200 machine, but a cache dir does not know its torch version.
        const auto unknown =
            test::run_cli({"preflight", fn, "--target", real_path("transformer/cache")});
        QCOMPARE(unknown.exit_code, 1);
        QVERIFY2(unknown.out.startsWith(
                     "Cannot tell whether the precompiled function loads on the target\n"),
                 unknown.out.constData());

        const auto h100 = test::run_cli({"preflight", fn, "--target", fixture_dir("devset/cache")});
        QCOMPARE(h100.exit_code, 1);
        QVERIFY2(h100.out.startsWith("The precompiled function will not load on the target"),
                 h100.out.constData());
        QVERIFY2(h100.out.contains("cached=NVIDIA H200, current=NVIDIA H100 80GB HBM3"),
                 h100.out.constData());
        const auto h100_json = parse_json(
            test::run_cli({"preflight", fn, "--target", fixture_dir("devset/cache"), "--json"}));
        QCOMPARE(h100_json["source_kind"].toString(), "precompile");
        QCOMPARE(h100_json["outcome"].toString(), "will_not_load");
        const auto reasons = h100_json["reasons"].toArray();
        QCOMPARE(reasons.size(), 1);
        QCOMPARE(reasons[0]["category"].toString(), "device");
        QVERIFY2(reasons[0]["text"].toString().contains(
                     "cached=NVIDIA H200, current=NVIDIA H100 80GB HBM3"),
                 qPrintable(reasons[0]["text"].toString()));

        // A fingerprint that knows everything SystemInfo records but Python.
        QTemporaryDir temp;
        const QString h200 = temp.filePath("h200.json");
        QFile file(h200);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"cachelens_fingerprint": 1, "torch_version": "2.11.0+cu130",)"
                   R"( "environment": {"device_name": "NVIDIA H200", "cuda": "13.0",)"
                   R"( "triton": "3.6.0"}, "device_types": ["cuda"]})");
        file.close();
        for (const QString& source : {fn, precompile_data("fn_2_11.bin")}) {
            const auto loads = test::run_cli({"preflight", source, "--target", h200});
            QVERIFY2(loads.exit_code == 0, (loads.out + loads.err).constData());
            QVERIFY2(loads.out.startsWith("The precompiled function can load on the target\n"),
                     loads.out.constData());
            const auto json =
                parse_json(test::run_cli({"preflight", source, "--target", h200, "--json"}));
            QCOMPARE(json["outcome"].toString(), "can_load");
            QVERIFY(json["reasons"].toArray().isEmpty());
        }
    }

    // The help says what the new arguments take.
    void helpNamesThePrecompileArguments() {
        const auto show = test::run_cli({"show", "--help"});
        QCOMPARE(show.exit_code, 0);
        QVERIFY2(show.out.contains("--against"), show.out.constData());
        const auto preflight = test::run_cli({"preflight", "--help"});
        QCOMPARE(preflight.exit_code, 0);
        QVERIFY2(preflight.out.contains("precompiled function"), preflight.out.constData());
    }

    // `env` runs the shipped script in a real python3 against a stand-in
    // torch package (CI has no torch): the script's own logic runs, and what
    // it prints is a fingerprint `preflight --target` reads.
    void envAsksPythonAndPreflightReadsIt() {
        QTemporaryDir temp;
        const QDir root(temp.path());
        QVERIFY(root.mkpath("site/torch/_inductor"));
        const auto write = [&](const QString& name, const QByteArray& text) {
            QFile file(root.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        };
        write("site/torch/__init__.py", R"(__version__ = "2.11.0+cu130"
class _Namespace: pass
fx, nn, version, cuda, backends = (_Namespace() for _ in range(5))
class _Module: pass
class _Graph: pass
class _GraphModule:
    def __init__(self, root, graph): pass
nn.Module, fx.Graph, fx.GraphModule = _Module, _Graph, _GraphModule
version.hip, version.cuda = None, "13.0"
class _Properties:
    name, major, minor, gcnArchName = "NVIDIA H100 80GB HBM3", 9, 0, ""
cuda.is_available = lambda: True
cuda.current_device = lambda: 0
cuda.get_device_properties = lambda index: _Properties()
)");
        write("site/torch/_inductor/__init__.py", "");
        write("site/torch/_inductor/codecache.py", R"(import base64, hashlib, json, pickle
def sha256_hash(data):
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode().lower()
class FxGraphCachePickler:
    def __init__(self, gm): pass
    def get_hash(self, obj): return sha256_hash(pickle.dumps(obj))
def torch_key(): return b"the torch sources"
class CacheBase:
    @staticmethod
    def get_system():
        system = {"device": {"name": "NVIDIA H100 80GB HBM3"},
                  "version": {"triton": "3.6.0" + "0" * 64 + "-" + "1" * 64, "cuda": "13.0"}}
        system["hash"] = hashlib.sha256(json.dumps(system, sort_keys=True).encode()).hexdigest()
        return system
)");
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert("PYTHONPATH", root.filePath("site"));
        const QString output = root.filePath("env.json");
        const auto asked = test::run_cli(
            {"env", "--python", "python3", "--output", output, "--json"}, environment);
        QCOMPARE(asked.exit_code, 0);
        const auto json = parse_json(asked).object();
        QCOMPARE(json["cachelens_fingerprint"].toInt(), 1);
        QCOMPARE(json["torch_version"].toString(), "2.11.0+cu130");
        QCOMPARE(json["environment"]["device_name"].toString(), "NVIDIA H100 80GB HBM3");
        QCOMPARE(json["environment"]["cuda"].toString(), "13.0");
        QCOMPARE(json["environment"]["triton"].toString(), "3.6.0");
        QCOMPARE(json["environment"]["torch_build"].toString().size(), 51);
        QCOMPARE(json["device_types"].toArray(), (QJsonArray{"cpu", "cuda"}));
        QCOMPARE(json["triton_targets"].toArray(), QJsonArray{"cuda 90"});
        QVERIFY(json["inductor_config"].toObject().isEmpty());
        QVERIFY(QFile::exists(output));

        // The devset was made with another torch build: every graph will miss.
        const QString devset = fixture_dir("devset/cache");
        const auto checked = test::run_cli({"preflight", devset, "--target", output});
        QCOMPARE(checked.exit_code, 1);
        QVERIFY2(checked.out.startsWith("0 of 19 entries can hit on the target; 19 will miss"),
                 checked.out.constData());
        QVERIFY2(checked.out.contains("environment: torch build differs (bhbxfhox -> "),
                 checked.out.constData());
        QVERIFY2(checked.out.contains("environment: Triton build differs (3.6.0 on both)"),
                 checked.out.constData());
        QVERIFY2(checked.out.contains("note: the target's Inductor config is not known"),
                 checked.out.constData());

        // Without torch, an error naming the Python (exit 2).
        environment.insert("PYTHONPATH", root.filePath("nothing-here"));
        const auto no_torch = test::run_cli({"env", "--python", "python3"}, environment);
        QCOMPARE(no_torch.exit_code, 2);
        QVERIFY2(no_torch.err.contains("python3: cannot import torch"), no_torch.err.constData());
        QCOMPARE(test::run_cli({"env", "--python", root.filePath("no-python")}).exit_code, 2);
    }

    // `-o /dev/null` (to time a command) writes through the device and
    // leaves it a device; a symlink as the output is refused (exit 2), the
    // link and its target untouched. As root a regression would replace the
    // machine's /dev/null: a twin of it is made in the temp dir then.
    void outputsToDevicesAndSymlinks() {
        QTemporaryDir temp;
        QString null_device = "/dev/null";
        if (::geteuid() == 0) {
            null_device = temp.filePath("null");
            QCOMPARE(::mknod(null_device.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)),
                     0);
        }
        const auto is_device = [&] {
            struct stat info {};
            return ::lstat(null_device.toLocal8Bit().constData(), &info) == 0 &&
                   S_ISCHR(info.st_mode);
        };
        const QString cache = fixture_dir("cpu_dev/cache");
        const auto exported = test::run_cli({"export", cache, "-o", null_device});
        QCOMPARE(exported.exit_code, 0);
        QVERIFY(is_device());
        const auto env = test::run_cli({"env", "--from", cache, "--output", null_device});
        QCOMPARE(env.exit_code, 0);
        QVERIFY(is_device());

        const QString link = temp.filePath("link");
        QVERIFY(QFile::link("target.json", link));
        for (const QStringList& args : {QStringList{"env", "--from", cache, "--output", link},
                                        QStringList{"export", cache, "-o", link}}) {
            const auto refused = test::run_cli(args);
            QCOMPARE(refused.exit_code, 2);
            QVERIFY2(refused.err.contains(link.toUtf8() + ": a symlink: cachelens never replaces"),
                     refused.err.constData());
            QVERIFY(QFileInfo(link).isSymLink());
            QVERIFY(!QFileInfo::exists(temp.filePath("target.json")));
        }
    }

    // A cache dir made there stands for the machine; a bundle is read in place.
    void envFromADirAndABundleChecked() {
        QTemporaryDir temp;
        const QString output = temp.filePath("cpu.json");
        const auto learnt =
            test::run_cli({"env", "--from", fixture_dir("cpu_dev/cache"), "--output", output});
        QCOMPARE(learnt.exit_code, 0);
        QVERIFY2(learnt.out.startsWith("NVIDIA H100 80GB HBM3, CUDA 13.0, Triton 3.6.0, torch "
                                       "build bhbxfhox\nlearnt from  cache dir "),
                 learnt.out.constData());
        QVERIFY2(learnt.out.contains("devices      cpu\n"), learnt.out.constData());
        const auto devset = test::run_cli({"env", "--from", fixture_dir("devset/cache")});
        QVERIFY2(devset.out.contains("  max_autotune: False in 9, True in 1\n"),
                 devset.out.constData());

        const auto bundle = test::run_cli(
            {"preflight", fixture_dir("devset/mega_mlp_train.bin"), "--target", output, "--json"});
        QCOMPARE(bundle.exit_code, 1);
        const auto json = parse_json(bundle).object();
        QCOMPARE(json["source_kind"].toString(), "bundle");
        QCOMPARE(json["target"]["fingerprint"]["device_types"].toArray(), QJsonArray{"cpu"});
        const auto entries = json["entries"].toArray();
        QCOMPARE(entries.size(), 3);
        for (const auto& value : entries) {
            QCOMPARE(value.toObject()["outcome"].toString(), "cannot_tell");
            QCOMPARE(value.toObject()["reasons"][0]["category"].toString(), "device");
        }
        QVERIFY(json["config_compared"].toBool());

        // A file that is no fingerprint, and a bundle that is no bundle.
        const QString bad = temp.filePath("bad.json");
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"entries\": []}");
        file.close();
        const auto refused =
            test::run_cli({"preflight", fixture_dir("devset/cache"), "--target", bad});
        QCOMPARE(refused.exit_code, 2);
        QVERIFY2(refused.err.contains(bad.toUtf8() + ": not a fingerprint"),
                 refused.err.constData());
        const auto not_bundle = test::run_cli({"preflight", bad, "--target", output});
        QCOMPARE(not_bundle.exit_code, 2);
        QVERIFY2(not_bundle.err.contains(bad.toUtf8()), not_bundle.err.constData());
    }

    // import --dry-run says whether the bundle will hit where it goes: against
    // the --into dir's own FX entries, a --target, or "environment unknown".
    void importDryRunPreflightsTheBundle() {
        QTemporaryDir temp;
        const QString bundle = fixture_dir("devset/mega_mlp_train.bin");
        const QString into = temp.filePath("cache");
        const auto unknown = test::run_cli({"import", bundle, "--into", into, "--dry-run"});
        QCOMPARE(unknown.exit_code, 0);
        QVERIFY2(unknown.out.contains("\nwill it hit there? environment unknown ("),
                 unknown.out.constData());
        QVERIFY(unknown.out.contains("run `cachelens env --output env.json` on the machine"));
        QVERIFY(!QFileInfo::exists(into)); // a dry run writes nothing

        const auto cpu = test::run_cli({"import", bundle, "--into", into, "--dry-run", "--target",
                                        fixture_dir("cpu_dev/cache"), "--json"});
        QCOMPARE(cpu.exit_code, 0);
        const auto preflight = parse_json(cpu).object()["preflight"].toObject();
        QCOMPARE(preflight["fingerprint"].toObject()["device_types"].toArray(), QJsonArray{"cpu"});
        QCOMPARE(preflight["entries"].toArray().size(), 3);
        for (const auto& entry : preflight["entries"].toArray()) {
            QCOMPARE(entry.toObject()["outcome"].toString(), "cannot_tell");
        }
        // Into a dir made on the machine: learnt from its FX entries.
        const QString devset = temp.filePath("devset");
        test::copy_tree(test::fixture("devset/cache"), devset.toStdString());
        const auto here = test::run_cli({"import", bundle, "--into", devset, "--dry-run"});
        QVERIFY2(here.out.contains("\nwill it hit there? 3 of 3 entries can hit on the target; 0 "
                                   "will miss, 0 cannot tell (NVIDIA H100 80GB HBM3"),
                 here.out.constData());
    }

    // The catalog knows each FX graph's role: search shows it.
    void searchNamesEachGraphsRole() {
        QTemporaryDir temp;
        const QString catalog = temp.filePath("catalog.sqlite");
        QCOMPARE(
            test::run_cli({"index", "--catalog", catalog, fixture_dir("devset/cache")}).exit_code,
            0);
        const auto json = test::run_cli(
            {"search", "", "--kind", "fxgraph", "--limit", "1000", "--catalog", catalog, "--json"});
        QCOMPARE(json.exit_code, 0);
        std::map<QString, int> roles;
        const auto hits = parse_json(json)["hits"].toArray();
        QVERIFY(!hits.isEmpty());
        for (const auto& hit : hits) {
            ++roles[hit.toObject()["role"].toString()];
        }
        QCOMPARE(roles.size(), 3u);
        QVERIFY(roles["forward"] > 0 && roles["backward"] > 0 && roles["inference"] > 0);
        const auto text = test::run_cli({"search", "fiwfskr6jnfh", "--catalog", catalog});
        QCOMPARE(text.exit_code, 0);
        QVERIFY2(text.out.contains("(backward graph)"), text.out.constData());
        // Several words, as one argument or as several: the same hits.
        const auto one = test::run_cli({"search", "inductor_config max_autotune", "--catalog",
                                        catalog, "--limit", "1000", "--json"});
        const auto two = test::run_cli({"search", "inductor_config", "max_autotune", "--catalog",
                                        catalog, "--limit", "1000", "--json"});
        QCOMPARE(two.exit_code, 0);
        QVERIFY(!parse_json(one)["hits"].toArray().isEmpty());
        QCOMPARE(parse_json(two)["hits"].toArray(), parse_json(one)["hits"].toArray());
    }

    // A Redis server's mirror and a staged bundle are read-only roots: the
    // CLI refuses every write the GUI refuses, in the engine's words, and
    // writes nothing (exit 2).
    void theCliRefusesWritesToReadOnlyRoots() {
        QTemporaryDir temp;
        const fs::path top(temp.path().toStdString());
        // As remote::mirror_dir_for lays a mirror out beside a catalog.
        const fs::path mirror = top / "remote" / "127.0.0.1-7391-db0";
        test::copy_tree(test::fixture("devset/cache"), mirror);
        std::ofstream(top / "remote" / "127.0.0.1-7391-db0.origin") << "redis://127.0.0.1:7391/0";
        // As bundle staging lays a staged bundle out: <base>/<hash>/bundle/<file>.
        const fs::path staged = top / "bundles" / "0123456789abcdef" / "bundle" / "model.bin";
        test::copy_tree(test::fixture("devset/cache"), staged);
        std::ofstream(top / "bundles" / "0123456789abcdef" / "origin") << "/data/model.bin";

        const auto count_files = [](const fs::path& dir) {
            return std::distance(fs::recursive_directory_iterator(dir),
                                 fs::recursive_directory_iterator());
        };
        const QString catalog = temp.filePath("catalog.sqlite");
        const QString bundle = fixture_dir("devset/mega_mlp_train.bin");
        for (const auto& [root, words] :
             {std::pair{mirror, QString("redis://127.0.0.1:7391/0 is a Redis server's mirror, "
                                        "browsed read-only")},
              std::pair{staged, QString("model.bin is a bundle, opened read-only")}}) {
            const QString dir = QString::fromStdString(root.string());
            const auto before = count_files(root);
            const std::vector<QStringList> writes = {
                {"prune", dir, "--max-size", "1", "--keep-recent", "0s", "--catalog", catalog},
                {"import", bundle, "--into", dir},
                {"bench", "accept", "triton_red_fused_mul_sqrt_sum_0", "e6ad55", "--dir", dir,
                 "--catalog", catalog},
                {"remote", "pull", "redis://127.0.0.1:1", "--into", dir},
            };
            for (const auto& write : writes) {
                const auto run = test::run_cli(write);
                QCOMPARE(run.exit_code, 2);
                const QString err = QString::fromUtf8(run.err);
                QVERIFY2(err.contains(words), qPrintable(write.join(' ') + ": " + err));
            }
            QCOMPARE(count_files(root), before);
        }
        // The same words the GUI shows, from the one engine rule.
        const auto refusal = policy::allow_write(mirror, policy::RootWrite::Prune);
        QVERIFY(!refusal);
        QCOMPARE(QString::fromStdString(refusal.error().message),
                 QString("redis://127.0.0.1:7391/0 is a Redis server's mirror, browsed read-only: "
                         "nothing in it is pruned (the next refresh would bring it back). Pull "
                         "its entries into a cache dir to prune there."));
        // A dir of the user's named like a mirror, outside a catalog's remote/, is no mirror.
        const fs::path lookalike = top / "mine" / "127.0.0.1-7391-db0";
        fs::create_directories(lookalike);
        QVERIFY(policy::allow_write(lookalike, policy::RootWrite::Prune));
        QVERIFY(policy::allow_write(test::fixture("devset/cache"), policy::RootWrite::Import));
    }

    // One key grammar for every command that takes keys: a full key, a
    // unique prefix of at least 4, a kernel name, a path; one message for a
    // too-short and for an ambiguous prefix.
    void oneKeyGrammarEverywhere() {
        const QString devset = fixture_dir("devset/cache");
        QTemporaryDir temp;
        const std::vector<QStringList> commands = {
            {"show", devset},
            {"why", devset},
            {"guards", "eval", devset},
            {"lookup", devset},
            {"diff", devset + ":flgtecy7im4d"},
            {"export", devset, "-o", temp.filePath("out.bin")},
        };
        for (const auto& command : commands) {
            // diff takes its second key after the first.
            QStringList prefix = command;
            prefix << "flgtecy7";
            const auto found = test::run_cli(prefix);
            QVERIFY2(found.exit_code == 0 || command[0] == "lookup",
                     (command.join(' ') + ": " + found.err).toUtf8().constData());
            QStringList shortQuery = command;
            shortQuery << "fu";
            const auto tooShort = test::run_cli(shortQuery);
            QCOMPARE(tooShort.exit_code, 2);
            QVERIFY2(tooShort.err.contains("'fu' is too short to name a key: give a key or at "
                                           "least 4 of its first characters, a kernel name, or a "
                                           "path in the dir"),
                     (command.join(' ') + ": " + tooShort.err).toUtf8().constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
