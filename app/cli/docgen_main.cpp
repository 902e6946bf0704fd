// cachelens-docgen: writes the man page and the bash completion of
// `cachelens` from the command tree the program itself parses with, at build
// time (app/cli/CMakeLists.txt). Not installed.
//
//   cachelens-docgen man TEMPLATE VERSION DATE OUT
//   cachelens-docgen bash OUT

#include "cli_app.h"
#include "cli_reference.h"

#include <cachelens/core/mapped_file.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

namespace {

int fail_with(const std::string& message) {
    std::fprintf(stderr, "cachelens-docgen: %s\n", message.c_str());
    return 2;
}

int write_output(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        return fail_with(path + ": cannot write");
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    using namespace cachelens;
    int exit_code = 0;
    CLI::App app;
    cli::build_cli(app, exit_code);

    const std::string_view what = argc > 1 ? argv[1] : "";
    if (what == "man" && argc == 6) {
        auto page_template = read_text_file(argv[2]);
        if (!page_template) {
            return fail_with(page_template.error().describe());
        }
        auto page = cli::man_page(app, *page_template, {.version = argv[3], .date = argv[4]});
        if (!page) {
            return fail_with(std::string(argv[2]) + ": " + page.error().message);
        }
        return write_output(argv[5], *page);
    }
    if (what == "bash" && argc == 3) {
        auto script = cli::bash_completion(app);
        if (!script) {
            return fail_with(script.error().message);
        }
        return write_output(argv[2], *script);
    }
    return fail_with("usage: cachelens-docgen man TEMPLATE VERSION DATE OUT | bash OUT");
}
