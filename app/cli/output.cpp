#include "output.h"

#include "terminal_output.h"

#include <iostream>

namespace cachelens::cli {

// JSON bypasses the terminal sink: nlohmann already escapes the ASCII
// controls, and what it keeps (DEL, C1, U+2028) must reach a script exact.
void print_json(const Json& json) {
    write_exact(Stream::Stdout,
                json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
}

void print_json_line(const Json& json) {
    write_exact(Stream::Stdout,
                json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
    std::fflush(stdout);
}

void print_json_text(std::string_view json) {
    write_exact(Stream::Stdout, json);
    std::fflush(stdout);
}

int report(const Error& error) {
    std::cerr << "cachelens: " << error.describe() << '\n';
    return kExitError;
}

int report(std::string_view message) {
    std::cerr << "cachelens: " << message << '\n';
    return kExitError;
}

Json text(std::string_view utf8) {
    return Json(std::string(utf8));
}

} // namespace cachelens::cli
