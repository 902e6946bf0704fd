#pragma once

// Where cachelens keeps what is the user's own (the catalog, tune's compile
// scratch), and the check that it is: another local user who could make or
// write that dir could read the catalog, or plant Triton launchers and
// Inductor modules that tune hands to the user's Python.

#include <cachelens/core/error.h>

#include <filesystem>

namespace cachelens {

// $XDG_DATA_HOME/cachelens (when absolute), else ~/.local/share/cachelens,
// with ~ from HOME, or from the password database when HOME is unset or
// relative (cron, systemd units, some containers): never a shared dir such as
// /tmp.
std::filesystem::path default_data_dir();

// Makes `dir` (missing parents as usual, `dir` itself 0700) and requires it
// to be this user's: a directory, not a symlink, owned by the effective
// user. Group and other access on it is removed. Anything else is refused
// with an error naming `dir`, and nothing is written in it.
Result<void> ensure_private_dir(const std::filesystem::path& dir);

} // namespace cachelens
