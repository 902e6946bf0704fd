#include <cachelens/core/format.h>
#include <cachelens/pt2/pt2_archive.h>

#include <nlohmann/json.hpp>
#include <unzip.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace cachelens::pt2 {

namespace {

// --- minizip over bytes in memory -------------------------------------------

struct Cursor {
    std::string_view data;
    std::uint64_t position = 0;
};

voidpf ZCALLBACK memory_open(voidpf opaque, const void*, int) {
    return new Cursor{*static_cast<const std::string_view*>(opaque), 0};
}

uLong ZCALLBACK memory_read(voidpf, voidpf stream, void* buffer, uLong size) {
    auto* cursor = static_cast<Cursor*>(stream);
    if (cursor->position >= cursor->data.size()) {
        return 0;
    }
    const auto count =
        static_cast<uLong>(std::min<std::uint64_t>(size, cursor->data.size() - cursor->position));
    std::memcpy(buffer, cursor->data.data() + cursor->position, count);
    cursor->position += count;
    return count;
}

uLong ZCALLBACK memory_write(voidpf, voidpf, const void*, uLong) {
    return 0; // read-only
}

ZPOS64_T ZCALLBACK memory_tell(voidpf, voidpf stream) {
    return static_cast<Cursor*>(stream)->position;
}

long ZCALLBACK memory_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
    auto* cursor = static_cast<Cursor*>(stream);
    std::uint64_t base = 0;
    switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET:
        base = 0;
        break;
    case ZLIB_FILEFUNC_SEEK_CUR:
        base = cursor->position;
        break;
    case ZLIB_FILEFUNC_SEEK_END:
        base = cursor->data.size();
        break;
    default:
        return -1;
    }
    if (offset > cursor->data.size() || base > cursor->data.size() - offset) {
        return -1;
    }
    cursor->position = base + offset;
    return 0;
}

int ZCALLBACK memory_close(voidpf, voidpf stream) {
    delete static_cast<Cursor*>(stream);
    return 0;
}

int ZCALLBACK memory_error(voidpf, voidpf) {
    return 0;
}

// An open zip over `bytes`, closed when it goes.
class Zip {
public:
    explicit Zip(std::string_view bytes)
        : bytes_(bytes) {
        zlib_filefunc64_def functions{};
        functions.zopen64_file = memory_open;
        functions.zread_file = memory_read;
        functions.zwrite_file = memory_write;
        functions.ztell64_file = memory_tell;
        functions.zseek64_file = memory_seek;
        functions.zclose_file = memory_close;
        functions.zerror_file = memory_error;
        functions.opaque = &bytes_;
        handle_ = unzOpen2_64("", &functions);
    }
    ~Zip() {
        if (handle_ != nullptr) {
            unzClose(handle_);
        }
    }
    Zip(const Zip&) = delete;
    Zip& operator=(const Zip&) = delete;

    unzFile get() const { return handle_; }
    explicit operator bool() const { return handle_ != nullptr; }

private:
    std::string_view bytes_; // must outlive handle_: minizip's opaque points at it
    unzFile handle_ = nullptr;
};

// --- names -------------------------------------------------------------------

std::vector<std::string_view> components(std::string_view name) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= name.size()) {
        const auto slash = std::min(name.find('/', start), name.size());
        parts.push_back(name.substr(start, slash - start));
        start = slash + 1;
    }
    return parts;
}

// Why extracting a member of this name would be unsafe (PyTorch's C++ loader
// writes each to <temp dir>/<name> without checking it).
void check_name(const std::string& name, std::vector<std::string>& problems) {
    if (name.empty()) {
        problems.push_back("an empty name");
        return;
    }
    if (name.find('\0') != std::string::npos) {
        problems.push_back("a NUL byte in its name: tools read the name differently");
    }
    if (name.front() == '/') {
        problems.push_back("an absolute path: extracted, it is written where the name says");
    }
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0]))) {
        problems.push_back("a drive letter: extracted on Windows, it leaves the extraction dir");
    }
    if (name.find('\\') != std::string::npos) {
        problems.push_back("a backslash, which PyTorch's loader reads as a separator on Windows");
    }
    for (const auto part : components(name)) {
        if (part == "..") {
            problems.push_back("a '..' component: PyTorch's C++ loader extracts it outside its "
                               "temp dir (it joins the name to the dir unchecked)");
            break;
        }
    }
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.ends_with(suffix);
}

