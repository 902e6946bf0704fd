// vLLM's and SGLang's torch_compile_cache trees (serving/): the index and
// factor files and standalone compile's binary artifacts read as their
// writers write them, trees of every layout since vLLM 0.8 (and SGLang's)
// built around the real PyTorch 2.11 caches (serving_trees.h) recognised,
// linked and explained, and hostile trees refused: nothing named in an index
// is followed outside its dir, nothing from a tree is run.

#include "bundle_helpers.h"
#include "hostile_entries.h"
#include "serving_trees.h"
#include "test_paths.h"

#include <cachelens/bundle/code_verdicts.h>
#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/test_seams.h>
#include <cachelens/serving/cache_factors.h>
#include <cachelens/serving/compile_index.h>
#include <cachelens/serving/piecewise.h>
#include <cachelens/serving/prune.h>
#include <cachelens/serving/serving_tree.h>
#include <cachelens/trace/trace_log.h>
#include <cachelens/trace/warm_start.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace cachelens;
using namespace cachelens::serving;
namespace fixture = cachelens::test::serving_fixture;
namespace fs = std::filesystem;

namespace {

std::size_t unknown_files(const cachedir::Scan& scan) {
    return static_cast<std::size_t>(
        std::ranges::count(scan.files, cachedir::FileKind::Unknown, &cachedir::FileRecord::kind));
}

bool has_problem(const cachedir::VerifyReport& report, cachedir::ProblemKind kind,
                 std::string_view text) {
    return std::ranges::any_of(report.problems, [&](const cachedir::Problem& problem) {
        return problem.kind == kind && problem.message.find(text) != std::string::npos;
    });
}

std::string problems_of(const cachedir::VerifyReport& report) {
    std::string out;
    for (const auto& problem : report.problems) {
        out += problem.path + ": " + problem.message + "\n";
    }
    return out;
}

// Sets every file and dir under `dir` to have been written `age_s` ago.
void age_tree(const fs::path& dir, long age_s) {
    const timespec when{::time(nullptr) - age_s, 0};
    const timespec times[2] = {when, when};
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        ::utimensat(AT_FDCWD, entry.path().c_str(), times, AT_SYMLINK_NOFOLLOW);
    }
}

} // namespace

class TestServing : public QObject {
    Q_OBJECT

private slots:
    // ---- the index: a Python literal, read and never run ----

    void indexOfEachEra() {
        // vLLM 0.8's Inductor adaptor, as pprint writes it (a real file's shape).
        auto old = parse_compile_index(
            "{   (None, 0, 'inductor'): (   "
            "'feorwmj2xdtwpofkcuc6fdnluv2auo3zbui7xy2qcncgy2qnvds6',\n"
            "                               '/home/vllm/x/rank_0_0/inductor_cache/sy/csy.py'),\n"
            "    (None, 1, 'inductor'): (   'fihf'\n 'zk',\n '/p')}");
        QVERIFY_RESULT(old);
        QCOMPARE(old->entries.size(), std::size_t{2});
        QCOMPARE(old->entries[0].shape.kind, CompileShape::Kind::General);
        QCOMPARE(old->entries[1].handle->key, std::string("fihfzk")); // implicit concatenation
        // Sizes, ranges, eager's None handle, a plugin's compiler name.
        auto mixed = parse_compile_index(
            "{((1, 8192), 1, 'inductor_standalone'): ('artifact_compile_range_1_8192_subgraph_1', "
            "'/a'), (16, 0, 'inductor_standalone'): ('artifact_shape_16_subgraph_0', '/b'), "
            "(None, 0, 'eager'): None, ((4, 4), 0, 'my_plugin'): ('k', '/c')}");
        QVERIFY_RESULT(mixed);
        QCOMPARE(mixed->entries.size(), std::size_t{4});
        // Sorted by graph index, then shape.
        QCOMPARE(mixed->entries[0].compiler, std::string("eager"));
        QVERIFY(!mixed->entries[0].handle);
        QCOMPARE(mixed->entries[1].shape.describe(), std::string("16"));
        QCOMPARE(mixed->entries[2].shape.describe(), std::string("(4, 4)"));
        QCOMPARE(mixed->entries[3].shape.describe(), std::string("(1, 8192)"));
        QVERIFY(mixed->entries[3].shape.covers(8192));
        QVERIFY(!mixed->entries[3].shape.covers(8193));
        QCOMPARE(mixed->entries[3].shape.artifact_part(), std::string("compile_range_1_8192"));
        QVERIFY_RESULT(parse_compile_index("{}"));
        // vLLM 0.6.5-0.6.6: a list of (shape, graph index, FX key), no path;
        // 0.7.0's InductorArtifact may pair the key with its module's path.
        auto first = parse_compile_index("[   (None, 1, 'fkey1'),\n    (8, 0, 'fkey0'),\n"
                                         "    (None, 0, ('fkey2', '/p/c.py'))]");
        QVERIFY_RESULT(first);
        QCOMPARE(first->form, CompileIndex::Form::HashedGraphList);
        QCOMPARE(first->entries.size(), std::size_t{3});
        QCOMPARE(first->entries[0].graph_index, std::optional<std::int64_t>(0));
        QCOMPARE(first->entries[0].compiler, std::string("inductor"));
        QCOMPARE(first->entries[0].handle->key, std::string("fkey2"));
        QCOMPARE(first->entries[0].handle->path, std::string("/p/c.py"));
        QCOMPARE(first->entries[1].handle->key, std::string("fkey0"));
        QVERIFY(first->entries[1].handle->path.empty());
        QCOMPARE(first->entries[2].graph_name(), std::string("1"));
        QVERIFY_RESULT(parse_compile_index("[]"));
        // 2026 vLLM: the piece is keyed by its graph's sha256, not its position.
        const std::string hash(64, 'c');
        auto hashed = parse_compile_index("{((1, 8192), '" + hash +
                                          "', 'inductor'): ('fk', '/p'), ((1, 8192), 'd" +
                                          hash.substr(1) + "', 'eager'): None}");
        QVERIFY_RESULT(hashed);
        QCOMPARE(hashed->form, CompileIndex::Form::Dict);
        QVERIFY(!hashed->entries[0].graph_index);
        QCOMPARE(hashed->entries[0].graph_hash, hash);
        QCOMPARE(hashed->entries[0].graph_name(), std::string(12, 'c'));
        QCOMPARE(hashed->entries[1].compiler, std::string("eager"));
    }

