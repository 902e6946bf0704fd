#pragma once

// PT2 archives (`.pt2`): AOTInductor packages (torch._inductor.
// aoti_compile_and_package, read by aoti_load_package) and exported programs
// (torch.export.save), as PyTorch lays them out (docs/FORMATS.md §2). Read
// as data from the zip's central directory with zlib's minizip: never
// extracted, never loaded; a member's bytes are read only when asked for,
// with its crc checked.
//
// Three layouts, told apart by member names: the PT2 archive of PyTorch
// 2.8+ (every member under one root folder, named after the file; trailer
// records archive_format, archive_version, .data/version, byteorder,
// .data/serialization_id), the zipfile-made AOTInductor package of 2.5-2.7
// (no root folder, `version` and `archive_format` at the top), and
// torch.export.save's archive of 2.7 and before (no root folder,
// serialized_exported_program.json).

#include <cachelens/core/error.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/progress.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::pt2 {

enum class Layout : std::uint8_t {
    Archive,      // PyTorch 2.8+: <root>/archive_format, ...
    LegacyAoti,   // PyTorch 2.5-2.7 aoti_compile_and_package: no root folder
    LegacyExport, // torch.export.save of PyTorch 2.7 and before
    Unknown,      // a zip, but none of PyTorch's layouts
};
std::string_view to_string(Layout layout);

struct Member {
    std::string name; // as stored in the zip
    // Relative to the archive's root folder ("data/aotinductor/model/x.cpp");
    // the name itself in the layouts without one.
    std::string path;
    std::uint64_t size = 0;
    std::uint64_t compressed_size = 0;
    std::uint32_t crc = 0;
    std::uint16_t method = 0; // 0 stored, 8 deflated
    std::uint32_t index = 0;  // its place in the central directory
    // Where minizip finds it again (unz64_file_pos).
    std::uint64_t directory_offset = 0;
    std::uint64_t file_number = 0;
    // Why extracting it would be unsafe or wrong: a path that leaves the
    // extraction dir, an absolute name, a name outside the root folder,
    // a second member of the same name, a size over the limit.
    std::vector<std::string> problems;
};

// One compiled constant of an AOTInductor model, from its wrapper's
// constants_info_ (the weights live in the .so, a .blob or data/weights/).
struct Constant {
    std::string name;
    std::string original_fqn; // "fc1.weight"
    std::string dtype;        // "float32"
    std::string device;       // "cuda"
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> stride;
    std::uint64_t data_size = 0; // bytes
    std::uint64_t offset = 0;
    bool from_folded = false;
    std::string type; // Parameter, Buffer, TensorConstant, ...
};

// Members are named by their index in Archive::members, so that an Archive
// copies whole.
using MemberIndex = std::size_t;

// A GPU kernel binary of a model (cubin: ELF for EM_CUDA).
struct KernelBinary {
    MemberIndex member = 0;
    std::optional<int> sm; // the SM architecture its ELF header names (90 for sm_90, sm_90a)
};

struct AotiModel {
    std::string name; // the folder under data/aotinductor/ ("model")
    std::optional<MemberIndex> wrapper_cpp;
    std::optional<MemberIndex> kernel_cpp;
    std::optional<MemberIndex> library;                 // the .so
    std::optional<MemberIndex> metadata;                // the *_metadata.json the C++ loader reads
    std::map<std::string, std::string> metadata_values; // AOTI_DEVICE_KEY, ...
    std::vector<KernelBinary> kernels;
    std::vector<MemberIndex> other_files; // .json, .blob, .h, flags, ...
    std::vector<Constant> constants;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    // Where the weights are: "in the .so", "in <blob>", "data/weights/ (weights_config.json)".
    std::string weights_location;
    std::string device_key() const;
};

struct Archive {
    std::filesystem::path file;
    std::uint64_t file_size = 0;
    Layout layout = Layout::Unknown;
    std::string root; // the root folder (Archive layout), without its '/'
    std::vector<Member> members;
    // The small records PyTorch reads: archive_format, archive_version,
    // .data/version, byteorder, .data/serialization_id, version.
    std::map<std::string, std::string> records;
    std::vector<AotiModel> models;
    std::vector<std::string> exported_programs; // models/<name>.json
    std::vector<MemberIndex> weights;           // data/weights/*
    std::vector<MemberIndex> constants;         // data/constants/*
    std::vector<MemberIndex> sample_inputs;     // data/sample_inputs/*
    std::vector<MemberIndex> extra;             // extra/*, extra_files/*
    // What is wrong with the archive as a whole (no archive_format, a model
    // without .so or .cpp, ...), besides the members' own problems.
    std::vector<std::string> problems;

    bool is_aoti_package() const { return !models.empty(); }
    const Member* find(std::string_view path) const;
    // A member a person reads as text: the generated C++ and headers, JSON,
    // text, and the small records; never a member with problems.
    bool is_readable_text(const Member& member) const;
    // The file read (mapped) and the members viewed in it.
    std::shared_ptr<const MappedFile> bytes;
};

// Limits a hostile archive cannot make cachelens exceed.
struct Limits {
    std::size_t max_members = 100'000;
    std::uint64_t max_member_size = std::uint64_t{64} << 30; // declared, uncompressed
    std::uint64_t max_read = std::uint64_t{256} << 20;       // bytes read of one member
    std::uint64_t max_ratio = 1000; // uncompressed / compressed of a deflated member
};

// True when `bytes` start like a zip file (a local header or an empty
// archive's end record).
bool looks_like_zip(std::string_view bytes);

// Reads the central directory of `file` and the records PyTorch reads
// (small JSON and text members), checking every name. Fails when it is no
// zip; a zip of none of PyTorch's layouts reads with Layout::Unknown.
Result<Archive> read_archive(const std::filesystem::path& file, const Limits& limits = {});
// The same over bytes already in memory (what the fuzzer feeds).
Result<Archive> read_archive(std::shared_ptr<const MappedFile> file, const Limits& limits = {});

// A member's bytes, its crc checked; errors name the member.
Result<std::string> read_member(const Archive& archive, const Member& member,
                                const Limits& limits = {});

// The SM architecture a cubin's ELF header names (90 for sm_90 and sm_90a);
// nullopt when it is no CUDA ELF.
std::optional<int> cubin_arch(std::string_view elf_header);

// The files of one AOTInductor model wherever they sit: an archive's
// data/aotinductor/<model>/, or the output dir AotCodeCompiler leaves in a
// cache dir. `files` are indexes into the caller's own list, in the order
// PyTorch's loader would meet them; `path_of` names one, `read` reads one
// (small members only: metadata, wrapper sources, kernel binaries' headers).
// What PyTorch's loader would refuse goes to `problems`, each naming the
// model. The model's indexes are the caller's.
struct ModelFiles {
    std::function<const std::string&(MemberIndex)> path_of;
    std::function<Result<std::string>(MemberIndex)> read;
};
AotiModel assemble_model(std::string name, const std::vector<MemberIndex>& files,
                         const ModelFiles& access, std::vector<std::string>& problems);

struct MemberCheck {
    MemberIndex member = 0;
    std::string problem; // empty when its crc matched
};

// Reads every member once to check its crc (progress: Checking, bytes);
// cancellable between members.
Result<std::vector<MemberCheck>> check_member_crcs(const Archive& archive,
                                                   const ProgressFn& progress = {},
                                                   const Limits& limits = {});

} // namespace cachelens::pt2