std::string file_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string trimmed(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

// --- the wrapper's constants_info_ -----------------------------------------

// "{64, 32}" -> {64, 32}
std::vector<std::int64_t> int_list(std::string_view text) {
    std::vector<std::int64_t> out;
    std::int64_t value = 0;
    bool digits = false;
    bool negative = false;
    for (const char c : text) {
        if (c >= '0' && c <= '9') {
            value = value * 10 + (c - '0');
            digits = true;
        } else if (c == '-') {
            negative = true;
        } else if (c == ',' || c == '}') {
            if (digits) {
                out.push_back(negative ? -value : value);
            }
            value = 0;
            digits = false;
            negative = false;
        }
    }
    return out;
}

// "8192" -> 8192; anything else -> 0.
std::uint64_t unsigned_value(std::string_view text) {
    const auto numbers = int_list(std::string(text) + "}");
    return numbers.size() == 1 && numbers[0] > 0 ? static_cast<std::uint64_t>(numbers[0]) : 0;
}

std::string unquoted(std::string_view text) {
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
        return std::string(text.substr(1, text.size() - 2));
    }
    return std::string(text);
}

// `cached_torch_dtype_float32` -> float32; `static_cast<int32_t>(...::Parameter)` -> Parameter.
std::string symbol_tail(std::string_view text, std::string_view prefix) {
    if (const auto at = text.find(prefix); at != std::string_view::npos) {
        auto tail = text.substr(at + prefix.size());
        while (!tail.empty() && tail.back() == ')') {
            tail.remove_suffix(1);
        }
        return std::string(tail);
    }
    if (const auto colons = text.rfind("::"); colons != std::string_view::npos) {
        auto tail = text.substr(colons + 2);
        while (!tail.empty() && tail.back() == ')') {
            tail.remove_suffix(1);
        }
        return std::string(tail);
    }
    return std::string(text);
}

// Reads `constants_info_[i].field = value;`, `inputs_info_[i].name = "...";`
// and `outputs_info_[i].name = "...";` lines of an AOTInductor wrapper.
void read_wrapper_info(std::string_view text, AotiModel& model) {
    std::size_t at = 0;
    while ((at = text.find("_info_[", at)) != std::string_view::npos) {
        const auto line_start = text.rfind('\n', at) + 1;
        const auto line_end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(line_start, line_end - line_start);
        at = line_end;
        const auto open = line.find("_info_[");
        const std::string_view table = line.substr(0, open);
        const auto close = line.find("].", open);
        const auto equals = line.find(" = ", close);
        const auto semicolon = line.rfind(';');
        if (close == std::string_view::npos || equals == std::string_view::npos ||
            semicolon == std::string_view::npos || semicolon < equals) {
            continue;
        }
        std::size_t index = 0;
        for (const char c : line.substr(open + 7, close - open - 7)) {
            if (c < '0' || c > '9' || index > 100'000) {
                index = SIZE_MAX;
                break;
            }
            index = index * 10 + static_cast<std::size_t>(c - '0');
        }
        if (index == SIZE_MAX) {
            continue;
        }
        const std::string_view field = line.substr(close + 2, equals - close - 2);
        const std::string_view value = line.substr(equals + 3, semicolon - equals - 3);
        const auto trimmed_table = table.substr(table.find_first_not_of(" \t"));
        if (trimmed_table == "inputs" || trimmed_table == "outputs") {
            auto& names = trimmed_table == "inputs" ? model.inputs : model.outputs;
            if (field == "name") {
                if (names.size() <= index) {
                    names.resize(index + 1);
                }
                names[index] = unquoted(value);
            }
            continue;
        }
        if (trimmed_table != "constants") {
            continue;
        }
        if (model.constants.size() <= index) {
            model.constants.resize(index + 1);
        }
        Constant& constant = model.constants[index];
        if (field == "name") {
            constant.name = unquoted(value);
        } else if (field == "original_fqn") {
            constant.original_fqn = unquoted(value);
        } else if (field == "dtype") {
            constant.dtype = symbol_tail(value, "cached_torch_dtype_");
        } else if (field == "device_type") {
            constant.device = symbol_tail(value, "cached_torch_device_type_");
        } else if (field == "shape") {
            constant.shape = int_list(value);
        } else if (field == "stride") {
            constant.stride = int_list(value);
        } else if (field == "data_size") {
            constant.data_size = unsigned_value(value);
        } else if (field == "offset") {
            constant.offset = unsigned_value(value);
        } else if (field == "from_folded") {
            constant.from_folded = value == "true";
        } else if (field == "type") {
            constant.type = symbol_tail(value, "ConstantType::");
        }
    }
}

