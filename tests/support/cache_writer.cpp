// A stand-in for PyTorch writing to a cache while cachelens indexes and
// prunes it: the way torch._inductor.codecache.write_atomic does it (a
// ".<pid>.<tid>.tmp" file beside the target, then rename), modules first and
// the FX graph entry that uses them after, in new key dirs and now and then
// in an existing one.
//
// cache_writer SOURCE_CACHE TARGET_CACHE LOG COUNT [PAUSE_MS]
// Each completed file is appended to LOG as "<relative path>\t<size>\t<fnv1a64>"
// right after its rename.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint64_t fnv1a64(const std::string& data) {
    std::uint64_t hash = 1469598103934665603ULL;
    for (unsigned char c : data) {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    return hash;
}

// A key in PyTorch's alphabet: lowercase base32, 52 characters after the prefix.
std::string fresh_key(char prefix, std::mt19937_64& random) {
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    std::string key(1, prefix);
    for (int i = 0; i < 51; ++i) {
        key += kAlphabet[random() % 32];
    }
    return key;
}

std::vector<fs::path> files_under(const fs::path& dir, const std::string& extension = {}) {
    std::vector<fs::path> out;
    for (const auto& item : fs::recursive_directory_iterator(dir)) {
        if (item.is_regular_file() && (extension.empty() || item.path().extension() == extension)) {
            out.push_back(item.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

class Writer {
public:
    Writer(fs::path target, const fs::path& log)
        : target_(std::move(target))
        , log_(std::fopen(log.c_str(), "w")) {}
    ~Writer() {
        if (log_ != nullptr) {
            std::fclose(log_);
        }
    }
    bool ok() const { return log_ != nullptr; }

    // write_atomic: a temp file in the same dir, then rename over the target.
    bool write(const std::string& relative, const std::string& content) {
        const fs::path path = target_ / relative;
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        const fs::path temp = path.parent_path() / ("." + std::to_string(::getpid()) + "." +
                                                    std::to_string(++temp_counter_) + ".tmp");
        {
            std::ofstream out(temp, std::ios::binary);
            out.write(content.data(), static_cast<std::streamsize>(content.size()));
            if (!out) {
                std::fprintf(stderr, "cache_writer: cannot write %s\n", temp.c_str());
                return false;
            }
        }
        fs::rename(temp, path, ec);
        if (ec) {
            std::fprintf(stderr, "cache_writer: cannot rename %s: %s\n", temp.c_str(),
                         ec.message().c_str());
            return false;
        }
        std::fprintf(log_, "%s\t%zu\t%016llx\n", relative.c_str(), content.size(),
                     static_cast<unsigned long long>(fnv1a64(content)));
        std::fflush(log_);
        return true;
    }

private:
    fs::path target_;
    std::FILE* log_;
    unsigned temp_counter_ = 0;
};

} // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr,
                     "usage: cache_writer SOURCE_CACHE TARGET_CACHE LOG COUNT [PAUSE_MS]\n");
        return 2;
    }
    const fs::path source = argv[1];
    const fs::path target = argv[2];
    const int count = std::stoi(argv[4]);
    const int pause_ms = argc > 5 ? std::stoi(argv[5]) : 5;
    const auto fx_entries = files_under(source / "fxgraph");
    std::vector<fs::path> modules;
    for (const auto& file : files_under(source, ".py")) {
        if (file.filename().string().starts_with("c")) {
            modules.push_back(file);
        }
    }
    // Key dirs that were there before: PyTorch adds an entry to one when a
    // graph compiles again under other guards.
    std::vector<fs::path> old_key_dirs;
    for (const auto& file : files_under(target / "fxgraph")) {
        old_key_dirs.push_back(fs::relative(file.parent_path(), target));
    }
    if (fx_entries.empty() || modules.empty()) {
        std::fprintf(stderr, "cache_writer: %s has no FX entries or modules\n", source.c_str());
        return 2;
    }
    Writer writer(target, argv[3]);
    if (!writer.ok()) {
        std::fprintf(stderr, "cache_writer: cannot open the log %s\n", argv[3]);
        return 2;
    }
    std::mt19937_64 random(1234);
    for (int i = 0; i < count; ++i) {
        const std::string module_key = fresh_key('c', random);
        if (!writer.write(module_key.substr(1, 2) + "/" + module_key + ".py",
                          read_all(modules[random() % modules.size()]))) {
            return 1;
        }
        const fs::path& entry = fx_entries[random() % fx_entries.size()];
        std::string key_dir;
        if (i % 4 == 3 && !old_key_dirs.empty()) {
            key_dir = old_key_dirs[random() % old_key_dirs.size()].string();
        } else {
            const std::string key = fresh_key('f', random);
            key_dir = "fxgraph/" + key.substr(1, 2) + "/" + key;
        }
        if (!writer.write(key_dir + "/" + entry.filename().string(), read_all(entry))) {
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    }
    return 0;
}
