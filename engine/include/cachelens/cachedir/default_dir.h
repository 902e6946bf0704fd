#pragma once

// Where PyTorch keeps its Inductor cache when nothing names one, computed as
// torch/_inductor/runtime/cache_dir_utils.py computes it, so that both front
// ends open (and import into) the dir PyTorch itself would use.

#include <filesystem>
#include <string>

namespace cachelens::cachedir {

// Python's tempfile.gettempdir(): the first of $TMPDIR, $TEMP, $TMP, /tmp,
// /var/tmp, /usr/tmp that is a dir this user can write in (absolute,
// normalised), else the current dir.
std::filesystem::path python_temp_dir();

// Python's getpass.getuser(): the first of $LOGNAME, $USER, $LNAME,
// $USERNAME that is set and not empty, else the password database's name for
// this uid; empty when neither has one.
std::string python_user_name();

// default_cache_dir(): <python_temp_dir()>/torchinductor_<user>, the user's
// name with each of \ / : * ? " < > | turned into '_'.
std::filesystem::path default_inductor_cache_dir();

// cache_dir(): $TORCHINDUCTOR_CACHE_DIR when set (and not empty), else
// default_inductor_cache_dir(). Whether it exists is the caller's question.
std::filesystem::path inductor_cache_dir();

} // namespace cachelens::cachedir