// --- models ------------------------------------------------------------------

bool is_kernel_binary(std::string_view name) {
    return ends_with(name, ".cubin") || ends_with(name, ".hsaco") || ends_with(name, ".spv") ||
           ends_with(name, ".fatbin") || ends_with(name, ".zebin");
}

constexpr std::string_view kAotiDir = "data/aotinductor/";

void read_models(Archive& archive, const Limits& limits) {
    std::map<std::string, std::vector<MemberIndex>> by_model;
    for (MemberIndex i = 0; i < archive.members.size(); ++i) {
        const std::string& path = archive.members[i].path;
        if (!path.starts_with(kAotiDir)) {
            continue;
        }
        const auto rest = std::string_view(path).substr(kAotiDir.size());
        const auto slash = rest.find('/');
        if (slash == std::string_view::npos || slash == 0) {
            continue;
        }
        by_model[std::string(rest.substr(0, slash))].push_back(i);
    }
    const ModelFiles access{
        .path_of = [&](MemberIndex i) -> const std::string& { return archive.members[i].path; },
        .read =
            [&](MemberIndex i) {
                return read_member(archive, archive.members[i], limits);
            }};
    for (auto& [name, indexes] : by_model) {
        archive.models.push_back(assemble_model(name, indexes, access, archive.problems));
    }
    // The loader matches a model's files by prefix with no '/': loading
    // "model" also takes "model2"'s.
    for (const auto& model : archive.models) {
        for (const auto& other : archive.models) {
            if (&model != &other && other.name.starts_with(model.name)) {
                archive.problems.push_back(
                    "models " + model.name + " and " + other.name +
                    ": PyTorch's loader matches a model's files by name prefix, so loading " +
                    model.name + " also extracts " + other.name +
                    "'s files, and the last .so wins");
            }
        }
    }
}

void read_layout(Archive& archive, const Limits& limits) {
    const auto& members = archive.members;
    if (members.empty()) {
        archive.problems.push_back("no members");
        return;
    }
    // PyTorchStreamReader takes the root from the first member's name.
    const std::string& first = members.front().name;
    const auto slash = first.find('/');
    if (slash != std::string::npos && slash > 0) {
        archive.root = first.substr(0, slash);
    }
    const std::string prefix = archive.root.empty() ? std::string() : archive.root + "/";
    for (auto& member : archive.members) {
        if (!prefix.empty() && member.name.starts_with(prefix)) {
            member.path = member.name.substr(prefix.size());
        } else {
            member.path = member.name;
            if (!prefix.empty()) {
                member.problems.push_back("outside the archive's root folder " + archive.root +
                                          "/: PyTorch's reader never sees it");
            }
        }
    }
    for (const std::string record : {"archive_format", "archive_version", ".data/version",
                                     "byteorder", ".data/serialization_id", "version"}) {
        if (const Member* member = archive.find(record);
            member != nullptr && member->size <= 4096) {
            if (auto text = read_member(archive, *member, limits)) {
                archive.records[record] = trimmed(*text);
            }
        }
    }
    const bool has_aoti =
        std::ranges::any_of(members, [](const Member& m) { return m.path.starts_with(kAotiDir); });
    if (!archive.root.empty() && archive.find("archive_format") != nullptr) {
        archive.layout = Layout::Archive;
    } else if (archive.root.empty() && archive.find("archive_format") != nullptr &&
               archive.find("version") != nullptr) {
        archive.layout = Layout::LegacyAoti;
    } else if (archive.root.empty() &&
               archive.find("serialized_exported_program.json") != nullptr) {
        archive.layout = Layout::LegacyExport;
    } else if (has_aoti) {
        archive.layout = archive.root.empty() ? Layout::LegacyAoti : Layout::Archive;
        archive.problems.push_back("no archive_format record: PyTorch's Python reader refuses "
                                   "it (Invalid archive format)");
    }
    if (archive.layout == Layout::Archive) {
        if (const auto format = archive.records.find("archive_format");
            format != archive.records.end() && format->second != "pt2") {
            archive.problems.push_back("archive_format is '" + format->second +
                                       "', not pt2: PyTorch refuses it (Invalid archive format)");
        }
        if (const auto version = archive.records.find("archive_version");
            version != archive.records.end() && version->second != "0") {
            archive.problems.push_back("Saved archive version " + version->second +
                                       " does not match our current archive version 0. "
                                       "(PyTorch refuses it)");
        }
    }
    for (MemberIndex i = 0; i < archive.members.size(); ++i) {
        const std::string& path = archive.members[i].path;
        if (path.starts_with("models/") && ends_with(path, ".json")) {
            archive.exported_programs.push_back(path.substr(7, path.size() - 12));
        } else if (path.starts_with("data/weights/")) {
            archive.weights.push_back(i);
        } else if (path.starts_with("data/constants/")) {
            archive.constants.push_back(i);
        } else if (path.starts_with("data/sample_inputs/")) {
            archive.sample_inputs.push_back(i);
        } else if (path.starts_with("extra/") || path.starts_with("extra_files/")) {
            archive.extra.push_back(i);
        }
    }
    if (archive.layout == Layout::LegacyExport) {
        archive.exported_programs.push_back("(serialized_exported_program.json)");
    }
    read_models(archive, limits);
}

