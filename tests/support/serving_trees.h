#pragma once

// vLLM and SGLang torch_compile_cache trees for the tests, laid out as each
// release writes them (docs/FORMATS.md §5; read from
// vllm/compilation/backends.py, compiler_interface.py and SGLang's
// srt/compilation/backend.py) around the real PyTorch 2.11 caches of the
// fixtures: the devset's Inductor cache as a rank's inductor_cache/, its
// Triton dirs as triton_cache/, its mega-cache bundle inside standalone
// compile's binary artifacts, a real precompiled function as the AOT model.
// Index files are written as pprint.PrettyPrinter(indent=4).pformat writes
// a dict (no trailing newline), factor files as json.dump(indent=2,
// sort_keys=True).

#include "test_paths.h"

#include <cachelens/bundle/compiled_artifact.h>
#include <cachelens/bundle/mega_cache.h>
#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_content.h>
#include <cachelens/serving/cache_factors.h>

#include <QtGlobal>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cachelens::test {

namespace serving_fixture {

namespace fs = std::filesystem;

// Every file under `dir`, relative path -> bytes: two trees compared whole.
inline std::map<std::string, std::string> tree_bytes(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file()) {
            out[entry.path().lexically_relative(dir).generic_string()] = read_bytes(entry.path());
        }
    }
    return out;
}

// One key and handle of an index, as Python's repr writes them.
struct IndexLine {
    std::string key;    // "(None, 0, 'inductor')", "((1, 8192), 0, 'inductor_standalone')"
    std::string handle; // "('f...', '/abs/path')" or "None"
};

// pprint.pformat(dict, indent=4) of short keys whose handles wrap: the
// shape of a real vllm_compile_cache.py.
inline std::string pprint_index(const std::vector<IndexLine>& lines) {
    if (lines.empty()) {
        return "{}";
    }
    std::string out = "{";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& [key, handle] = lines[i];
        out += (i == 0 ? "   " : "    ") + key + ": ";
        if (handle == "None") {
            out += "None";
        } else {
            // "('a', 'b')" -> "(   'a',\n<indent>'b')"
            const auto comma = handle.find("', '");
            const std::string indent(4 + key.size() + 2 + 4, ' ');
            out += "(   " + handle.substr(1, comma + 1 - 1) + ",\n" + indent +
                   handle.substr(comma + 3);
        }
        out += i + 1 == lines.size() ? "}" : ",\n";
    }
    return out;
}

inline std::string quoted(const std::string& text) {
    return "'" + text + "'";
}

// The devset's FX graphs: key, and the wrapper module ("<xx>/c<hash>.py").
struct FxGraph {
    std::string key;
    std::string module;
};
inline std::vector<FxGraph> devset_graphs() {
    const fs::path cache = fixture("devset/cache");
    auto scan = cachedir::scan_cache_dir(cache);
    if (!scan) {
        qFatal("cannot scan the devset: %s", scan.error().describe().c_str());
    }
    std::vector<FxGraph> graphs;
    for (const auto& entry : scan->entries()) {
        if (entry.kind != cachedir::FileKind::FxGraph) {
            continue;
        }
        auto loaded = cachedir::load_entry(cache, entry);
        if (!loaded) {
            qFatal("devset entry: %s", loaded.error().describe().c_str());
        }
        const auto& fx = std::get<cachedir::FxGraphEntry>(*loaded);
        graphs.push_back({entry.key, fx.cache_key.substr(1, 2) + "/" + fx.cache_key + ".py"});
    }
    return graphs;
}

// A standalone-compile binary artifact holding the devset's mega bundle (or
// `bundle` when given), as CompiledArtifact.save(format="binary") writes it.
inline std::string binary_artifact(std::string bundle = {}) {
    if (bundle.empty()) {
        bundle = read_bytes(fixture("devset/mega_mlp_train.bin"));
    }
    const std::string torch_key(32, '\x5a');
    return bundle::encode_compiled_artifact(
        torch_key, "a7yjz2q5ysc3gnubmrxbzymjswgr7rzvekhtmk5utjcqvb2gugvl", bundle);
}

// cache_key_factors.json as vLLM writes it; `env` values are JSON text.
inline std::string factors_json(const std::map<std::string, std::string>& env,
                                const std::string& config_hash = "84b7dc96bd",
                                const std::string& code_hash = std::string(64, 'c'),
                                const std::string& compiler_hash = "a92dbc9a80") {
    std::string out = "{\n  \"code_hash\": \"" + code_hash + "\",\n  \"compiler_hash\": \"" +
                      compiler_hash + "\",\n  \"config_hash\": \"" + config_hash +
                      "\",\n  \"env\": {";
    std::size_t i = 0;
    for (const auto& [name, value] : env) {
        out += (i++ == 0 ? "\n" : ",\n") + std::string("    \"") + name + "\": " + value;
    }
    out += env.empty() ? "}\n}" : "\n  }\n}";
    return out;
}

