#pragma once

// Points where a test acts between two steps of a write or a delete, to force
// a race at its exact step (another process renaming a file onto the name,
// swapping in a symlink) instead of hoping a sleep lands there. Unset in the
// programs: a hook costs one relaxed atomic load where it would run.

#include <functional>
#include <string_view>

namespace cachelens::test_seams {

using Hook = std::function<void(std::string_view name)>;

// Called with the destination's name right before a written temp file is
// linked or swapped into place (core/file_writes.cpp). Empty: none.
void set_before_place(Hook hook);
// Called with a file's name right before it is moved into the trash to be
// deleted (core/trash.cpp), after every check. Empty: none.
void set_before_delete(Hook hook);

// Run by core at those points.
void before_place(std::string_view name);
void before_delete(std::string_view name);

} // namespace cachelens::test_seams