// Opens the member at the current position; the caller closes it.
Result<std::string> read_current(unzFile zip, const Member& member, const Limits& limits) {
    if (member.size > limits.max_read) {
        return fail(ErrorKind::LimitExceeded, member.name + ": " + format_bytes(member.size) +
                                                  ", over the " + format_bytes(limits.max_read) +
                                                  " cachelens reads of one member");
    }
    if (member.method != 0 && member.method != 8) {
        return fail(ErrorKind::Unsupported, member.name + ": compression method " +
                                                std::to_string(member.method) +
                                                ", which PyTorch never writes");
    }
    if (unzOpenCurrentFile(zip) != UNZ_OK) {
        return fail(ErrorKind::Corrupt, member.name + ": its local header does not read");
    }
    std::string out(static_cast<std::size_t>(member.size), '\0');
    std::size_t filled = 0;
    while (true) {
        char spill[1];
        const auto room = out.size() - filled;
        const int got =
            room > 0
                ? unzReadCurrentFile(zip, out.data() + filled,
                                     static_cast<unsigned>(std::min<std::size_t>(room, 1u << 30)))
                : unzReadCurrentFile(zip, spill, 1);
        if (got < 0) {
            unzCloseCurrentFile(zip);
            return fail(ErrorKind::Corrupt, member.name +
                                                ": its data does not decompress (minizip error " +
                                                std::to_string(got) + ")");
        }
        if (got == 0) {
            break;
        }
        if (room == 0) {
            unzCloseCurrentFile(zip);
            return fail(ErrorKind::Corrupt,
                        member.name + ": more bytes than the central directory declares");
        }
        filled += static_cast<std::size_t>(got);
    }
    const int closed = unzCloseCurrentFile(zip);
    if (filled != out.size()) {
        return fail(ErrorKind::Corrupt, member.name + ": " + std::to_string(filled) +
                                            " bytes, where the central directory declares " +
                                            std::to_string(out.size()));
    }
    if (closed == UNZ_CRCERROR) {
        return fail(ErrorKind::Corrupt,
                    member.name + ": its bytes do not match the crc the archive records: it "
                                  "changed after it was written");
    }
    if (closed != UNZ_OK) {
        return fail(ErrorKind::Corrupt, member.name + ": minizip error " + std::to_string(closed));
    }
    return out;
}

