#pragma once

// The JSON `cachelens show --json` prints for each kind of entry. Stable for
// scripts: fields are only ever added.

#include "output.h"

#include <cachelens/cachedir/entry_description.h>

#include <vector>

namespace cachelens::cli {

Json entry_json(const cachedir::Entry& entry, const cachedir::EntryContent& content);

// The JSON object of described fields: those for kJson, by their keys.
Json fields_json(const std::vector<cachedir::Field>& fields);

} // namespace cachelens::cli
