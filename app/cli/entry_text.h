#pragma once

// What `cachelens show` prints for people.

#include <cachelens/cachedir/entry_description.h>

#include <string>
#include <vector>

namespace cachelens::cli {

struct TextOptions {
    bool source = false;      // print source code and graphs in full
    bool debug_lines = false; // print every debug line
};

void print_entry(const cachedir::Entry& entry, const cachedir::EntryContent& content,
                 const TextOptions& options);

// The text of described fields, as print_entry() prints them below the
// entry's "kind key" line: the fields for kText whose detail `options` asks for.
std::string fields_text(const std::vector<cachedir::Field>& fields, const TextOptions& options);

} // namespace cachelens::cli