// Reads the member at the current position through a small buffer, for its
// crc alone (minizip checks it when the member is closed).
std::string check_current(unzFile zip, const Member& member) {
    if (member.method != 0 && member.method != 8) {
        return "compression method " + std::to_string(member.method) +
               ", which PyTorch never writes";
    }
    if (unzOpenCurrentFile(zip) != UNZ_OK) {
        return "its local header does not read";
    }
    std::vector<char> buffer(std::size_t{1} << 20);
    std::uint64_t total = 0;
    while (true) {
        const int got =
            unzReadCurrentFile(zip, buffer.data(), static_cast<unsigned>(buffer.size()));
        if (got < 0) {
            unzCloseCurrentFile(zip);
            return "its data does not decompress (minizip error " + std::to_string(got) + ")";
        }
        if (got == 0) {
            break;
        }
        total += static_cast<std::uint64_t>(got);
        if (total > member.size) {
            unzCloseCurrentFile(zip);
            return "more bytes than the central directory declares";
        }
    }
    const int closed = unzCloseCurrentFile(zip);
    if (total != member.size) {
        return std::to_string(total) + " bytes, where the central directory declares " +
               std::to_string(member.size);
    }
    if (closed == UNZ_CRCERROR) {
        return "its bytes do not match the crc the archive records: it changed after it was "
               "written";
    }
    return closed == UNZ_OK ? std::string() : "minizip error " + std::to_string(closed);
}

Result<std::string> read_at(unzFile zip, const Member& member, const Limits& limits) {
    unz64_file_pos position{member.directory_offset, member.file_number};
    if (unzGoToFilePos64(zip, &position) != UNZ_OK) {
        return fail(ErrorKind::Corrupt, member.name + ": not found again in the central directory");
    }
    return read_current(zip, member, limits);
}

} // namespace

AotiModel assemble_model(std::string name, const std::vector<MemberIndex>& indexes,
                         const ModelFiles& access, std::vector<std::string>& problems) {
    AotiModel model;
    model.name = std::move(name);
    const std::string& label = model.name;
    std::optional<MemberIndex> last_cpp;
    for (const MemberIndex i : indexes) {
        const std::string file = file_name(access.path_of(i));
        if (ends_with(file, ".wrapper.cpp")) {
            model.wrapper_cpp = i;
            last_cpp = i;
        } else if (ends_with(file, ".kernel.cpp")) {
            model.kernel_cpp = i;
            last_cpp = i;
        } else if (ends_with(file, ".cpp")) {
            // Before the .wrapper/.kernel names (2.5-2.6): <hash>.cpp.
            if (!model.wrapper_cpp) {
                model.wrapper_cpp = i;
            }
            last_cpp = i;
        } else if (ends_with(file, ".so")) {
            if (model.library) {
                problems.push_back("model " + label +
                                   " has several .so files: PyTorch refuses to package it so, and "
                                   "its loader would take the last one");
            }
            model.library = i;
        } else if (is_kernel_binary(file)) {
            KernelBinary binary;
            binary.member = i;
            if (auto header = access.read(i)) {
                binary.sm = cubin_arch(*header);
            }
            model.kernels.push_back(binary);
        } else {
            model.other_files.push_back(i);
            if (ends_with(file, ".blob")) {
                model.weights_location = "in " + file + " (the model's weights blob)";
            } else if (file == "weights_config.json") {
                model.weights_location = "in data/weights/, as weights_config.json maps them";
            }
        }
    }
    // The C++ loader reads the metadata of the last .cpp it extracted.
    const auto metadata_of = [&](MemberIndex cpp) -> std::optional<MemberIndex> {
        std::string path = access.path_of(cpp);
        path = path.substr(0, path.size() - 4) + "_metadata.json";
        for (const MemberIndex i : indexes) {
            if (access.path_of(i) == path) {
                return i;
            }
        }
        return std::nullopt;
    };
    if (last_cpp) {
        model.metadata = metadata_of(*last_cpp);
    }
    if (!model.metadata) {
        for (const MemberIndex i : indexes) {
            if (ends_with(access.path_of(i), "_metadata.json")) {
                model.metadata = i;
            }
        }
    }
    if (model.metadata) {
        std::erase(model.other_files, *model.metadata);
        auto text = access.read(*model.metadata);
        const auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
        if (json.is_object()) {
            for (const auto& [key, value] : json.items()) {
                model.metadata_values[key] =
                    value.is_string() ? value.get<std::string>() : value.dump();
            }
        } else {
            problems.push_back("model " + label + ": " + access.path_of(*model.metadata) +
                               " is not a JSON object of metadata");
        }
    } else {
        problems.push_back(
            "model " + label +
            " has no *_metadata.json: PyTorch's loader fails on it (File not found)");
    }
    if (!model.wrapper_cpp && !model.library) {
        problems.push_back("Failed to find a generated cpp file or so file for model '" + label +
                           "' in the zip archive (PyTorch's loader says so and refuses it)");
    }
    if (model.wrapper_cpp) {
        if (auto text = access.read(*model.wrapper_cpp)) {
            read_wrapper_info(*text, model);
        }
    }
    if (model.weights_location.empty()) {
        model.weights_location = model.library
                                     ? "in the .so (its data section, PyTorch's default)"
                                     : "none packaged (a C++-only package builds them in)";
    }
    return model;
}

