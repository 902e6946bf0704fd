// Caches of every release read right by their facts: what
// tests/data/real-world/facts.py reads from each source with the Python
// standard library alone (no cachelens code) is what `show`, `ls`, `verify`,
// `scan`, `bundle ls`, `trace`, `report`, `preflight`, `why` and `diff` must say.
//
// The sources: the release miniatures tests/data/releases/make_release_caches.py
// writes (the forms of PyTorch 2.0 to 2.8, modelled on real caches users
// committed to public repositories), always; and the real caches themselves
// where they are on this machine: each dir under $CACHELENS_REAL_WORLD (a
// list separated by ':') or shared/real-world/, laid out as
// tests/data/real-world/README.md says. CI holds the miniatures only: real
// caches are third-party data and stay out of the repository.

#include "real_world.h"
#include "test_paths.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include <filesystem>
#include <map>
#include <set>

using namespace cachelens;

namespace {

namespace fs = std::filesystem;

using Source = test::RealWorldSource;

QJsonValue parse_json(const QByteArray& bytes) {
    QJsonParseError error;
    const auto document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError) {
        return {};
    }
    return document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
}

QJsonObject first_object(const QJsonValue& value) {
    return value.isArray() ? value.toArray().first().toObject() : value.toObject();
}

// The dirs a source's facts name, each with the source's cache/ as the base.
QString in_cache(const Source& source, const QString& relative) {
    return QString::fromStdString((source.cache / relative.toStdString()).string());
}

// The GPU arch every Triton kernel of a dir targets, as cachelens says it
// ("sm86", "gfx90a"); empty when they disagree or there are none.
QString single_arch(const QJsonObject& dir) {
    std::set<QString> archs;
    for (const auto& value : dir["triton_kernels"].toArray()) {
        // facts.py writes it as text: "86" (a CUDA capability), "gfx90a".
        const QString arch = value.toObject()["arch"].toString();
        bool capability = false;
        arch.toInt(&capability);
        if (!arch.isEmpty()) {
            archs.insert(capability ? "sm" + arch : arch);
        }
    }
    return archs.size() == 1 ? *archs.begin() : QString();
}

// A compile's id as PyTorch and tlparse write it ("0/1", "0/1_2", "!0/1/0")
// from facts.py's [frame_id, frame_compile_id, attempt, compiled_autograd_id].
QString compile_id_of(const QJsonArray& parts) {
    const auto part = [](const QJsonValue& value) {
        return value.isNull() || value.isUndefined() ? QStringLiteral("-")
                                                     : QString::number(value.toInt());
    };
    const bool has_frame = !parts[0].isNull() || !parts[1].isNull();
    QString id;
    if (parts.size() > 3 && !parts[3].isNull()) {
        id = "!" + part(parts[3]) + (has_frame ? "/" + part(parts[0]) + "/" + part(parts[1]) : "");
    } else if (has_frame) {
        id = part(parts[0]) + "/" + part(parts[1]);
    } else {
        return {};
    }
    if (parts[2].toInt() != 0) {
        id += "_" + QString::number(parts[2].toInt());
    }
    return id;
}

// At most this many items of one kind per source: a large real source is
// sampled, in the facts' (sorted) order.
constexpr int kPerSource = 12;

} // namespace

class TestRealWorld : public QObject {
    Q_OBJECT

    QTemporaryDir work_;
    std::vector<Source> sources_;

