#pragma once

// The rows of the pickle policy, unsorted, as written in pickle_policy_table.cpp.

#include <cachelens/safety/pickle_policy.h>

#include <span>

namespace cachelens::safety::table {

std::span<const PolicyRow> rows();

} // namespace cachelens::safety::table
