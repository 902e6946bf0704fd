#include "output.h"

#include <iostream>

namespace cachelens::cli {

void print_json(const Json& json) {
    std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
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