    // One row per source that has something of `what` ("inductor_dirs", ...).
    void rows(const char* what) {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < sources_.size(); ++i) {
            if (!sources_[i].facts[QLatin1String(what)].toArray().isEmpty()) {
                QTest::newRow(qPrintable(sources_[i].name)) << static_cast<int>(i);
            }
        }
    }

    const Source& source() {
        QFETCH(int, index);
        return sources_.at(static_cast<std::size_t>(index));
    }

    // The first dir of another source whose kernels all target one arch other
    // than `arch`, with FX entries: a machine to preflight against.
    std::pair<const Source*, QString> dir_of_another_arch(const Source& source,
                                                          const QString& arch) const {
        for (const Source& other : sources_) {
            if (&other == &source) {
                continue;
            }
            for (const auto& value : other.facts["inductor_dirs"].toArray()) {
                const QJsonObject dir = value.toObject();
                const QString theirs = single_arch(dir);
                if (!theirs.isEmpty() && theirs != arch && !dir["fx_entries"].toArray().isEmpty()) {
                    return {&other, dir["path"].toString()};
                }
            }
        }
        return {nullptr, {}};
    }

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        sources_ = test::real_world_sources(fs::path(work_.path().toStdString()));
        const auto real = std::ranges::count_if(
            sources_, [](const Source& s) { return s.name.startsWith(u"real/"); });
        QVERIFY2(sources_.size() - static_cast<std::size_t>(real) >= 10,
                 "the release miniatures are missing");
        qInfo("%zu sources (%zu real)", sources_.size(), static_cast<std::size_t>(real));
    }

    // Every FX entry: its class, role, Triton bundle and debug lines as the pickle holds them.
    void fxEntries_data() { rows("inductor_dirs"); }
    void fxEntries() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            int checked = 0;
            for (const auto& value : dir["fx_entries"].toArray()) {
                const QJsonObject fact = value.toObject();
                if (fact.contains("error") || checked++ == kPerSource) {
                    continue;
                }
                const QString key = fact["key"].toString();
                const auto run = test::run_cli({"show", in_cache(s, dir["path"].toString()),
                                                fact["path"].toString(), "--json"});
                QVERIFY2(run.exit_code == 0, run.err.constData());
                const QJsonObject shown = first_object(parse_json(run.out));
                const QString where = s.name + ": " + fact["path"].toString();
                QCOMPARE(shown["kind"].toString(), QStringLiteral("fxgraph"));
                QCOMPARE(shown["key"].toString(), key);
                QCOMPARE(shown["class"].toString(), fact["class"].toString());
                QVERIFY2(shown["role"].toString() == fact["role"].toString(),
                         qPrintable(where + ": role " + shown["role"].toString() + ", facts say " +
                                    fact["role"].toString()));
                QCOMPARE(shown["debug_lines"].toArray().size(), fact["debug_lines"].toInt());
                QVERIFY2(shown["triton_artifacts"].toArray().size() ==
                             fact["bundle_kernels"].toInt(),
                         qPrintable(where));
                int files = 0;
                for (const auto& kernel : shown["triton_artifacts"].toArray()) {
                    files += static_cast<int>(kernel.toObject()["files"].toArray().size());
                }
                QCOMPARE(files, fact["bundle_files"].toInt());
                QVERIFY2(shown["written_by"].toString().startsWith("PyTorch "), qPrintable(where));
            }
        }
    }

    // `ls --graphs` names every graph by its role, and counts what facts count.
    void graphsListed_data() { rows("inductor_dirs"); }
    void graphsListed() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const auto run =
                test::run_cli({"ls", "--graphs", "--json", in_cache(s, dir["path"].toString())});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            std::map<QString, QString> role_of;
            std::map<QString, int> kinds;
            for (const auto& value : parse_json(run.out).toArray()) {
                const QJsonObject entry = value.toObject();
                ++kinds[entry["kind"].toString()];
                if (entry["kind"].toString() == "fxgraph") {
                    role_of[entry["path"].toString()] = entry["role"].toString();
                }
            }
            for (const auto& value : dir["fx_entries"].toArray()) {
                const QJsonObject fact = value.toObject();
                const QString path = fact["path"].toString();
                QVERIFY2(role_of.contains(path), qPrintable(s.name + ": not listed: " + path));
                if (!fact.contains("error")) {
                    QVERIFY2(role_of[path] == fact["role"].toString(),
                             qPrintable(s.name + ": " + path + " listed as " + role_of[path]));
                }
            }
            QCOMPARE(kinds["fxgraph"], static_cast<int>(dir["fx_entries"].toArray().size()));
            QCOMPARE(kinds["aotautograd"], static_cast<int>(dir["aot_entries"].toArray().size()));
            QCOMPARE(kinds["best_config"], static_cast<int>(dir["best_configs"].toArray().size()));
            int py_modules = 0;
            for (const auto& value : dir["modules"].toArray()) {
                py_modules += value.toObject()["path"].toString().endsWith(".py") ? 1 : 0;
            }
            QCOMPARE(kinds["module"], py_modules);
            // What PyTorch and Triton name (by a hash) is never unknown; a
            // user's own file beside them (output_info.json) may be.
            static const QRegularExpression pytorch_name(QStringLiteral(
                "(^|/)(c[a-z2-7]{51}|f[a-z2-7]{51}|[0-9a-f]{64}|[A-Z2-7]{52})[._/]"));
            for (const auto& value : parse_json(run.out).toArray()) {
                const QJsonObject entry = value.toObject();
                if (entry["kind"].toString() == "unknown") {
                    QVERIFY2(!pytorch_name.match(entry["path"].toString()).hasMatch(),
                             qPrintable(s.name + ": unknown: " + entry["path"].toString()));
                }
            }
        }
    }

    // An AOTAutograd entry names the FX graphs it runs, as its pickle holds them.
    void aotLinks_data() { rows("inductor_dirs"); }
    void aotLinks() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            int checked = 0;
            for (const auto& value : dir["aot_entries"].toArray()) {
                const QJsonObject fact = value.toObject();
                if (fact.contains("error") || checked++ == kPerSource) {
                    continue;
                }
                const auto run = test::run_cli({"show", in_cache(s, dir["path"].toString()),
                                                fact["path"].toString(), "--json"});
                QVERIFY2(run.exit_code == 0, run.err.constData());
                const QJsonObject shown = first_object(parse_json(run.out));
                QCOMPARE(shown["class"].toString(), fact["class"].toString());
                QCOMPARE(shown["forward_key"].toVariant(), fact["forward"].toVariant());
                QCOMPARE(shown["backward_key"].toVariant(), fact["backward"].toVariant());
            }
        }
    }

    // Names that are the hash of their bytes by some release's rule are never
    // called changed; every module PyTorch wrote is Inductor code.
    void modulesVerified_data() { rows("inductor_dirs"); }
    void modulesVerified() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const auto run =
                test::run_cli({"verify", "--json", in_cache(s, dir["path"].toString())});
            const QJsonObject report = parse_json(run.out).toObject();
            QVERIFY2(!report.isEmpty(), run.err.constData());
            std::set<QString> mismatched;
            for (const auto& value : report["problems"].toArray()) {
                const QJsonObject problem = value.toObject();
                if (problem["problem"].toString() == "name-mismatch") {
                    mismatched.insert(problem["path"].toString());
                }
            }
            std::map<QString, QString> verdict_of;
            for (const auto& value : report["code"].toArray()) {
                const QJsonObject code = value.toObject();
                verdict_of[code["path"].toString()] = code["verdict"].toString();
            }
            for (const auto& value : dir["modules"].toArray()) {
                const QJsonObject fact = value.toObject();
                const QString path = fact["path"].toString();
                if (!fact["name_rule"].isNull()) {
                    QVERIFY2(!mismatched.contains(path),
                             qPrintable(s.name + ": " + path + " called changed"));
                }
                if (verdict_of.contains(path)) {
                    QVERIFY2(verdict_of[path] == "inductor-code",
                             qPrintable(s.name + ": " + path + ": " + verdict_of[path]));
                }
            }
            for (const auto& value : dir["triton_kernels"].toArray()) {
                const QJsonObject fact = value.toObject();
                if (!fact["hash"].toString().isEmpty()) {
                    QVERIFY2(!mismatched.contains("triton/" + fact["path"].toString()) &&
                                 !mismatched.contains(fact["path"].toString()),
                             qPrintable(s.name + ": " + fact["path"].toString()));
                }
            }
        }
    }

    // Each Triton kernel's target as its metadata says it, in `show`; the
    // dir's first line in `scan` names the GPU and arch the files name.
    void machineFacts_data() { rows("inductor_dirs"); }
    void machineFacts() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const auto run = test::run_cli({"scan", in_cache(s, dir["path"].toString())});
            const QString scanned = QString::fromUtf8(run.out);
            for (const auto& value : dir["benchmark_caches"].toArray()) {
                const QString gpu = value.toObject()["device"].toString();
                if (!gpu.isEmpty()) {
                    QVERIFY2(scanned.contains(gpu), qPrintable(s.name + ": " + scanned.left(300)));
                }
            }
            std::set<QString> hip_archs;
            for (const auto& value : dir["triton_kernels"].toArray()) {
                const QJsonObject kernel = value.toObject();
                if (kernel["backend"].toString() == "hip") {
                    hip_archs.insert(kernel["arch"].toString());
                }
            }
            for (const auto& arch : hip_archs) {
                QVERIFY2(scanned.contains("HIP " + arch),
                         qPrintable(s.name + ": " + scanned.left(300)));
            }
            QVERIFY2(!scanned.contains("not recorded in its key"), qPrintable(s.name));
        }
    }

    // The artifacts of a mega-cache bundle, and the Triton kernels each FX graph carries.
    void bundles_data() { rows("bundles"); }
    void bundles() {
        const Source& s = source();
        for (const auto& value : s.facts["bundles"].toArray()) {
            const QJsonObject fact = value.toObject();
            const auto run =
                test::run_cli({"bundle", "ls", in_cache(s, fact["path"].toString()), "--json"});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            std::map<QString, int> by_type;
            for (const auto& artifact : parse_json(run.out).toArray()) {
                ++by_type[artifact.toObject()["type"].toString()];
            }
            const auto text = test::run_cli({"bundle", "ls", in_cache(s, fact["path"].toString())});
            const QJsonObject counts = fact["artifacts"].toObject();
            for (auto it = counts.begin(); it != counts.end(); ++it) {
                QCOMPARE(by_type[it.key()], it.value().toInt());
            }
            for (const auto& graph : fact["fx_graphs"].toArray()) {
                const QJsonObject g = graph.toObject();
                const QString expected =
                    QString::number(g["bundle_kernels"].toInt()) +
                    (g["bundle_kernels"].toInt() == 1 ? " Triton kernel" : " Triton kernels");
                QVERIFY2(QString::fromUtf8(text.out).contains(expected),
                         qPrintable(s.name + ": " + expected));
            }
        }
    }

    // Every cache event a TORCH_TRACE log holds, by cache and outcome.
    void traces_data() { rows("traces"); }
    void traces() {
        const Source& s = source();
        for (const auto& value : s.facts["traces"].toArray()) {
            const QJsonObject fact = value.toObject();
            const auto run =
                test::run_cli({"trace", in_cache(s, fact["path"].toString()), "--json"});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            std::map<QString, int> expected;
            for (const auto& event : fact["cache_events"].toArray()) {
                const QJsonObject e = event.toObject();
                const QString cache =
                    e["cache"].toString() == "fx_graph" ? "fxgraph" : "aotautograd";
                const QString state =
                    e["state"].isNull() ? QStringLiteral("not_logged") : e["state"].toString();
                ++expected[cache + " " + state];
            }
            std::map<QString, int> found;
            const QJsonObject traced = parse_json(run.out).toObject();
            for (const auto& log : traced["logs"].toArray()) {
                for (const auto& compile : log.toObject()["compiles"].toArray()) {
                    for (const auto& event : compile.toObject()["events"].toArray()) {
                        const QJsonObject e = event.toObject();
                        ++found[e["cache"].toString() + " " + e["status"].toString()];
                    }
                }
            }
            QVERIFY2(found == expected, qPrintable(s.name + ": " + fact["path"].toString()));
        }
    }

    // The warm-start report's FX graph and AOTAutograd layers of each compile
    // say what the log's cache events say, where they agree within the compile.
    void reports_data() { rows("traces"); }
    void reports() {
        const Source& s = source();
        for (const auto& value : s.facts["traces"].toArray()) {
            const QJsonObject fact = value.toObject();
            // compile id -> layer -> the states logged
            std::map<QString, std::map<QString, std::set<QString>>> logged;
            for (const auto& event_value : fact["cache_events"].toArray()) {
                const QJsonObject event = event_value.toObject();
                const QString id = compile_id_of(event["compile"].toArray());
                if (id.isEmpty()) {
                    continue;
                }
                const QString layer =
                    event["cache"].toString() == "fx_graph" ? "fxgraph" : "aotautograd";
                logged[id][layer].insert(event["state"].isNull() ? QStringLiteral("not_logged")
                                                                 : event["state"].toString());
            }
            const auto run =
                test::run_cli({"report", in_cache(s, fact["path"].toString()), "--json"});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            int checked = 0;
            for (const auto& log : parse_json(run.out).toObject()["logs"].toArray()) {
                for (const auto& compile_value : log.toObject()["compiles"].toArray()) {
                    const QJsonObject compile = compile_value.toObject();
                    const auto found = logged.find(compile["compile_id"].toString());
                    if (found == logged.end()) {
                        continue;
                    }
                    for (const auto& layer_value : compile["layers"].toArray()) {
                        const QJsonObject layer = layer_value.toObject();
                        const auto states = found->second.find(layer["layer"].toString());
                        if (states == found->second.end() || states->second.size() != 1) {
                            continue;
                        }
                        QVERIFY2(layer["outcome"].toString() == *states->second.begin(),
                                 qPrintable(s.name + ": " + fact["path"].toString() + " " +
                                            found->first + " " + layer["layer"].toString() + ": " +
                                            layer["outcome"].toString() + ", logged " +
                                            *states->second.begin()));
                        ++checked;
                    }
                }
            }
            QVERIFY2(checked > 0 || logged.empty(), qPrintable(s.name + ": no compile checked"));
        }
    }

    // Preflight by the machine facts a cache holds: against a cache compiled
    // for another GPU arch, no FX graph that launches Triton kernels can hit,
    // and the arch is said; against its own dir, no machine fact differs.
    void preflightByMachineFacts_data() { rows("inductor_dirs"); }
    void preflightByMachineFacts() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const QString arch = single_arch(dir);
            if (arch.isEmpty() || dir["fx_entries"].toArray().isEmpty()) {
                continue;
            }
            const QString root = in_cache(s, dir["path"].toString());
            const auto itself = test::run_cli({"preflight", root, "--target", root, "--json"});
            QVERIFY2(itself.exit_code != 2, itself.err.constData());
            for (const auto& entry : parse_json(itself.out).toObject()["entries"].toArray()) {
                for (const auto& reason : entry.toObject()["reasons"].toArray()) {
                    const QJsonObject r = reason.toObject();
                    QVERIFY2(r["effect"].toString() != "will_miss" ||
                                 (r["category"].toString() != "device" &&
                                  r["category"].toString() != "environment"),
                             qPrintable(s.name + ": against itself: " + r["text"].toString()));
                }
            }
            const auto [other, other_dir] = dir_of_another_arch(s, arch);
            if (other == nullptr) {
                continue;
            }
            const auto run = test::run_cli(
                {"preflight", root, "--target", in_cache(*other, other_dir), "--json"});
            QVERIFY2(run.exit_code == 1, run.err.constData());
            const QJsonObject report = parse_json(run.out).toObject();
            std::set<QString> launching;
            for (const auto& fx : dir["fx_entries"].toArray()) {
                if (!fx.toObject()["launches"].toArray().isEmpty()) {
                    launching.insert(fx.toObject()["key"].toString());
                }
            }
            bool arch_said = false;
            for (const auto& entry_value : report["entries"].toArray()) {
                const QJsonObject entry = entry_value.toObject();
                if (launching.contains(entry["key"].toString())) {
                    QVERIFY2(entry["outcome"].toString() != "can_hit",
                             qPrintable(s.name + ": " + entry["key"].toString() + " against " +
                                        other->name));
                }
                for (const auto& reason : entry["reasons"].toArray()) {
                    arch_said |= reason.toObject()["text"].toString().contains(arch);
                }
            }
            QVERIFY2(arch_said || launching.empty(),
                     qPrintable(s.name + ": " + arch + " never said against " + other->name));
        }
    }

    // Two different keys are never "the same"; another graph is never counted
    // as this one compiled before.
    void differentKeysNeverTheSame_data() { rows("inductor_dirs"); }
    void differentKeysNeverTheSame() {
        const Source& s = source();
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            QStringList keys;
            for (const auto& value : dir["fx_entries"].toArray()) {
                const QString key = value.toObject()["key"].toString();
                if (!value.toObject().contains("error") && !keys.contains(key)) {
                    keys << key;
                }
            }
            if (keys.size() < 2) {
                continue;
            }
            const QString root = in_cache(s, dir["path"].toString());
            const auto diff = test::run_cli({"diff", root + ":" + keys[0], keys[1], "--json"});
            QVERIFY2(diff.exit_code == 0, diff.err.constData());
            const QJsonObject pair = parse_json(diff.out).toObject();
            QVERIFY2(!pair["verdict"].toString().contains("keys are the same"),
                     qPrintable(s.name + ": " + pair["verdict"].toString()));
            const auto why = test::run_cli({"why", root, keys[0], "--json"});
            QVERIFY2(why.exit_code == 0, why.err.constData());
            const QJsonObject answer = parse_json(why.out).toObject();
            QVERIFY2(!answer["answer"].toString().contains("keys are the same"),
                     qPrintable(s.name));
            // A family member has the target's role and ops: never a graph of another role.
            for (const auto& value : answer["nearest"].toArray()) {
                const QJsonObject near = value.toObject();
                QVERIFY2(!near["verdict"].toString().contains("keys are the same"),
                         qPrintable(s.name));
                if (near["same_family"].toBool() && answer["role"].toString() != "unknown") {
                    QCOMPARE(near["role"].toString(), answer["role"].toString());
                }
            }
        }
    }

    // What every command prints over every source: counts in the number they
    // take, no capital letter starting a sentence mid-line, no error line twice.
    void words_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < sources_.size(); ++i) {
            QTest::newRow(qPrintable(sources_[i].name)) << static_cast<int>(i);
        }
    }
    void words() {
        const Source& s = source();
        std::vector<QStringList> commands;
        for (const auto& dir_value : s.facts["inductor_dirs"].toArray()) {
            const QJsonObject dir = dir_value.toObject();
            const QString root = in_cache(s, dir["path"].toString());
            commands.push_back({"scan", root});
            commands.push_back({"ls", "--graphs", root});
            commands.push_back({"verify", root});
            commands.push_back({"env", "--from", root});
            commands.push_back({"bench", "--plan", root});
            const auto fx = dir["fx_entries"].toArray();
            if (!fx.isEmpty() && !fx.first().toObject().contains("error")) {
                commands.push_back({"why", root, fx.first().toObject()["key"].toString()});
                commands.push_back({"show", root, fx.first().toObject()["key"].toString()});
            }
        }
        for (const auto& value : s.facts["traces"].toArray()) {
            const QString log = in_cache(s, value.toObject()["path"].toString());
            commands.push_back({"report", log});
            commands.push_back({"trace", log});
        }
        for (const auto& value : s.facts["bundles"].toArray()) {
            commands.push_back({"bundle", "ls", in_cache(s, value.toObject()["path"].toString())});
        }
        static const QRegularExpression one_plural(
            QStringLiteral("(?<![\\d.,])1 (entries|files|compiles|artifacts|graphs|kernels|"
                           "events|cache events|keys|modules|dirs|lines|pairs|problems)\\b"));
        static const QRegularExpression bad_plural(QStringLiteral("\\w\\(s\\)|entrys\\b"));
        static const QRegularExpression capital_mid_line(
            QStringLiteral("\\w: (The|A|An|Missed|Another|Nothing|No other|Every) \\w"));
        for (const auto& args : commands) {
            const auto run = test::run_cli(args);
            const QString where = s.name + ": cachelens " + args.join(u' ');
            const QString out = QString::fromUtf8(run.out);
            const QString err = QString::fromUtf8(run.err);
            for (const QString& text : {out, err}) {
                QVERIFY2(!one_plural.match(text).hasMatch(),
                         qPrintable(where + ": " + one_plural.match(text).captured(0)));
                QVERIFY2(!bad_plural.match(text).hasMatch(),
                         qPrintable(where + ": " + bad_plural.match(text).captured(0)));
            }
            for (const QString& line : out.split(u'\n')) {
                if (!line.startsWith(u' ') && !line.startsWith(QLatin1String("cachelens:"))) {
                    QVERIFY2(!capital_mid_line.match(line).hasMatch(),
                             qPrintable(where + ": " + line));
                }
            }
            const QStringList lines = err.split(u'\n', Qt::SkipEmptyParts);
            for (int i = 1; i < lines.size(); ++i) {
                QVERIFY2(lines[i] != lines[i - 1], qPrintable(where + ": twice: " + lines[i]));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestRealWorld)
#include "tst_real_world.moc"
