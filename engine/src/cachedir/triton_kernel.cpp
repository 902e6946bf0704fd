#include <cachelens/cachedir/triton_kernel.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/text.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace cachelens::cachedir {

namespace {

using Json = nlohmann::json;

std::optional<std::int64_t> int_field(const Json& json, const char* key) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) {
        return std::nullopt;
    }
    return it->get<std::int64_t>();
}

// A PTX line without surrounding space, and without the ',' that separates
// .entry parameters.
bool bool_field(const Json& json, const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_boolean() && it->get<bool>();
}

std::string_view trim(std::string_view s) {
    s = trim_space(s);
    if (s.ends_with(',')) {
        s.remove_suffix(1);
    }
    return trim_space(s);
}

// The size of a PTX scalar type (".u64" -> 8), 0 for a word that is not one.
std::uint32_t bytes_of_ptx_type(std::string_view type) {
    static constexpr std::pair<std::string_view, std::uint32_t> kTypes[] = {
        {".b8", 1},   {".b16", 2},    {".b32", 4}, {".b64", 8}, {".b128", 16},
        {".u8", 1},   {".u16", 2},    {".u32", 4}, {".u64", 8}, {".s8", 1},
        {".s16", 2},  {".s32", 4},    {".s64", 8}, {".f16", 2}, {".f16x2", 4},
        {".bf16", 2}, {".bf16x2", 4}, {".f32", 4}, {".f64", 8},
    };
    for (const auto& [name, bytes] : kTypes) {
        if (name == type) {
            return bytes;
        }
    }
    return 0;
}

} // namespace

Result<TritonMetadata> parse_triton_metadata(std::string_view text) {
    Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return fail(ErrorKind::Corrupt, "Triton metadata: not valid JSON");
    }
    if (!json.is_object()) {
        return fail(ErrorKind::Corrupt, "Triton metadata: expected a JSON object");
    }
    auto name = json.find("name");
    if (name == json.end() || !name->is_string()) {
        return fail(ErrorKind::Corrupt, "Triton metadata: no kernel \"name\"");
    }
    TritonMetadata meta;
    meta.name = name->get<std::string>();
    if (auto hash = json.find("hash"); hash != json.end() && hash->is_string()) {
        meta.hash = hash->get<std::string>();
    }
    meta.num_warps = int_field(json, "num_warps");
    meta.num_stages = int_field(json, "num_stages");
    meta.num_ctas = int_field(json, "num_ctas");
    meta.warp_size = int_field(json, "warp_size");
    meta.maxnreg = int_field(json, "maxnreg");
    meta.shared = int_field(json, "shared").value_or(0);
    meta.global_scratch_size = int_field(json, "global_scratch_size").value_or(0);
    meta.global_scratch_align = int_field(json, "global_scratch_align").value_or(1);
    meta.profile_scratch_size = int_field(json, "profile_scratch_size").value_or(0);
    meta.profile_scratch_align = int_field(json, "profile_scratch_align").value_or(1);
    meta.tmem_size = int_field(json, "tmem_size").value_or(0);
    // The target, as each Triton release writes it: {"backend", "arch",
    // "warp_size"} (3.0 on), ["cuda", 89] (2.2, 2.3), {"capability": 86}
    // beside "device_type" (2.1).
    const auto text_of = [](const Json& value) {
        return value.is_string() ? value.get<std::string>() : value.dump();
    };
    if (auto target = json.find("target"); target != json.end() && target->is_object()) {
        if (auto backend = target->find("backend");
            backend != target->end() && backend->is_string()) {
            meta.backend = backend->get<std::string>();
        }
        if (auto arch = target->find("arch"); arch != target->end()) {
            meta.arch = text_of(*arch);
        } else if (auto capability = target->find("capability");
                   capability != target->end() && !capability->is_null()) {
            meta.arch = text_of(*capability);
        }
        if (!meta.warp_size) {
            meta.warp_size = int_field(*target, "warp_size");
        }
    } else if (target != json.end() && target->is_array() && target->size() == 2 &&
               (*target)[0].is_string()) {
        meta.backend = (*target)[0].get<std::string>();
        meta.arch = text_of((*target)[1]);
    }
    if (meta.backend.empty() && !meta.arch.empty()) {
        auto device_type = json.find("device_type");
        meta.backend = device_type != json.end() && device_type->is_string()
                           ? device_type->get<std::string>()
                           : (meta.arch.starts_with("gfx") ? "hip" : "cuda");
    }
    if (auto version = json.find("triton_version"); version != json.end() && version->is_string()) {
        meta.triton_version = version->get<std::string>();
    }
    meta.launch_pdl = bool_field(json, "launch_pdl");
    meta.launch_cooperative_grid = bool_field(json, "launch_cooperative_grid");
    for (const auto& [key, value] : json.items()) {
        meta.keys.push_back(key);
    }
    std::sort(meta.keys.begin(), meta.keys.end());
    return meta;
}

