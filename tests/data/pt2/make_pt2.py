#!/usr/bin/env python3
"""Makes the .pt2 archives tst_pt2 reads besides the real ones (tests/data/
real-fixtures: aoti_cuda, aoti_cpu): the layouts PyTorch wrote before 2.8 and
every way an archive can be hostile or damaged, laid out as PyTorch 2.11 lays
out an AOTInductor package (docs/FORMATS.md §2). Python's zipfile writes
them; nothing here imports PyTorch. Run from this directory:

    python3 make_pt2.py
"""

import io
import json
import os
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "/tmp/cachelens-pt2-marker"

WRAPPER = """// a wrapper as AOTInductor writes one (trimmed)
#include <torch/csrc/inductor/aoti_runtime/interface.h>
namespace torch::aot_inductor {
AOTInductorModel::AOTInductorModel(std::shared_ptr<ConstantMap> constants_map)
    : AOTInductorModelBase(1, 1, 2, "cuda", std::nullopt, true) {
    inputs_info_[0].name = "arg4_1";
    constants_info_[0].name = "fc1_weight";
    constants_info_[0].dtype = cached_torch_dtype_float32;
    constants_info_[0].device_type = cached_torch_device_type_cuda;
    constants_info_[0].offset = 0;
    constants_info_[0].data_size = 8192;
    constants_info_[0].from_folded = false;
    constants_info_[0].type = static_cast<int32_t>(torch::aot_inductor::ConstantType::Parameter);
    constants_info_[0].shape = {64, 32};
    constants_info_[0].stride = {32, 1};
    constants_info_[0].original_fqn = "fc1.weight";
    constants_info_[1].name = "fc1_bias";
    constants_info_[1].dtype = cached_torch_dtype_bfloat16;
    constants_info_[1].data_size = 128;
    constants_info_[1].type = static_cast<int32_t>(torch::aot_inductor::ConstantType::Buffer);
    constants_info_[1].shape = {64};
    constants_info_[1].original_fqn = "fc1.bias";
    outputs_info_[0].name = "output0";
}
}  // namespace torch::aot_inductor
"""

METADATA = {"AOTI_DEVICE_KEY": "cuda", "AOTI_PLATFORM": "linux", "AOTI_MACHINE": "x86_64",
            "AOTI_CPU_ISA": "AVX512", "AOTI_COMPUTE_CAPABILITY": "80", "owner": "tests"}


def cubin(sm):
    """An ELF header as a CUDA 13 cubin's (ABI version 8: the SM in bits 8-15)."""
    header = bytearray(64)
    header[0:4] = b"\x7fELF"
    header[4] = 2  # 64-bit
    header[5] = 1
    header[7] = 0x41
    header[8] = 8
    struct.pack_into("<H", header, 18, 190)  # EM_CUDA
    struct.pack_into("<I", header, 48, (0x09 << 24) | (sm << 8) | 0x04)
    return bytes(header) + b"\0" * 64


def model_members(model="model", wrapper=WRAPPER, metadata=METADATA):
    base = f"data/aotinductor/{model}/"
    meta = json.dumps(metadata).encode()
    return [
        (base + "cwrapper.wrapper.cpp", wrapper.encode()),
        (base + "ckernel.kernel.cpp", b"// Triton kernels are embedded as comments\n"),
        (base + "cwrapper.wrapper_metadata.json", meta),
        (base + "ckernel.kernel_metadata.json", meta),
        (base + "cwrapper.wrapper.so", b"\x7fELF not a real library"),
        (base + "ccubin.cubin", cubin(80)),
    ]


TRAILER = [("archive_format", b"pt2"), ("archive_version", b"0"), (".data/version", b"6\n"),
           ("byteorder", b"little"), (".data/serialization_id", b"1234567890" * 4)]


def write(name, members, root="", compression=zipfile.ZIP_STORED):
    path = os.path.join(HERE, name)
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for member, data in members:
            archive.writestr((root + "/" if root else "") + member, data)
    return path


def main():
    for old in os.listdir(HERE):
        if old.endswith(".pt2"):
            os.remove(os.path.join(HERE, old))
    # A PyTorch 2.8+ archive, as the real ones but small: two models, a
    # user metadata key, bfloat16 and Buffer constants.
    write("two_models.pt2", model_members("model") + model_members("other") + TRAILER,
          root="two_models")
    # PyTorch's loader matches a model's files by prefix: loading "model" takes "model2"'s too.
    write("prefix_models.pt2", model_members("model") + model_members("model2") + TRAILER,
          root="prefix_models")
    # Before 2.8: no root folder.
    write("legacy_aoti.pt2", [("version", b"0"), ("archive_format", b"pt2")] + model_members())
    write("legacy_export.pt2", [("serialized_exported_program.json", b"{}"), ("version", b"8.2"),
                                ("serialized_state_dict.pt", b"")])
    # Members whose extraction leaves PyTorch's temp dir (its C++ loader joins
    # the name to the dir unchecked), an absolute one, a backslash, a name
    # outside the root, and the same name twice.
    slip = model_members() + TRAILER + [
        ("data/aotinductor/model/../../../../../../tmp/cachelens-pt2-slip", b"escaped"),
    ]
    write("slip.pt2", slip, root="slip")
    path = os.path.join(HERE, "odd_names.pt2")
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in model_members() + TRAILER:
            archive.writestr("odd_names/" + member, data)
        archive.writestr("/etc/cachelens-absolute", b"x")
        archive.writestr("odd_names/data\\aotinductor\\model\\x.so", b"x")
        archive.writestr("elsewhere/file", b"x")
        archive.writestr("odd_names/archive_format", b"pt2")  # a second one
    # A wrapper that runs a shell command when PyTorch compiles it.
    hostile = WRAPPER.replace("}  // namespace", '  static int x = system("touch ' + MARKER +
                              '");\n}  // namespace')
    write("hostile_cpp.pt2", model_members(wrapper=hostile) + TRAILER, root="hostile_cpp")
    # A member whose bytes no longer match its crc (changed in place).
    path = write("bad_crc.pt2", model_members() + TRAILER, root="bad_crc")
    data = bytearray(open(path, "rb").read())
    at = data.find(b"// Triton kernels are embedded")
    data[at] = ord("#")
    open(path, "wb").write(data)
    # A zip bomb: 32 MiB of zeros deflated to a few KiB.
    write("bomb.pt2", model_members() + TRAILER + [("data/weights/weight_0", b"\0" * (32 << 20))],
          root="bomb", compression=zipfile.ZIP_DEFLATED)
    # PyTorch would refuse these: another archive version, no metadata, no device.
    write("version_1.pt2", model_members() + [(n, b"1" if n == "archive_version" else d)
                                              for n, d in TRAILER], root="version_1")
    write("no_metadata.pt2", [(n, d) for n, d in model_members() if not n.endswith(".json")]
          + TRAILER, root="no_metadata")
    # Cut short: the central directory is gone.
    whole = open(os.path.join(HERE, "two_models.pt2"), "rb").read()
    open(os.path.join(HERE, "truncated.pt2"), "wb").write(whole[: len(whole) // 2])


if __name__ == "__main__":
    main()