// The dir name vLLM >= 0.12 gives those factors.
inline std::string hash_dir_of(const std::string& factors_text) {
    auto factors = serving::parse_cache_key_factors(factors_text);
    if (!factors) {
        qFatal("factors: %s", factors.error().describe().c_str());
    }
    return *serving::recompute_hash_dir_name(*factors);
}

inline void copy_devset_caches(const fs::path& rank_dir) {
    copy_tree(fixture("devset/cache"), rank_dir / "inductor_cache");
    fs::remove_all(rank_dir / "inductor_cache" / "triton");
    copy_tree(fixture("devset/cache/triton/0"), rank_dir / "triton_cache");
}

inline std::string split_graph_text() {
    return "from __future__ import annotations\nimport torch\nclass GraphModule(torch.nn.Module):\n"
           "    def forward(self, s0: \"Sym(s0)\", L_input_ids_: \"i32[s0]\"):\n        pass\n";
}

// vLLM 0.8: no prefix level; the Inductor adaptor; every graph at the general shape.
inline fs::path vllm_08(const fs::path& dir, const std::string& hash = "d4ec7c2a7d") {
    const fs::path root = dir / "torch_compile_cache";
    const fs::path rank = root / hash / "rank_0_0";
    copy_devset_caches(rank);
    std::vector<IndexLine> lines;
    int index = 0;
    for (const auto& graph : devset_graphs()) {
        lines.push_back({"(None, " + std::to_string(index++) + ", 'inductor')",
                         "(" + quoted(graph.key) + ", " +
                             quoted("/home/vllm/.cache/vllm/torch_compile_cache/" + hash +
                                    "/rank_0_0/inductor_cache/" + graph.module) +
                             ")"});
    }
    write_bytes(rank / "vllm_compile_cache.py", pprint_index(lines));
    write_bytes(rank / "computation_graph.py", split_graph_text());
    write_bytes(rank / "transformed_code.py", "def forward(self, input_ids):\n    pass\n");
    return root;
}

// vLLM 0.6.5-0.6.6: rank_<r> without the data-parallel rank, and
// inductor_hash_cache.py, a pprint'ed list of (shape, graph index, FX key)
// with no module path; the general shape and size 8.
inline fs::path vllm_065(const fs::path& dir, const std::string& hash = "9f3e1c0b2a") {
    const fs::path root = dir / "torch_compile_cache";
    const fs::path rank = root / hash / "rank_0";
    copy_devset_caches(rank);
    std::string text = "[";
    const auto graphs = devset_graphs();
    for (const std::string shape : {"None", "8"}) {
        for (std::size_t i = 0; i < graphs.size(); ++i) {
            text += std::string(text.size() == 1 ? "   " : ",\n    ") + "(" + shape + ", " +
                    std::to_string(i) + ", " + quoted(graphs[i].key) + ")";
        }
    }
    write_bytes(rank / "inductor_hash_cache.py", text + "]");
    return root;
}

// 2026 vLLM main: keys by the sha256 of each piece's graph instead of its
// position, standalone artifacts still named by the position.
inline fs::path vllm_graph_hash(const fs::path& dir, const std::string& hash = "7c4d2e9a01") {
    const fs::path root = dir / "torch_compile_cache";
    const fs::path prefix = root / hash / "rank_0_0" / "backbone";
    const std::string artifact = binary_artifact();
    std::vector<IndexLine> lines;
    for (int graph = 0; graph < 2; ++graph) {
        const std::string graph_hash(64, graph == 0 ? 'a' : 'b');
        const std::string name = "artifact_compile_range_1_8192_subgraph_" + std::to_string(graph);
        write_bytes(prefix / name, artifact);
        lines.push_back({"((1, 8192), " + quoted(graph_hash) + ", 'inductor_standalone')",
                         "(" + quoted(name) + ", " + quoted((prefix / name).string()) + ")"});
    }
    write_bytes(prefix / "vllm_compile_cache.py", pprint_index(lines));
    write_bytes(prefix / "computation_graph.py", split_graph_text());
    return root;
}

// vLLM 0.9-0.11 with the Inductor adaptor: prefix dirs (backbone, eagle_head),
// sizes and the general shape, caches shared by the rank's prefixes; two ranks.
inline fs::path vllm_09(const fs::path& dir, const std::string& hash = "64625fd5e0") {
    const fs::path root = dir / "torch_compile_cache";
    const auto graphs = devset_graphs();
    for (const std::string rank_name : {"rank_0_0", "rank_1_0"}) {
        const fs::path rank = root / hash / rank_name;
        copy_devset_caches(rank);
        for (const std::string prefix : {"backbone", "eagle_head"}) {
            std::vector<IndexLine> lines;
            for (std::size_t i = 0; i < 3 && i < graphs.size(); ++i) {
                for (const std::string shape : {"None", "8"}) {
                    lines.push_back(
                        {"(" + shape + ", " + std::to_string(i) + ", 'inductor')",
                         "(" + quoted(graphs[i].key) + ", " +
                             quoted((rank / "inductor_cache" / graphs[i].module).string()) + ")"});
                }
            }
            write_bytes(rank / prefix / "vllm_compile_cache.py", pprint_index(lines));
            write_bytes(rank / prefix / "computation_graph.py", split_graph_text());
        }
    }
    return root;
}