Result<PtxInfo> parse_ptx(std::string_view ptx) {
    PtxInfo info;
    bool in_params = false;
    bool saw_entry = false;
    std::size_t line_start = 0;
    while (line_start < ptx.size()) {
        std::size_t line_end = ptx.find('\n', line_start);
        if (line_end == std::string_view::npos) {
            line_end = ptx.size();
        }
        const std::string_view line = trim(ptx.substr(line_start, line_end - line_start));
        line_start = line_end + 1;
        if (line.starts_with(".version ")) {
            info.version = std::string(trim(line.substr(9)));
        } else if (line.starts_with(".target ")) {
            info.target = std::string(trim(line.substr(8)));
        } else if (!saw_entry && line.find(".entry ") != std::string_view::npos) {
            saw_entry = true;
            std::string_view rest = line.substr(line.find(".entry ") + 7);
            info.entry = std::string(trim(rest.substr(0, rest.find('('))));
            in_params = rest.find('(') != std::string_view::npos &&
                        rest.find(')') == std::string_view::npos;
        } else if (in_params) {
            if (line.starts_with(")")) {
                in_params = false;
            } else if (line.starts_with(".param ")) {
                PtxParameter param;
                std::string_view words = line.substr(7);
                while (!words.empty()) {
                    const auto space = words.find_first_of(" \t");
                    const std::string_view word = words.substr(0, space);
                    if (word == ".ptr") {
                        param.pointer = true;
                    } else if (param.type.empty() && bytes_of_ptx_type(word) != 0) {
                        param.type = std::string(word);
                        param.bytes = bytes_of_ptx_type(word);
                    }
                    if (space == std::string_view::npos) {
                        break;
                    }
                    words = trim(words.substr(space + 1));
                }
                if (param.type.empty()) {
                    return fail(ErrorKind::Corrupt, "PTX: .entry parameter without a known "
                                                    "type: " +
                                                        std::string(line.substr(0, 80)));
                }
                info.parameters.push_back(std::move(param));
            }
        } else if (line.starts_with(".reqntid ")) {
            std::uint32_t threads = 0;
            const std::string_view n = trim(line.substr(9));
            std::from_chars(n.data(), n.data() + n.size(), threads);
            info.reqntid = threads;
        } else if (line.starts_with(".file")) {
            // .file	1 "/path/to/module.py"
            const auto open = line.find('"');
            const auto close = line.rfind('"');
            std::size_t index = 0;
            const std::string_view number =
                trim(line.substr(5, open == std::string_view::npos ? 0 : open - 5));
            std::from_chars(number.data(), number.data() + number.size(), index);
            if (open != std::string_view::npos && close > open && index >= 1 && index < 4096) {
                if (info.files.size() < index) {
                    info.files.resize(index);
                }
                info.files[index - 1] = std::string(line.substr(open + 1, close - open - 1));
            }
        }
    }
    if (!saw_entry) {
        return fail(ErrorKind::Corrupt, "PTX: no .entry");
    }
    if (in_params) {
        return fail(ErrorKind::Truncated, "PTX: the .entry parameter list is not closed");
    }
    return info;
}

std::uint64_t TritonKernelDir::total_size() const {
    std::uint64_t total = 0;
    for (const auto& file : files) {
        total += file.size;
    }
    return total;
}

bool TritonKernelDir::has(std::string_view extension) const {
    return std::any_of(files.begin(), files.end(), [&](const TritonFile& file) {
        return file.name.ends_with(extension) && !is_triton_group_file_name(file.name);
    });
}