    void indexRefusesWhatVllmNeverWrites() {
        const std::pair<const char*, const char*> cases[] = {
            {"7", "where vLLM writes a dict"},
            {"[1, 2]", "an item 1, where vLLM 0.6 writes (shape, graph index, FX graph key)"},
            {"[(None, 0, 3)]", "where vLLM 0.6 writes an FX graph key"},
            {"[(None, -2, 'f')]", "graph index"},
            {"{(None, '', 'inductor'): None}", "an empty graph hash"},
            {"{(None, 0): ('a', 'b')}", "(shape, graph index, compiler)"},
            {"{('x', 0, 'inductor'): ('a', 'b')}", "a shape of 'x'"},
            {"{((9, 1), 0, 'inductor'): ('a', 'b')}", "ends before it starts"},
            {"{(None, True, 'inductor'): ('a', 'b')}", "graph index"},
            {"{(None, -1, 'inductor'): ('a', 'b')}", "graph index"},
            {"{(None, 0, 1): ('a', 'b')}", "compiler name"},
            {"{(None, 0, 'inductor'): ('a', 'b', 'c')}", "handle"},
            {"{(None, 0, 'inductor'): ('a', 'b')", ""}, // unterminated
        };
        for (const auto& [text, expected] : cases) {
            auto index = parse_compile_index(text);
            QVERIFY2(!index, text);
            QVERIFY2(index.error().message.find(expected) != std::string::npos,
                     index.error().message.c_str());
        }
        // Code is data: a call is read as a value, refused as a handle, never made.
        const fs::path marker = fs::temp_directory_path() / "cachelens-serving-index-ran";
        fs::remove(marker);
        auto hostile = parse_compile_index(
            "{(None, 0, 'inductor'): __import__('os').system('touch " + marker.string() + "')}");
        QVERIFY(!hostile);
        QVERIFY(!fs::exists(marker));
    }

    // ---- cache_key_factors.json and the dir name ----

    void factorsRehashToTheDirName() {
        // The name vLLM 0.13 derives, computed here with Python's json and
        // hashlib as vLLM's backends.py does (a float, a list, non-ASCII text).
        const std::string text =
            "{\n  \"code_hash\": \"" + std::string(64, 'c') +
            "\",\n  \"compiler_hash\": \"a92dbc9a80\",\n  \"config_hash\": \"84b7dc96bd\",\n"
            "  \"env\": {\n    \"VLLM_ATTENTION_BACKEND\": \"FLASH_ATTN\",\n"
            "    \"VLLM_DP_SIZE\": 1,\n    \"VLLM_FUSED_MOE_CHUNK_SIZE\": 32768,\n"
            "    \"VLLM_PP_LAYER_PARTITION\": null,\n    \"VLLM_USE_STANDALONE_COMPILE\": true,\n"
            "    \"X_FLOAT\": 1e-05,\n    \"X_LIST\": [1, \"a\"],\n    \"X_UNI\": \"caf\\u00e9\"\n"
            "  },\n  \"config\": {\"model\": \"m\"}\n}";
        auto factors = parse_cache_key_factors(text);
        QVERIFY_RESULT(factors);
        QCOMPARE(factors->env_hash,
                 std::string("2bd9e65fec97aee737d4bd73f0bd3fafb5bb241907045bc55cf406b5c330e01e"));
        QCOMPARE(*recompute_hash_dir_name(*factors), std::string("0b17d0676b"));
        QCOMPARE(*factors->env_value("VLLM_ATTENTION_BACKEND"), std::string_view("\"FLASH_ATTN\""));
        QCOMPARE(*factors->env_value("X_FLOAT"), std::string_view("1e-05"));
        QVERIFY(!factors->env_value("NOT_THERE"));
        QCOMPARE(factors->extras.size(), std::size_t{1}); // "config": kept, not refused
        // Every hash matters.
        auto other = *factors;
        other.compiler_hash = "a92dbc9a81";
        QVERIFY(*recompute_hash_dir_name(other) != "0b17d0676b");
    }

    void factorsRefusedWithTheReason() {
        const std::pair<const char*, const char*> cases[] = {
            {"not json", "not JSON"},
            {"[]", "an object"},
            {"{\"env\": {}, \"config_hash\": \"a\", \"code_hash\": \"b\"}", "compiler_hash"},
            {"{\"env\": [], \"config_hash\": \"a\", \"code_hash\": \"b\", \"compiler_hash\": "
             "\"c\"}",
             "\"env\" is a array"},
            {"{\"env\": {}, \"config_hash\": 1, \"code_hash\": \"b\", \"compiler_hash\": \"c\"}",
             "\"config_hash\" is a number"},
        };
        for (const auto& [text, expected] : cases) {
            auto factors = parse_cache_key_factors(text);
            QVERIFY2(!factors, text);
            QVERIFY2(factors.error().message.find(expected) != std::string::npos,
                     factors.error().message.c_str());
        }
    }

    // ---- standalone compile's binary artifact ----

