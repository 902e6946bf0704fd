#pragma once

// Where a command that writes is writing. The user names it on the command
// line (nothing is written anywhere else); the command echoes it, absolute,
// before anything else ("into /abs/DIR:") and in its JSON ("target").

#include <filesystem>
#include <string>

namespace cachelens::cli {

// `named` absolute, as the kernel resolves it (against the working
// directory; symlinks and ".." of the part that exists resolved).
std::string target_path(const std::filesystem::path& named);

// "into /abs/DIR (to be created): dry run, nothing is written" on stdout.
void print_into(const std::string& target, bool creates_dir, bool dry_run);

} // namespace cachelens::cli
