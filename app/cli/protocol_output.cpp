#include "protocol_output.h"

#include "output.h"

namespace cachelens::cli {

void print_record(const bench::protocol::Record& record) {
    print_json_text(bench::protocol::to_line(record) + '\n');
}

void print_protocol_header() {
    print_record(bench::protocol::Header{.program = std::string("cachelens ") + CACHELENS_VERSION});
}

} // namespace cachelens::cli
