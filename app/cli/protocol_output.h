#pragma once

// The records of the bench protocol (bench_protocol.h) on stdout, as
// `bench --json-lines`, `bench accept --json` and `tune --json-lines` print
// them: exact (no terminal escaping: it is JSON) and flushed at once, since
// the GUI reads them as they come.

#include <cachelens/bench/bench_protocol.h>

namespace cachelens::cli {

// One record as one line.
void print_record(const bench::protocol::Record& record);
// The Header every stream opens with: the format, its version, this program.
void print_protocol_header();

} // namespace cachelens::cli