std::string_view to_string(Layout layout) {
    switch (layout) {
    case Layout::Archive:
        return "pt2 archive";
    case Layout::LegacyAoti:
        return "aoti package (PyTorch 2.5-2.7)";
    case Layout::LegacyExport:
        return "torch.export.save archive (PyTorch 2.7 and before)";
    case Layout::Unknown:
        return "unknown";
    }
    return "unknown";
}

std::string AotiModel::device_key() const {
    const auto found = metadata_values.find("AOTI_DEVICE_KEY");
    return found == metadata_values.end() ? std::string() : found->second;
}

const Member* Archive::find(std::string_view path) const {
    for (const auto& member : members) {
        if (member.path == path) {
            return &member;
        }
    }
    return nullptr;
}

bool Archive::is_readable_text(const Member& member) const {
    const std::string& path = member.path;
    const bool text = path.ends_with(".cpp") || path.ends_with(".h") || path.ends_with(".json") ||
                      path.ends_with(".txt") || records.contains(path);
    return text && member.problems.empty();
}

bool looks_like_zip(std::string_view bytes) {
    return bytes.starts_with(std::string_view("PK\x03\x04", 4)) ||
           bytes.starts_with(std::string_view("PK\x05\x06", 4));
}

std::optional<int> cubin_arch(std::string_view header) {
    constexpr std::uint16_t kCudaMachine = 190; // EM_CUDA
    if (header.size() < 64 ||
        !header.starts_with("\x7f"
                            "ELF") ||
        header[4] != 2) {
        return std::nullopt;
    }
    const auto byte = [&](std::size_t at) {
        return static_cast<unsigned char>(header[at]);
    };
    const std::uint16_t machine = static_cast<std::uint16_t>(byte(18) | (byte(19) << 8));
    if (machine != kCudaMachine) {
        return std::nullopt;
    }
    const std::uint32_t flags = byte(48) | (byte(49) << 8) | (byte(50) << 16) |
                                (static_cast<std::uint32_t>(byte(51)) << 24);
    // ABI version 8 (CUDA 12.9+) moved the SM number from the low byte to the next one.
    const int sm =
        byte(8) >= 8 ? static_cast<int>((flags >> 8) & 0xff) : static_cast<int>(flags & 0xff);
    if (sm == 0) {
        return std::nullopt;
    }
    return sm;
}

Result<Archive> read_archive(const std::filesystem::path& file, const Limits& limits) {
    auto mapped = MappedFile::open(file);
    if (!mapped) {
        return std::unexpected(mapped.error());
    }
    auto archive = read_archive(std::move(*mapped), limits);
    if (!archive) {
        return std::unexpected(std::move(archive.error()).at(file.string()));
    }
    archive->file = file;
    return archive;
}