    void binaryArtifactRoundTrip() {
        const std::string bytes = fixture::binary_artifact();
        QVERIFY(bundle::looks_like_compiled_artifact(bytes));
        auto file = bundle::decode_compiled_artifact(bytes);
        QVERIFY_RESULT(file);
        QCOMPARE(file->form, bundle::CompiledArtifactFile::Form::Cache);
        QCOMPARE(file->aot_key,
                 std::string("a7yjz2q5ysc3gnubmrxbzymjswgr7rzvekhtmk5utjcqvb2gugvl"));
        std::string torch_key_hex;
        for (int i = 0; i < 32; ++i) {
            torch_key_hex += "5a";
        }
        QCOMPARE(file->torch_key_hex, torch_key_hex);
        QVERIFY(file->bundle);
        QVERIFY(file->bundle->artifact_count() > 0);
        // The key is base64 on disk, as BytesWriter.write_str writes it.
        QVERIFY(bytes.find("YTd5anoycTV5c2Mz") != std::string::npos);

        std::string flipped = bytes;
        flipped[flipped.size() / 2] ^= 0x01;
        auto damaged = bundle::decode_compiled_artifact(flipped);
        QVERIFY(!damaged);
        QVERIFY(damaged.error().message.find("crc32 mismatch") != std::string::npos);
        auto cut = bundle::decode_compiled_artifact(std::string_view(bytes).substr(0, 40));
        QVERIFY(!cut);
        QCOMPARE(cut.error().kind, ErrorKind::Truncated);
        QVERIFY(!bundle::looks_like_compiled_artifact("{\"not\": 1}"));
    }

    // ---- trees of each layout ----