Result<TritonKernelDir> read_triton_kernel_dir(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    TritonKernelDir kernel;
    kernel.hash = dir.filename().string();
    const fs::path parent = dir.parent_path();
    if (parent.parent_path().filename() == "triton") {
        kernel.device = parent.filename().string();
    }
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        return fail(ErrorKind::Io, "cannot list the Triton kernel dir: " + ec.message(),
                    dir.string());
    }
    for (const auto& entry : it) {
        if (!entry.is_regular_file(ec)) {
            continue;
        }
        kernel.files.push_back({entry.path().filename().string(), entry.file_size(ec)});
    }
    std::sort(kernel.files.begin(), kernel.files.end(),
              [](const TritonFile& a, const TritonFile& b) { return a.name < b.name; });
    for (const auto& file : kernel.files) {
        const fs::path path = dir / file.name;
        if (file.name.ends_with(".json") && !is_triton_group_file_name(file.name)) {
            auto text = read_text_file(path);
            if (!text) {
                return std::unexpected(text.error());
            }
            auto meta = parse_triton_metadata(*text);
            if (!meta) {
                return std::unexpected(std::move(meta.error()).at(path.string()));
            }
            kernel.metadata = std::move(*meta);
        } else if (file.name.ends_with(".ptx")) {
            auto text = read_text_file(path);
            if (!text) {
                return std::unexpected(text.error());
            }
            auto ptx = parse_ptx(*text);
            if (!ptx) {
                return std::unexpected(std::move(ptx.error()).at(path.string()));
            }
            kernel.ptx = std::move(*ptx);
        }
    }
    if (kernel.metadata) {
        kernel.kernel_name = kernel.metadata->name;
    } else {
        for (const auto& file : kernel.files) {
            if (file.name.ends_with(".cubin")) {
                kernel.kernel_name = file.name.substr(0, file.name.size() - 6);
            }
        }
    }
    if (kernel.ptx && !kernel.ptx->files.empty()) {
        kernel.module_path = kernel.ptx->files.front();
        kernel.module_key = module_key_from_path(kernel.module_path);
    }
    const auto inductor = inductor_cache_of(parent);
    if (!kernel.module_key.empty() && inductor) {
        // Inductor writes a module as <cache dir>/<key[1:3]>/<key>.py.
        const std::string relative =
            kernel.module_key.substr(1, 2) + "/" + kernel.module_key + ".py";
        if (fs::is_regular_file(fs::symlink_status(*inductor / relative, ec))) {
            kernel.module_file = relative;
        }
    }
    return kernel;
}

std::optional<std::filesystem::path> inductor_cache_of(const std::filesystem::path& triton_dir) {
    const auto normal = triton_dir.lexically_normal();
    const auto dir = normal.has_filename() ? normal : normal.parent_path();
    if (dir.parent_path().filename() != "triton" || dir.filename().empty()) {
        return std::nullopt;
    }
    return dir.parent_path().parent_path();
}

std::optional<std::size_t> TritonAutotuneResult::best() const {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < timings.size(); ++i) {
        if (timings[i].milliseconds.empty()) {
            continue;
        }
        if (!best || timings[i].milliseconds.front() < timings[*best].milliseconds.front()) {
            best = i;
        }
    }
    return best;
}

Result<TritonAutotuneResult> parse_triton_autotune(std::string_view text) {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return fail(ErrorKind::Corrupt, "Triton autotune result: not a JSON object");
    }
    const auto timings = json.find("configs_timings");
    if (timings == json.end() || !timings->is_array()) {
        return fail(ErrorKind::Corrupt, "Triton autotune result: no \"configs_timings\" list");
    }
    TritonAutotuneResult result;
    if (const auto key = json.find("key"); key != json.end() && key->is_array()) {
        for (const auto& part : *key) {
            result.key.push_back(part.is_string() ? part.get<std::string>() : part.dump());
        }
    }
    for (const auto& pair : *timings) {
        // [config.__dict__, timing]: the timing is do_bench's list of quantiles
        // or, from a custom do_bench, one number.
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_object()) {
            return fail(ErrorKind::Corrupt, "Triton autotune result: configs_timings holds "
                                            "something other than [config, timing] pairs");
        }
        TritonAutotuneTiming timing;
        timing.config = pair[0].dump();
        const auto& ms = pair[1];
        if (ms.is_number()) {
            timing.milliseconds.push_back(ms.get<double>());
        } else if (ms.is_array()) {
            for (const auto& value : ms) {
                if (!value.is_number()) {
                    return fail(ErrorKind::Corrupt,
                                "Triton autotune result: a timing that is not a number");
                }
                timing.milliseconds.push_back(value.get<double>());
            }
        } else {
            return fail(ErrorKind::Corrupt,
                        "Triton autotune result: a timing that is not a number");
        }
        result.timings.push_back(std::move(timing));
    }
    return result;
}

TritonFileType triton_file_type(std::string_view name) {
    if (is_triton_group_file_name(name)) {
        return {"file group (JSON)", false};
    }
    static constexpr std::pair<std::string_view, TritonFileType> kTypes[] = {
        {".source", {"Triton IR (source)", false, 6}},
        {".ttir", {"Triton IR", false, 4}},
        {".ttgir", {"Triton GPU IR", false, 3}},
        {".llir", {"LLVM IR", false, 5}},
        {".ptx", {"PTX", false, 1}},
        {".cubin", {"cubin (binary)", true}},
        {".json", {"metadata (JSON)", false}},
        {".amdgcn", {"AMDGCN assembly", false, 2}},
        {".hsaco", {"HSA code object (binary)", true}},
        {".py", {"Python", false, 0, true}},
        {".so", {"shared library (binary)", true}},
        {".spv", {"SPIR-V (binary)", true}},
        {".o", {"object file (binary)", true}},
    };
    for (const auto& [suffix, type] : kTypes) {
        if (name.ends_with(suffix)) {
            return type;
        }
    }
    return {"file", false};
}

} // namespace cachelens::cachedir