Result<Archive> read_archive(std::shared_ptr<const MappedFile> file, const Limits& limits) {
    Archive archive;
    archive.file = file->path();
    archive.file_size = file->size();
    archive.bytes = file;
    const Zip zip(file->bytes());
    if (!zip) {
        return fail(ErrorKind::Corrupt, looks_like_zip(file->bytes())
                                            ? "a zip whose central directory does not read"
                                            : "not a zip archive (no central directory)");
    }
    unz_global_info64 global{};
    if (unzGetGlobalInfo64(zip.get(), &global) != UNZ_OK) {
        return fail(ErrorKind::Corrupt, "its central directory does not read");
    }
    if (global.number_entry > limits.max_members) {
        return fail(ErrorKind::LimitExceeded, std::to_string(global.number_entry) +
                                                  " members, over the limit of " +
                                                  std::to_string(limits.max_members));
    }
    std::set<std::string> names;
    int status = unzGoToFirstFile(zip.get());
    while (status == UNZ_OK) {
        if (archive.members.size() >= limits.max_members) {
            return fail(ErrorKind::LimitExceeded,
                        "more members than the limit of " + std::to_string(limits.max_members));
        }
        unz_file_info64 info{};
        if (unzGetCurrentFileInfo64(zip.get(), &info, nullptr, 0, nullptr, 0, nullptr, 0) !=
            UNZ_OK) {
            return fail(ErrorKind::Corrupt, "member " + std::to_string(archive.members.size()) +
                                                " of the central directory does not read");
        }
        std::string name(info.size_filename, '\0');
        if (unzGetCurrentFileInfo64(zip.get(), &info, name.data(), name.size() + 1, nullptr, 0,
                                    nullptr, 0) != UNZ_OK) {
            return fail(ErrorKind::Corrupt, "member " + std::to_string(archive.members.size()) +
                                                " of the central directory does not read");
        }
        unz64_file_pos position{};
        unzGetFilePos64(zip.get(), &position);
        Member member;
        member.name = std::move(name);
        member.size = info.uncompressed_size;
        member.compressed_size = info.compressed_size;
        member.crc = static_cast<std::uint32_t>(info.crc);
        member.method = static_cast<std::uint16_t>(info.compression_method);
        member.index = static_cast<std::uint32_t>(archive.members.size());
        member.directory_offset = position.pos_in_zip_directory;
        member.file_number = position.num_of_file;
        check_name(member.name, member.problems);
        if (!names.insert(member.name).second) {
            member.problems.push_back("a second member of this name: which one a reader takes "
                                      "depends on the reader");
        }
        if (member.size > limits.max_member_size) {
            member.problems.push_back(format_bytes(member.size) + " declared, over the limit of " +
                                      format_bytes(limits.max_member_size));
        }
        if (member.method == 8 && member.compressed_size > 0 &&
            member.size / member.compressed_size > limits.max_ratio) {
            member.problems.push_back("compressed " +
                                      std::to_string(member.size / member.compressed_size) +
                                      ":1, a zip bomb (PyTorch stores members uncompressed)");
        }
        if (member.method != 0 && member.method != 8) {
            member.problems.push_back("compression method " + std::to_string(member.method) +
                                      ", which PyTorch never writes");
        }
        archive.members.push_back(std::move(member));
        status = unzGoToNextFile(zip.get());
    }
    if (status != UNZ_END_OF_LIST_OF_FILE) {
        return fail(ErrorKind::Corrupt, "the central directory is damaged after " +
                                            std::to_string(archive.members.size()) + " members");
    }
    read_layout(archive, limits);
    return archive;
}

Result<std::string> read_member(const Archive& archive, const Member& member,
                                const Limits& limits) {
    if (!archive.bytes) {
        return fail(ErrorKind::InvalidArgument, "the archive's bytes are not held");
    }
    const Zip zip(archive.bytes->bytes());
    if (!zip) {
        return fail(ErrorKind::Corrupt, "the archive does not open again");
    }
    return read_at(zip.get(), member, limits);
}

Result<std::vector<MemberCheck>>
check_member_crcs(const Archive& archive, const ProgressFn& progress, const Limits& limits) {
    std::vector<MemberCheck> out;
    if (!archive.bytes) {
        return fail(ErrorKind::InvalidArgument, "the archive's bytes are not held");
    }
    const Zip zip(archive.bytes->bytes());
    if (!zip) {
        return fail(ErrorKind::Corrupt, "the archive does not open again");
    }
    Progress checked{.stage = ProgressStage::Checking,
                     .unit = ProgressUnit::Files,
                     .done = 0,
                     .total = archive.members.size(),
                     .bytes = 0,
                     .item = {}};
    for (MemberIndex i = 0; i < archive.members.size(); ++i) {
        const Member& member = archive.members[i];
        MemberCheck check{i, {}};
        unz64_file_pos position{member.directory_offset, member.file_number};
        if (member.size > limits.max_member_size) {
            check.problem = "not read: " + format_bytes(member.size) + " declared, over the limit";
        } else if (unzGoToFilePos64(zip.get(), &position) != UNZ_OK) {
            check.problem = "not found again in the central directory";
        } else {
            check.problem = check_current(zip.get(), member);
        }
        out.push_back(std::move(check));
        checked.bytes += member.size;
        checked.item = member.name;
        ++checked.done;
        if (!report_progress(progress, checked)) {
            return cancelled();
        }
    }
    return out;
}

} // namespace cachelens::pt2
