#pragma once

// Dynamo's precompiled functions (docs/FORMATS.md §4): what
// torch.compiler.save_compiled_function writes (vLLM keeps these as
// torch_aot_compile/<hash>/rank_<r>_<dp>/model) and what the DynamoCache
// keeps under <cache dir>/dynamo/<key>/ (`entry`; PyTorch 2.9 wrote `dynamo`
// and `backends`). Each holds Dynamo's transformed bytecode, the compiled
// graphs themselves (bundled, never looked up in fxgraph/), the guards as a
// nested pickle, the source spans it checks on load and the machine it was
// compiled for. All of it is decoded by the safe unpickler and kept as data:
// nothing is imported, built or run.
//
// The layout is told from the pickle's own keys and class names, never
// from a version number: the file does not record which PyTorch wrote it
// until SystemInfo (2.10), and then only in a field of the pickle.

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/core/error.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/pickle/value.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::cachedir {

enum class PrecompileLayout : std::uint8_t {
    AotFunction,      // save_compiled_function, 2.11: CompileArtifacts with runtime_env
    AotFunctionFlat,  // the same, 2.10: bytecode, import_sources, closure at the top
    AotFunctionEarly, // the same, 2.9: no source_info, no system_info (nothing checked)
    AotModel,         // AOTCompiledModel.serialize: a list of function payloads
    DynamoCacheEntry, // dynamo/<key>/entry: PrecompileCacheEntry (2.10 on)
    DynamoCacheSplit, // dynamo/<key>/dynamo + backends (2.9)
};

// "save_compiled_function (PyTorch 2.11)", "DynamoCache entry (PyTorch 2.10+)", ...
std::string_view to_string(PrecompileLayout layout);

// The b"PT2AOT" + version byte PyTorch after 2.11 writes before the pickle.
inline constexpr std::string_view kPt2AotMagic = "PT2AOT";
inline constexpr int kPt2AotVersion = 1;

// SystemInfo: the machine the function was compiled on, as PyTorch checks it
// on load (check_compatibility). Empty fields were not recorded.
struct PrecompileSystem {
    std::string python_version;
    std::string torch_version;
    std::string toolkit_version; // CUDA or XPU (2.10: cuda_version)
    std::string triton_version;  // "3.6": (major, minor)
    std::string gpu_name;
    bool recorded = false; // false: the layout has no SystemInfo
};

// One code object as SerializedCode keeps it: fields only.
struct PrecompileCode {
    std::string role; // "runs on every call", "original function (not run)", ...
    bool runs = false;
    std::string qualname;
    std::string file;
    std::int64_t first_line = 0;
    // co_names of it and of every code object nested in its constants.
    std::vector<std::string_view> names;
    std::size_t bytecode_bytes = 0;
};

// A graph PyTorch compiled, carried inside the backend.
struct BundledGraph {
    std::string role;         // forward, backward
    std::string cache_key;    // CompiledFxGraph.cache_key: the module's code_hash
    std::string fx_graph_key; // its key in the FX graph cache, when it went through one
    std::string_view source_code;
    bool key_matches = false; // cache_key == code_hash(source_code.strip())
};

struct PrecompileBackend {
    std::string id;   // __compiled_fn_<n>_<uuid>: the global the bytecode calls
    std::string kind; // "Inductor (bundled AOTAutograd)", "eager GraphModule", "vLLM", ...
    std::string class_name;
    bool present = false;
    std::vector<BundledGraph> graphs;
    // Modules PyTorch imports to find user Triton kernels (the 2.11 side table).
    std::vector<std::string> kernel_modules;
};

struct PrecompileGuard {
    std::string kind;              // TENSOR_MATCH, TYPE_MATCH, SHAPE_ENV, ...
    std::string source;            // L['self']._modules['fc1'], or empty
    std::vector<std::string> code; // the guard's code_list, as recorded
};

struct PrecompileInput {
    std::string name;
    std::string description; // "Tensor float32 [16, 32] stride [32, 1] on cuda:0"
};

// One GuardsState: what Dynamo checks before it runs a compiled code.
struct PrecompileGuards {
    std::string where; // "guards_state", "codes[0].guarded_codes[0]"
    std::vector<PrecompileInput> inputs;
    std::vector<PrecompileGuard> guards;
    std::vector<std::string> shape_guards;     // python_code_parts.exprs
    std::vector<std::string> cpp_shape_guards; // compiled with the host C++ compiler when set
    std::string global_state;                  // GlobalStateGuard's JSON
    std::vector<std::string> user_classes;     // classes of yours it names (__main__.MLP)
    std::string error;                         // why it could not be decoded, if it could not
};

// A function span PyTorch (the DynamoCache) and vLLM check against the
// source on load: sha256 of lines [first_line, last_line) of the module.
struct PrecompileSource {
    std::string module;
    std::int64_t first_line = 0;
    std::int64_t last_line = 0; // exclusive
    std::string checksum;
    std::string_view content;            // the whole module's source (2.10 on), or empty
    std::optional<bool> content_matches; // checksum against `content`'s own lines
};

struct PrecompileFunction {
    std::string qualname;
    std::string file;
    std::int64_t first_line = 0;
    std::string signature;     // "(x, y)"; empty when not recorded
    std::string python_module; // the module its globals come from (DynamoCache)
    std::vector<std::string> backend_ids;
    bool bypassed = false;
};

struct PrecompileFile {
    PrecompileLayout layout = PrecompileLayout::AotFunction;
    int header_version = 0; // the PT2AOT version byte; 0: no header
    std::vector<PrecompileFunction> functions;
    std::vector<PrecompileBackend> backends;
    std::vector<PrecompileGuards> guards;
    std::vector<PrecompileSource> sources;
    std::vector<PrecompileCode> codes;
    std::vector<std::pair<std::string, std::string>> imports; // alias -> module
    PrecompileSystem system;
    std::string device_type; // cuda, cpu, xpu
    std::string backend_name;
    std::string key;          // the DynamoCache dir's name
    std::string expected_key; // sha256(fn_name + str(first line)): what PyTorch looks up
    std::vector<std::string> external_data; // persistent ids: objects load needs handed in
    // What PyTorch would refuse on load, known from the file alone.
    std::vector<std::string> problems;
    // The pickles: the file's own first, then every nested one (guards,
    // compiled backends), each with where it sits.
    std::vector<std::pair<std::string, std::shared_ptr<const pickle::Document>>> documents;
};

// True when the bytes are a precompiled function or a DynamoCache entry: a
// PT2AOT header, or a pickle whose top names a precompile class or is
// CompileArtifacts' dict. Cheap: reads the first kilobytes only.
bool looks_like_precompile(std::string_view bytes);

// Reads one precompile file (a save_compiled_function file, a DynamoCache
// `entry`, or a 2.9 `dynamo` file whose backends sit beside it as
// `backends_bytes`). Errors say what it is not.
Result<PrecompileFile> read_precompile(std::string_view bytes, std::shared_ptr<const void> keep,
                                       std::string_view backends_bytes = {});

// A file; errors name it.
Result<PrecompileFile> read_precompile_file(const std::filesystem::path& path);

// A DynamoCache dir dynamo/<key>/ of the cache dir `root`, or a
// save_compiled_function file there (vLLM's torch_aot_compile/<hash>/rank_*/model).
Result<PrecompileFile> read_precompile_dir(const std::filesystem::path& root, const Entry& entry);

// The DynamoCache key of a function: sha256(qualname + str(first line)).
std::string dynamo_cache_key(std::string_view qualname, std::int64_t first_line);

// PyTorch's checksum of lines [first, last) of `source`.
std::string source_span_checksum(std::string_view source, std::int64_t first, std::int64_t last);

// Each checked span against the user's checkout: the module found under
// `source_dir` (a/b/c.py or a/b/c/__init__.py, also below src/), its span
// hashed as PyTorch hashes it.
struct SourceCheck {
    const PrecompileSource* source = nullptr;
    std::string path; // the file read, relative to source_dir; empty when none
    enum class Status : std::uint8_t { Same, Changed, Missing } status = Status::Missing;
    // PyTorch's words when it would reject the file, else what was found.
    std::string text;
};
std::vector<SourceCheck> check_sources_against(const PrecompileFile& file,
                                               const std::filesystem::path& source_dir);

// The answer, in one line: "1 of 2 checked spans changed: PyTorch's
// DynamoCache and vLLM reject this file and compile again", "all 2 checked
// spans are unchanged", or that nothing of the user's source is checked.
std::string source_checks_answer(std::span<const SourceCheck> checks);

} // namespace cachelens::cachedir