    // vLLM rewrites its index in place (open "w"): cut to nothing while
    // cachelens holds it, the bytes it read stay readable. A mapped file's
    // lost pages raised SIGBUS (tst_soak found it, in the window's roots job).
    void anIndexCutWhileHeldStaysReadable() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_08(dir.path().toStdString());
        const fs::path index = root / "d4ec7c2a7d" / "rank_0_0" / "vllm_compile_cache.py";
        auto file = MappedFile::open(index);
        QVERIFY_RESULT(file);
        const std::string before((*file)->bytes());
        QVERIFY(!before.empty());
        fs::resize_file(index, 0);
        QCOMPARE(std::string((*file)->bytes()), before);
        auto tree = read_serving_tree(root); // the index now empty: read, not a crash
        QVERIFY_RESULT(tree);
    }

    void vllm08Tree() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_08(dir.path().toStdString());
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        QCOMPARE(tree->stack, Stack::Vllm);
        QCOMPARE(tree->hash_dirs.size(), std::size_t{1});
        const auto& rank = tree->hash_dirs[0].ranks.at(0);
        QCOMPARE(rank.name, std::string("rank_0_0"));
        QCOMPARE(rank.prefixes.size(), std::size_t{1});
        QVERIFY(rank.prefixes[0].name.empty()); // the rank dir holds the index
        QCOMPARE(rank.prefixes[0].inductor_cache,
                 std::string("d4ec7c2a7d/rank_0_0/inductor_cache"));
        const auto graphs = read_piecewise_graphs(*tree, rank.prefixes[0], true);
        QCOMPARE(graphs.graphs.size(), fixture::devset_graphs().size());
        QCOMPARE(graphs.linked(), graphs.graphs.size());
        for (const auto& graph : graphs.graphs) {
            QCOMPARE(graph.link, PiecewiseGraph::Link::FxEntry);
            QVERIFY(graph.moved); // recorded under /home/vllm
            QVERIFY(graph.kernels.has_value());
            QVERIFY(graph.compile_ns.has_value());
        }
        QCOMPARE(describe_tree_with_graphs(*tree),
                 "vLLM compile cache: 1 cache dir, 1 rank; " +
                     std::to_string(graphs.graphs.size()) + " piecewise graphs, " +
                     std::to_string(graphs.graphs.size()) + " linked to FX entries");
        // Every file vLLM wrote has a kind, from the root and from any dir in it.
        for (const fs::path& walked : {root, root / "d4ec7c2a7d", root / "d4ec7c2a7d/rank_0_0"}) {
            auto scan = cachedir::scan_cache_dir(walked);
            QVERIFY_RESULT(scan);
            QCOMPARE(unknown_files(*scan), std::size_t{0});
            QCOMPARE(scan->layout(), cachedir::RootLayout::Vllm);
        }
        auto scan = cachedir::scan_cache_dir(root);
        const auto kinds = scan->summary();
        QCOMPARE(kinds.at(cachedir::FileKind::ServingIndex).files, std::uint64_t{1});
        QCOMPARE(kinds.at(cachedir::FileKind::ServingGraph).files, std::uint64_t{2});
        QVERIFY(kinds.at(cachedir::FileKind::FxGraph).files > 0);
        QVERIFY(kinds.at(cachedir::FileKind::Triton).files > 0);
        // $VLLM_CACHE_ROOT walked whole: the tree, vLLM's model-info cache beside it,
        // a later vLLM's AOT dir with its shared Inductor cache, a staged unpack.
        test::write_bytes(root.parent_path() / "modelinfos" / "llama.json", "{}");
        test::copy_tree(test::fixture("devset/cache/fxgraph"), root / "torch_aot_compile" /
                                                                   std::string(64, 'e') /
                                                                   "inductor_cache" / "fxgraph");
        test::write_bytes(root / ".cachelens-unpack-1" / "d4ec7c2a7d" / "x", "x");
        auto whole = cachedir::scan_cache_dir(root.parent_path());
        QVERIFY_RESULT(whole);
        QCOMPARE(unknown_files(*whole), std::size_t{0});
        QVERIFY(std::ranges::any_of(whole->files, [](const cachedir::FileRecord& file) {
            return file.path.starts_with("torch_compile_cache/torch_aot_compile/") &&
                   file.kind == cachedir::FileKind::FxGraph;
        }));
        fs::remove_all(root.parent_path() / "modelinfos");
        fs::remove_all(root / "torch_aot_compile");
        fs::remove_all(root / ".cachelens-unpack-1");
        // The inner caches stay cache dirs of their own.
        auto inner = cachedir::scan_cache_dir(root / "d4ec7c2a7d/rank_0_0/inductor_cache");
        QVERIFY_RESULT(inner);
        QCOMPARE(inner->layout(), cachedir::RootLayout::Inductor);
        QVERIFY(!locate_serving_tree(root / "d4ec7c2a7d/rank_0_0/inductor_cache"));
        QVERIFY(!locate_serving_tree(test::fixture("devset/cache")));
        // verify: clean; the name cannot be checked without factors, and says so.
        auto selection = select_in_tree(*tree, "");
        auto verified = verify_serving_tree(*tree, *selection);
        QVERIFY_RESULT(verified);
        QVERIFY2(verified->clean(), problems_of(verified->report).c_str());
        QCOMPARE(verified->inner_caches, std::size_t{2});
        QCOMPARE(verified->notes.size(), std::size_t{1});
        QVERIFY(verified->notes[0].find("cannot be checked") != std::string::npos);
    }

    void vllm065TreeWithItsListIndex() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_065(dir.path().toStdString());
        QCOMPARE(parse_rank_dir_name("rank_0")->rank, 0);
        QVERIFY(!parse_rank_dir_name("rank_0")->dp_rank);
        QCOMPARE(parse_rank_dir_name("rank_3_1")->dp_rank, std::optional<int>(1));
        QVERIFY(!parse_rank_dir_name("rank_"));
        QVERIFY(!parse_rank_dir_name("rank_0_x"));
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        QCOMPARE(tree->stack, Stack::Vllm);
        const auto& rank = tree->hash_dirs.at(0).ranks.at(0);
        QCOMPARE(rank.name, std::string("rank_0"));
        const auto& prefix = rank.prefixes.at(0);
        QCOMPARE(prefix.index_file, std::string("inductor_hash_cache.py"));
        QVERIFY2(!prefix.index_error,
                 prefix.index_error ? prefix.index_error->message.c_str() : "");
        QCOMPARE(prefix.index->form, CompileIndex::Form::HashedGraphList);
        const auto graphs = read_piecewise_graphs(*tree, prefix, true);
        QCOMPARE(graphs.graphs.size(), 2 * fixture::devset_graphs().size());
        QCOMPARE(graphs.linked(), graphs.graphs.size());
        for (const auto& graph : graphs.graphs) {
            QCOMPARE(graph.link, PiecewiseGraph::Link::FxEntry);
            QVERIFY(graph.present);
            QVERIFY(!graph.moved); // no path recorded: nothing says it was compiled elsewhere
            QVERIFY(graph.kernels.has_value());
        }
        const auto lookup = lookup_shape(prefix, 8);
        QVERIFY(lookup.unserved_graphs.empty());
        QCOMPARE(lookup.served.front()->shape.describe(), std::string("8"));
        auto scan = cachedir::scan_cache_dir(root);
        QVERIFY_RESULT(scan);
        QCOMPARE(unknown_files(*scan), std::size_t{0});
        QCOMPARE(scan->layout(), cachedir::RootLayout::Vllm);
        auto selection = select_in_tree(*tree, "");
        auto verified = verify_serving_tree(*tree, *selection);
        QVERIFY_RESULT(verified);
        QVERIFY2(verified->clean(), problems_of(verified->report).c_str());
    }

    void graphHashKeysOf2026() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_graph_hash(dir.path().toStdString());
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        const auto& prefix = tree->hash_dirs.at(0).ranks.at(0).prefixes.at(0);
        QVERIFY2(!prefix.index_error,
                 prefix.index_error ? prefix.index_error->message.c_str() : "");
        const auto graphs = read_piecewise_graphs(*tree, prefix, false);
        QCOMPARE(graphs.graphs.size(), std::size_t{2});
        for (const auto& graph : graphs.graphs) {
            QVERIFY2(graph.problem.empty(), graph.problem.c_str());
            QCOMPARE(graph.link, PiecewiseGraph::Link::Artifact);
            QVERIFY(graph.present);
            // Identical pieces share an entry: named by its hash, not a position.
            QVERIFY(!graph.entry.graph_index);
        }
        QCOMPARE(graphs.graphs[0].entry.graph_name(), std::string(12, 'a'));
        QCOMPARE(graphs.graphs[1].entry.graph_hash, std::string(64, 'b'));
        QVERIFY(lookup_shape(prefix, 100).unserved_graphs.empty());
        const auto missed = lookup_shape(prefix, 9000);
        QCOMPARE(missed.unserved_graphs.size(), std::size_t{2});
        QVERIFY(missed.answer.find("(2 of 2 graphs)") != std::string::npos);
    }

    void vllm09TreeWithPrefixesAndRanks() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_09(dir.path().toStdString());
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        QCOMPARE(tree->rank_count(), std::size_t{2});
        QCOMPARE(tree->prefix_names(), (std::vector<std::string>{"backbone", "eagle_head"}));
        QCOMPARE(describe_tree_with_graphs(*tree),
                 std::string("vLLM compile cache: 1 cache dir, 2 ranks, prefixes backbone, "
                             "eagle_head; 24 piecewise graphs, 24 linked to FX entries"));
        const auto& prefix = tree->hash_dirs[0].ranks[1].prefixes[1];
        QCOMPARE(prefix.path, std::string("64625fd5e0/rank_1_0/eagle_head"));
        QCOMPARE(prefix.inductor_cache, std::string("64625fd5e0/rank_1_0/inductor_cache"));
        const auto graphs = read_piecewise_graphs(*tree, prefix);
        QVERIFY(std::ranges::none_of(graphs.graphs, &PiecewiseGraph::moved)); // recorded here
        // Which graph serves a batch: a size equal to it, else the general shape.
        const auto eight = lookup_shape(prefix, 8);
        QCOMPARE(eight.served.size(), std::size_t{3});
        QCOMPARE(eight.served[0]->shape.describe(), std::string("8"));
        QCOMPARE(lookup_shape(prefix, 9).served[0]->shape.describe(), std::string("general"));

        // Selections: hash dir, rank, prefix; a wrong name lists what exists.
        auto selected = select_in_tree(*tree, "64625fd5e0/rank_1_0/eagle_head");
        QVERIFY_RESULT(selected);
        QCOMPARE(selected->prefix, &prefix);
        auto wrong = select_in_tree(*tree, "64625fd5e0/rank_1_0/draft");
        QVERIFY(!wrong);
        QVERIFY(wrong.error().message.find("it has backbone, eagle_head") != std::string::npos);
        auto location = locate_serving_tree(root / "64625fd5e0/rank_1_0/eagle_head");
        QVERIFY(location);
        QCOMPARE(location->relative, std::string("64625fd5e0/rank_1_0/eagle_head"));
        QCOMPARE(location->root, fs::canonical(root));
        // $VLLM_CACHE_ROOT names its torch_compile_cache/.
        QCOMPARE(locate_serving_tree(root.parent_path())->root, fs::canonical(root));

        // An FX entry gone: the graphs that name it cannot load.
        const auto& gone = graphs.graphs[0];
        fs::remove_all(tree->root / gone.found_path);
        auto after = read_serving_tree(root);
        auto verified = verify_serving_tree(*after, *select_in_tree(*after, "64625fd5e0/rank_1_0"));
        QVERIFY_RESULT(verified);
        QVERIFY(has_problem(verified->report, cachedir::ProblemKind::DanglingLink,
                            "graph 0 for the general shape: its FX entry " + gone.fx_key +
                                " is not in 64625fd5e0/rank_1_0/inductor_cache"));
        // Rank 0 still has it: its selection stays clean of that problem.
        auto rank0 = verify_serving_tree(*after, *select_in_tree(*after, "64625fd5e0/rank_0_0"));
        QVERIFY2(rank0->report.clean(), problems_of(rank0->report).c_str());
    }

    void standaloneShapesTree() {
        QTemporaryDir dir;
        const fs::path root = fixture::vllm_standalone_shapes(dir.path().toStdString());
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        const auto& prefix = tree->hash_dirs[0].ranks[0].prefixes[0];
        QCOMPARE(prefix.artifacts.size(), std::size_t{4});
        QVERIFY(prefix.inductor_cache.empty());
        const auto graphs = read_piecewise_graphs(*tree, prefix, true);
        QCOMPARE(graphs.linked(), std::size_t{4});
        for (const auto& graph : graphs.graphs) {
            QCOMPARE(graph.link, PiecewiseGraph::Link::Artifact);
            QVERIFY(graph.moved); // recorded under /root: standalone loads by that path
            QVERIFY(!graph.fx_key.empty());
            QVERIFY(graph.kernels.has_value());
        }
        auto scan = cachedir::scan_cache_dir(root);
        QCOMPARE(unknown_files(*scan), std::size_t{0});
        QCOMPARE(scan->summary().at(cachedir::FileKind::CompiledArtifact).files, std::uint64_t{4});
        auto verified = verify_serving_tree(*tree, {});
        QVERIFY_RESULT(verified);
        QVERIFY2(verified->clean(), problems_of(verified->report).c_str());
        // A moved standalone tree is a warning: vLLM without vllm#52142 fails to load.
        QCOMPARE(verified->report.warnings.size(), std::size_t{4});
        QVERIFY(verified->report.warnings[0].message.find("vllm#52142") != std::string::npos);
        // An artifact that does not decode.
        test::write_bytes(tree->root / prefix.path / "artifact_shape_16_subgraph_1", "garbage");
        auto broken = verify_serving_tree(*tree, {});
        QVERIFY(has_problem(broken->report, cachedir::ProblemKind::ParseError, ""));
    }

    void compileRangesAndWhyANewDir() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string flash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const std::string infer = fixture::vllm_ranges(root, fixture::vllm_env("FLASHINFER"));
        const std::string config =
            fixture::vllm_ranges(root, fixture::vllm_env("FLASHINFER"), "1234567890");
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        QCOMPARE(tree->hash_dirs.size(), std::size_t{3});
        const HashDir* infer_dir = tree->find_hash_dir(infer);
        const HashDir* flash_dir = tree->find_hash_dir(flash);
        QVERIFY(infer_dir && flash_dir);
        // One graph per (range, index); one of them unpacked.
        const auto& prefix = infer_dir->ranks[0].prefixes[0];
        QVERIFY(prefix.factors);
        const auto graphs = read_piecewise_graphs(*tree, prefix, true);
        QCOMPARE(graphs.linked(), std::size_t{4});
        QVERIFY(std::ranges::none_of(graphs.graphs, &PiecewiseGraph::moved));
        auto scan = cachedir::scan_cache_dir(root);
        QCOMPARE(unknown_files(*scan), std::size_t{0});
        QVERIFY(scan->summary().at(cachedir::FileKind::FxGraph).files > 0); // the unpacked dir's

        // Why: against a named dir, the env variable first.
        auto why = compare_hash_dirs(*tree, *infer_dir, flash_dir);
        QVERIFY_RESULT(why);
        QCOMPARE(why->answer, std::string("vLLM made a new cache dir because env "
                                          "VLLM_ATTENTION_BACKEND changed (FLASH_ATTN -> "
                                          "FLASHINFER)"));
        QCOMPARE(why->changes.size(), std::size_t{1});
        // The nearest sibling of the config change is the FLASHINFER dir.
        auto nearest = compare_hash_dirs(*tree, *tree->find_hash_dir(config));
        QVERIFY_RESULT(nearest);
        QVERIFY(nearest->nearest);
        QCOMPARE(nearest->against, infer);
        QCOMPARE(nearest->answer,
                 std::string("vLLM made a new cache dir because the vLLM config changed (only "
                             "its hash is recorded by this vLLM version: 84b7dc96bd -> "
                             "1234567890)"));
        // Two changes at once: the first in vLLM's hashing order, and a count.
        auto both = compare_hash_dirs(*tree, *tree->find_hash_dir(config), flash_dir);
        QVERIFY(both->answer.ends_with("(FLASH_ATTN -> FLASHINFER); and 1 more factor"));

        // A batch outside every range.
        const auto lookup = lookup_shape(prefix, 9000);
        QCOMPARE(lookup.unserved_graphs.size(), std::size_t{2});
        QCOMPARE(lookup.answer, std::string("no compiled graph of backbone serves a batch of 9000 "
                                            "tokens (2 of 2 graphs): compiled are (1, 8192), (16, "
                                            "16)"));
        QCOMPARE(lookup_shape(prefix, 16).served[0]->shape.describe(), std::string("(16, 16)"));
        QCOMPARE(lookup_shape(prefix, 17).served[0]->shape.describe(), std::string("(1, 8192)"));

        // verify: names recomputed from the factors; a renamed dir is caught.
        auto verified = verify_serving_tree(*tree, {});
        QVERIFY_RESULT(verified);
        QVERIFY2(verified->clean(), problems_of(verified->report).c_str());
        QCOMPARE(verified->report.names_verified >= 3, true);
        fs::rename(root / flash, root / "0000000000");
        auto renamed_tree = read_serving_tree(root);
        auto renamed = verify_serving_tree(*renamed_tree, {});
        QVERIFY(has_problem(renamed->report, cachedir::ProblemKind::NameMismatch,
                            "hashes to " + flash + ", not to its name"));
        // Same factors under two names.
        auto twins = compare_hash_dirs(*renamed_tree, *renamed_tree->find_hash_dir("0000000000"),
                                       renamed_tree->find_hash_dir(infer));
        QVERIFY(twins->answer.find("VLLM_ATTENTION_BACKEND") != std::string::npos);
    }

    void noFactorsSaysItCannotTell() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        fixture::vllm_08(base, "1111111111");
        fixture::vllm_08(base, "2222222222");
        auto tree = read_serving_tree(base / "torch_compile_cache");
        auto why = compare_hash_dirs(*tree, tree->hash_dirs[1]);
        QVERIFY_RESULT(why);
        QVERIFY(!why->factors_recorded);
        QCOMPARE(why->answer, std::string("vLLM made 2222222222 rather than use 1111111111 because "
                                          "a factor of its hash changed, but neither dir has a "
                                          "cache_key_factors.json (vLLM before 0.12 records only "
                                          "their hash): which one cannot be told"));
        // Alone in its tree: nothing to compare with.
        QTemporaryDir single;
        const fs::path one = fixture::vllm_08(single.path().toStdString());
        auto alone = read_serving_tree(one);
        QVERIFY(!compare_hash_dirs(*alone, alone->hash_dirs[0]));
    }

    void aotAndSglangTrees() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        fixture::vllm_aot(root);
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        QCOMPARE(tree->hash_dirs.size(), std::size_t{2});
        QCOMPARE(tree->hash_dirs[1].kind, HashDir::Kind::Aot);
        QVERIFY(tree->hash_dirs[1].ranks[0].has_model);
        QVERIFY(describe_tree(*tree).find("1 AOT-compiled model") != std::string::npos);
        auto scan = cachedir::scan_cache_dir(root);
        QCOMPARE(unknown_files(*scan), std::size_t{0});
        QCOMPARE(scan->summary().at(cachedir::FileKind::Precompile).files, std::uint64_t{1});

        const fs::path sglang = fixture::sglang(base);
        auto sg = read_serving_tree(sglang);
        QVERIFY_RESULT(sg);
        QCOMPARE(sg->stack, Stack::Sglang);
        const auto& prefix = sg->hash_dirs[0].ranks[0].prefixes[0];
        QCOMPARE(prefix.index_file, std::string(kSglangIndexName));
        QCOMPARE(prefix.inductor_cache, std::string("0a1b2c3d4e/rank_0_0/backbone/inductor_cache"));
        QCOMPARE(read_piecewise_graphs(*sg, prefix).linked(), fixture::devset_graphs().size());
        auto sg_scan = cachedir::scan_cache_dir(sglang);
        QCOMPARE(unknown_files(*sg_scan), std::size_t{0});
        QCOMPARE(sg_scan->layout(), cachedir::RootLayout::Sglang);
        QVERIFY(describe_tree(*sg).starts_with("SGLang compile cache: 1 cache dir, 1 rank"));
        auto verified = verify_serving_tree(*sg, {});
        QVERIFY2(verified->clean(), problems_of(verified->report).c_str());
    }

    // ---- what vLLM logs to TORCH_TRACE ----

    void vllmTraceArtifacts() {
        // As trace_structured writes them (vllm/compilation/backends.py and
        // piecewise_backend.py): the config per backend, the split graph, one
        // event per piecewise compile.
        const std::string head = "V1127 10:00:00.000000 100 vllm/compilation/backends.py:600] ";
        std::string log =
            head +
            R"({"artifact": {"name": "vllm_compilation_config", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})" +
            "\n\t" +
            R"({"model": "meta-llama/Llama-3.1-8B", "prefix": "backbone", "mode": "VLLM_COMPILE", "backend": "inductor", "custom_ops": "none", "splitting_ops": "vllm::unified_attention", "cudagraph_mode": "FULL_AND_PIECEWISE", "compile_sizes": "", "compile_ranges_split_points": "8192", "use_inductor_graph_partition": false})" +
            "\n" + head +
            R"({"graph_dump": {"name": "vllm_piecewise_split_graph"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})" +
            "\n\tclass GraphModule(torch.nn.Module):\n\t    class submod_0(torch.nn.Module):\n"
            "\t        pass\n\t    class submod_2(torch.nn.Module):\n\t        pass\n";
        for (const auto& [start, end] :
             {std::pair{1, 8192}, std::pair{1, 8192}, std::pair{16, 16}}) {
            log +=
                head +
                R"({"artifact": {"name": "vllm_piecewise_compile_start", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})" +
                "\n\t{\"piecewise_index\": 0, \"submod_name\": \"submod_0\", "
                "\"total_piecewise_compiles\": 3, \"compile_range_start\": " +
                std::to_string(start) + ", \"compile_range_end\": " + std::to_string(end) +
                ", \"is_single_size\": " + (start == end ? "true" : "false") + "}\n";
        }
        log += head +
               R"({"artifact": {"name": "vllm_piecewise_compile_start", "encoding": "json"}})" +
               "\n\tnot json\n";
        auto parsed = trace::parse_trace_log(log, "vllm.log");
        QVERIFY_RESULT(parsed);
        QCOMPARE(parsed->vllm.size(), std::size_t{5});
        QCOMPARE(parsed->vllm[1].submodules, std::size_t{2});
        QCOMPARE(parsed->warnings.size(), std::size_t{1}); // the payload that is not JSON
        const auto lines = trace::describe_vllm(*parsed);
        QCOMPARE(lines.size(), std::size_t{3});
        QCOMPARE(lines[0], std::string("vLLM compilation config (prefix backbone): mode "
                                       "VLLM_COMPILE, backend inductor, "
                                       "compile_ranges_split_points 8192, cudagraph_mode "
                                       "FULL_AND_PIECEWISE, splitting_ops "
                                       "vllm::unified_attention"));
        QCOMPARE(lines[1], std::string("vLLM split the graph into 2 piecewise submodules "
                                       "(compile 0/0)"));
        QCOMPARE(lines[2], std::string("vLLM compiled 3 piecewise graphs: 2 for the range (1, "
                                       "8192), 1 for single sizes 16"));
        // The warm-start report carries them.
        QCOMPARE(trace::warm_start_report(*parsed, {}, false).vllm, lines);
    }

    // ---- prune: whole hash dirs ----

    void pruneGoesByWholeHashDirs() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string oldest = fixture::vllm_ranges(root, fixture::vllm_env("A"));
        const std::string older = fixture::vllm_ranges(root, fixture::vllm_env("B"));
        const std::string in_use = fixture::vllm_ranges(root, fixture::vllm_env("C"));
        const std::string fresh = fixture::vllm_ranges(root, fixture::vllm_env("D"));
        age_tree(root / oldest, 3 * 86400);
        age_tree(root / older, 2 * 86400);
        age_tree(root / in_use, 86400);
        // A process holding a file of one dir open: a server that loaded it.
        QProcess holder;
        holder.start("sh", {"-c", "exec 3<\"$0\" && echo ready && exec sleep 60",
                            QString::fromStdString((root / in_use /
                                                    "rank_0_0/backbone/"
                                                    "cache_key_factors.json")
                                                       .string())});
        QVERIFY(holder.waitForReadyRead(10000)); // the file is open once it says so
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        // Everything older than a day, and down to nothing by size: the fresh
        // dir and the one in use stay, and say why.
        ServingPruneOptions options;
        options.older_than_ns = std::int64_t{12} * 3600 * 1'000'000'000;
        options.max_size = 0;
        const auto plan = plan_serving_prune(*tree, options);
        QCOMPARE(plan.dirs.size(), std::size_t{2});
        QCOMPARE(plan.dirs[0].path, oldest); // least recently written first
        QCOMPARE(plan.dirs[1].path, older);
        QCOMPARE(plan.kept.size(), std::size_t{2});
        const auto kept_why = [&](const std::string& path) {
            for (const auto& kept : plan.kept) {
                if (kept.path == path) {
                    return kept.why;
                }
            }
            return std::string();
        };
        QVERIFY2(
            kept_why(in_use).starts_with("in use by pid " + std::to_string(holder.processId())),
            kept_why(in_use).c_str());
        QVERIFY(kept_why(fresh).starts_with("written "));
        QVERIFY(!plan.size_reached);
        // Written since the plan: kept.
        age_tree(root / older, 0);
        const auto outcome = run_serving_prune(*tree, plan);
        QCOMPARE(outcome.deleted, std::vector<std::string>{oldest});
        QCOMPARE(outcome.kept.size(), std::size_t{1});
        QCOMPARE(outcome.kept[0].why, std::string("written since the plan"));
        QVERIFY(!fs::exists(root / oldest));
        for (const auto& name : {older, in_use, fresh}) {
            QVERIFY(fs::exists(root / name / "rank_0_0/backbone/vllm_compile_cache.py"));
        }
        for (const auto& entry : fs::directory_iterator(root)) {
            QVERIFY2(!entry.path().filename().string().starts_with("."),
                     entry.path().c_str()); // no trash left behind
        }
        holder.kill();
        holder.waitForFinished();
    }

    // A compile writes into a planned hash dir after prune's last check of
    // it (forced at that step through test_seams.h): the dir, once moved out,
    // holds a write newer than the plan, and is put back whole. A serving
    // prune of an older cachelens killed mid-removal leaves a dir that goes
    // once a day old.
    void pruneRaceACompileWrittenAfterTheLastCheck() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const std::string old = fixture::vllm_ranges(root, fixture::vllm_env("A"));
        age_tree(root / old, 3 * 86400);
        const fs::path stale = root / ".cachelens-prune-4242-abcdef";
        const fs::path recent = root / ".cachelens-prune-4343-abcdef";
        for (const auto& leftover : {stale, recent}) {
            fs::create_directories(leftover / "rank_0_0");
            test::write_bytes(leftover / "rank_0_0" / "model.bin", "half removed");
        }
        for (const auto& [leftover, age_s] : {std::pair{stale, 2 * 86400L}, {recent, 3600L}}) {
            age_tree(leftover, age_s);
            const timespec when{::time(nullptr) - age_s, 0};
            const timespec times[2] = {when, when};
            QCOMPARE(::utimensat(AT_FDCWD, leftover.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
        }
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        ServingPruneOptions options;
        options.max_size = 0;
        const auto plan = plan_serving_prune(*tree, options);
        QCOMPARE(plan.dirs.size(), std::size_t{1});
        const fs::path written = root / old / "rank_0_0" / "backbone" / "new_artifact";
        struct SeamReset {
            ~SeamReset() { test_seams::set_before_delete({}); }
        } reset;
        test_seams::set_before_delete([&](std::string_view name) {
            if (name == fs::path(old).filename().string() && !fs::exists(written)) {
                test::write_bytes(written, "compiled just now");
            }
        });
        const auto outcome = run_serving_prune(*tree, plan);
        test_seams::set_before_delete({});
        QVERIFY(outcome.deleted.empty());
        QCOMPARE(outcome.kept.size(), std::size_t{1});
        QCOMPARE(outcome.kept[0].why, std::string("written since the plan"));
        QVERIFY(outcome.errors.empty());
        QCOMPARE(test::read_file(written), QByteArray("compiled just now"));
        QVERIFY(fs::exists(root / old / "rank_0_0/backbone/vllm_compile_cache.py"));
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(recent / "rank_0_0" / "model.bin"));
        for (const auto& entry : fs::directory_iterator(root)) {
            QVERIFY2(!entry.path().filename().string().starts_with(".cachelens-trash-"),
                     entry.path().c_str());
        }
    }

    // ---- hostile trees ----

    void hostileIndexIsNeverFollowed() {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "torch_compile_cache";
        const fs::path prefix = root / "abcdef0123/rank_0_0/backbone";
        // A secret beside the tree that a followed handle would reach.
        test::write_bytes(fs::path(dir.path().toStdString()) / "secret", "secret");
        test::write_bytes(prefix / "vllm_compile_cache.py",
                          "{((1, 8), 0, 'inductor_standalone'): ('../../../../secret', "
                          "'/etc/passwd'), ((1, 8), 1, 'inductor_standalone'): "
                          "('artifact_compile_range_1_8_subgraph_1', '/x/secret')}");
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        const auto graphs =
            read_piecewise_graphs(*tree, tree->hash_dirs[0].ranks[0].prefixes[0], true);
        QCOMPARE(graphs.graphs[0].problem,
                 std::string("its handle names '../../../../secret', which is no artifact name "
                             "vLLM writes: never followed"));
        QVERIFY(graphs.graphs[0].found_path.empty());
        QVERIFY(graphs.graphs[1].problem.find("vLLM would load another file") != std::string::npos);
        auto verified = verify_serving_tree(*tree, {});
        QCOMPARE(verified->report.problems.size(), std::size_t{2});
    }

    void hostileArtifactAndLinks() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const fs::path prefix = root / hash / "rank_0_0/backbone";
        // Code with findings inside an artifact's bundle.
        const auto hostile = test::wrapperRunning("import os; os.system('id')");
        const std::string bundle =
            bundle::encode_mega_cache(test::one_artifact("inductor", hostile.key, hostile.content));
        test::write_bytes(prefix / "artifact_compile_range_1_8192_subgraph_0",
                          fixture::binary_artifact(bundle));
        // A symlink out of the tree.
        fs::create_symlink("/etc", prefix / "outside");
        auto tree = read_serving_tree(root);
        auto verified = verify_serving_tree(*tree, {});
        QVERIFY_RESULT(verified);
        QVERIFY(!verified->clean());
        const auto refused =
            std::ranges::find_if(verified->code, [](const bundle::FileVerdict& file) {
                return file.check.verdict == safety::Verdict::CodeWithFindings;
            });
        QVERIFY(refused != verified->code.end());
        QCOMPARE(refused->path,
                 hash + "/rank_0_0/backbone/artifact_compile_range_1_8192_subgraph_0");
        QVERIFY(refused->check.findings.front().text.find("os.system") != std::string::npos);
        QVERIFY(has_problem(verified->report, cachedir::ProblemKind::Unsafe, "a symlink"));
        // An index that does not parse.
        test::write_bytes(prefix / "vllm_compile_cache.py", "{(None, 0, 'inductor'): ");
        auto broken_tree = read_serving_tree(root);
        auto broken = verify_serving_tree(*broken_tree, {});
        QVERIFY(has_problem(broken->report, cachedir::ProblemKind::ParseError,
                            "ast.literal_eval fails on it"));
    }
};

QTEST_GUILESS_MAIN(TestServing)
#include "tst_serving.moc"