// vLLM 0.10.2-0.11 with standalone compile: artifact_shape_* binary files
// in the prefix dir, no inner caches.
inline fs::path vllm_standalone_shapes(const fs::path& dir,
                                       const std::string& hash = "5d1f0e2b7a") {
    const fs::path root = dir / "torch_compile_cache";
    const fs::path prefix = root / hash / "rank_0_0" / "backbone";
    const std::string artifact = binary_artifact();
    std::vector<IndexLine> lines;
    for (const std::string shape : {"None", "16"}) {
        for (int graph = 0; graph < 2; ++graph) {
            const std::string name =
                "artifact_shape_" + shape + "_subgraph_" + std::to_string(graph);
            write_bytes(prefix / name, artifact);
            lines.push_back(
                {"(" + shape + ", " + std::to_string(graph) + ", 'inductor_standalone')",
                 "(" + quoted(name) + ", " +
                     quoted("/root/.cache/vllm/torch_compile_cache/" + hash +
                            "/rank_0_0/backbone/" + name) +
                     ")"});
        }
    }
    write_bytes(prefix / "vllm_compile_cache.py", pprint_index(lines));
    write_bytes(prefix / "computation_graph.py", split_graph_text());
    return root;
}

// vLLM >= 0.13: compile ranges, cache_key_factors.json, binary artifacts (one
// graph unpacked), the dir named by its factors. Returns the hash dir's name.
inline std::string vllm_ranges(const fs::path& root, const std::map<std::string, std::string>& env,
                               const std::string& config_hash = "84b7dc96bd") {
    const std::string factors = factors_json(env, config_hash);
    const std::string hash = hash_dir_of(factors);
    const fs::path prefix = root / hash / "rank_0_0" / "backbone";
    const std::string artifact = binary_artifact();
    std::vector<IndexLine> lines;
    for (int graph = 0; graph < 2; ++graph) {
        for (const auto& [start, end] : {std::pair{1, 8192}, std::pair{16, 16}}) {
            const std::string name = "artifact_compile_range_" + std::to_string(start) + "_" +
                                     std::to_string(end) + "_subgraph_" + std::to_string(graph);
            if (graph == 1 && start == 16) {
                copy_tree(fixture("devset/cache"), prefix / name); // format="unpacked"
            } else {
                write_bytes(prefix / name, artifact);
            }
            lines.push_back({"((" + std::to_string(start) + ", " + std::to_string(end) + "), " +
                                 std::to_string(graph) + ", 'inductor_standalone')",
                             "(" + quoted(name) + ", " + quoted((prefix / name).string()) + ")"});
        }
    }
    write_bytes(prefix / "vllm_compile_cache.py", pprint_index(lines));
    write_bytes(prefix / "cache_key_factors.json", factors);
    write_bytes(prefix / "computation_graph.py", split_graph_text());
    return hash;
}

// The env a vLLM 0.13 run records (a few of its factors).
inline std::map<std::string, std::string> vllm_env(const std::string& attention_backend) {
    return {{"VLLM_ATTENTION_BACKEND", "\"" + attention_backend + "\""},
            {"VLLM_FUSED_MOE_CHUNK_SIZE", "32768"},
            {"VLLM_USE_STANDALONE_COMPILE", "true"},
            {"VLLM_DP_SIZE", "1"},
            {"VLLM_PP_LAYER_PARTITION", "null"}};
}

// vLLM's AOT compile: torch_compile_cache/torch_aot_compile/<sha256>/rank_0_0/model,
// a real save_compiled_function file.
inline fs::path vllm_aot(const fs::path& root) {
    const fs::path dir = root / "torch_aot_compile" / std::string(64, 'e') / "rank_0_0";
    fs::create_directories(dir);
    copy_file_writable(real_fixture("precompile/fn.bin"), dir / "model");
    return dir;
}

// SGLang: ~/.cache/sglang/torch_compile_cache/<hash>/rank_0_0/backbone/ with
// its index, a timestamped split graph and its own inner caches.
inline fs::path sglang(const fs::path& dir, const std::string& hash = "0a1b2c3d4e") {
    const fs::path root = dir / "sglang" / "torch_compile_cache";
    const fs::path prefix = root / hash / "rank_0_0" / "backbone";
    copy_devset_caches(prefix);
    std::vector<IndexLine> lines;
    int index = 0;
    for (const auto& graph : devset_graphs()) {
        lines.push_back({"(None, " + std::to_string(index++) + ", 'inductor')",
                         "(" + quoted(graph.key) + ", " +
                             quoted((prefix / "inductor_cache" / graph.module).string()) + ")"});
    }
    write_bytes(prefix / "sglang_compile_cache.py", pprint_index(lines));
    write_bytes(prefix / "computation_graph_1764246512.3312.py", split_graph_text());
    return root;
}

} // namespace serving_fixture

} // namespace cachelens::test
