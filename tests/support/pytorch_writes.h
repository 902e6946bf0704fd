#pragma once

// Writing into a cache dir and a trace log the way a running PyTorch does,
// for the suites that watch one fill (tst_watch, tst_live_page): each file
// under a temp name beside it, then renamed (torch._inductor's
// write_atomic); a Triton kernel's files in a tmp.* staging dir renamed into
// place whole; a log appended in pieces that end anywhere, mid-line too.

#include "test_paths.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

namespace cachelens::test::pytorch_writes {

namespace fs = std::filesystem;

// The devset compiled one graph at float32, then again at float16.
inline const std::string kFloat32Graph = "fajgubgjoc7472fanbq4v7toa3fipqcxuw5brgm2dgofcoq3dily";
inline const std::string kFloat16Graph = "fcblktfdhj2nw664pzoe6ceizrqj2gonbqakerkx6hbjkiz5g3fa";

// write_atomic: a temp name beside `to`, then a rename; `pause` between the
// two stands for a slow writer.
inline void write_atomic(const fs::path& from, const fs::path& to,
                         std::chrono::milliseconds pause = std::chrono::milliseconds(0)) {
    fs::create_directories(to.parent_path());
    const fs::path temp = to.parent_path() / ("." + to.filename().string() + ".123.456.tmp");
    fs::copy_file(from, temp);
    std::this_thread::sleep_for(pause);
    fs::rename(temp, to);
}

// The devset's FX entry of `key`, written into `cache` under its key dir.
inline void write_fx_graph(const fs::path& cache, const std::string& key,
                           std::chrono::milliseconds pause = std::chrono::milliseconds(0)) {
    const fs::path dir = fixture("devset/cache/fxgraph/" + key.substr(1, 2) + "/" + key);
    const fs::path file = fs::directory_iterator(dir)->path();
    write_atomic(file, cache / "fxgraph" / key.substr(1, 2) / key / file.filename(), pause);
}

// Triton: the kernel's files into tmp.<random>/, renamed to its hash dir.
inline void write_triton_kernel(const fs::path& cache, const fs::path& kernel_dir) {
    const fs::path staging = cache / "triton" / "0" / "tmp.pid_123_456";
    fs::create_directories(staging);
    for (const auto& file : fs::directory_iterator(kernel_dir)) {
        fs::copy_file(file.path(), staging / file.path().filename());
    }
    fs::rename(staging, cache / "triton" / "0" / kernel_dir.filename());
}

// Appends `bytes` to `file` as a process logging would, in pieces of random
// size (up to 64 KiB) that end anywhere, with pauses between some of them.
inline void append_in_pieces(const fs::path& file, const std::string& bytes, unsigned seed) {
    std::mt19937 random(seed);
    std::ofstream out(file, std::ios::binary | std::ios::app);
    for (std::size_t at = 0; at < bytes.size();) {
        const std::size_t piece = std::min(
            bytes.size() - at, std::uniform_int_distribution<std::size_t>(1, 64 << 10)(random));
        out.write(bytes.data() + at, static_cast<std::streamsize>(piece));
        out.flush();
        at += piece;
        if (random() % 4 == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
}

} // namespace cachelens::test::pytorch_writes
