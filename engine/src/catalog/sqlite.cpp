#include "sqlite.h"

#include <utility>

namespace cachelens::catalog::sql {

Result<Database> Database::open(const std::filesystem::path& path) {
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close(db);
        return fail(ErrorKind::Io, "cannot open the catalog: " + message, path.string());
    }
    // Writers (another cachelens, the GUI) wait rather than fail at once.
    sqlite3_busy_timeout(db, 10000);
    sqlite3_extended_result_codes(db, 1);
    return Database(db, path.string());
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr))
    , path_(std::move(other.path_))
    , owned_(other.owned_) {}

Database& Database::operator=(Database&& other) noexcept {
    if (this != &other) {
        if (owned_) {
            sqlite3_close(db_);
        }
        db_ = std::exchange(other.db_, nullptr);
        path_ = std::move(other.path_);
        owned_ = other.owned_;
    }
    return *this;
}

Database::~Database() {
    if (owned_) {
        sqlite3_close(db_);
    }
}

Result<void> Database::exec(std::string_view sql) {
    char* message = nullptr;
    const std::string text(sql);
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string what = message != nullptr ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        return fail(ErrorKind::Io, "catalog: " + what, path_);
    }
    return {};
}

Error Database::error(std::string_view what) const {
    const int code = sqlite3_errcode(db_);
    const ErrorKind kind =
        code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? ErrorKind::Corrupt : ErrorKind::Io;
    return Error{kind, "catalog: " + std::string(what) + ": " + sqlite3_errmsg(db_), path_};
}

Result<Statement> Statement::prepare(const Database& db, std::string_view sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &statement,
                           nullptr) != SQLITE_OK) {
        return std::unexpected(db.error("cannot prepare " + std::string(sql.substr(0, 60))));
    }
    return Statement(statement, &db);
}

Statement::Statement(Statement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr))
    , db_(other.db_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(statement_);
        statement_ = std::exchange(other.statement_, nullptr);
        db_ = other.db_;
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(statement_);
}

Statement& Statement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
}

Statement& Statement::bind(int index, double value) {
    sqlite3_bind_double(statement_, index, value);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
    sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

Statement& Statement::bind_blob(int index, const void* data, std::size_t size) {
    sqlite3_bind_blob64(statement_, index, data, size, SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bind_null(int index) {
    sqlite3_bind_null(statement_, index);
    return *this;
}

Result<bool> Statement::step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    Error error = db_->error("step failed");
    sqlite3_reset(statement_);
    return std::unexpected(std::move(error));
}

Result<void> Statement::run() {
    for (;;) {
        auto row = step();
        if (!row) {
            return std::unexpected(row.error());
        }
        if (!*row) {
            break;
        }
    }
    reset();
    return {};
}

void Statement::reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
}

Result<std::optional<std::int64_t>> Statement::lookup_integer() {
    auto row = step();
    if (!row) {
        return std::unexpected(row.error());
    }
    const std::optional<std::int64_t> value = *row ? std::optional(integer(0)) : std::nullopt;
    reset();
    return value;
}

std::int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(statement_, column);
}

double Statement::real(int column) const {
    return sqlite3_column_double(statement_, column);
}

std::string Statement::text(int column) const {
    return std::string(text_view(column));
}

std::string_view Statement::text_view(int column) const {
    const auto* data = sqlite3_column_text(statement_, column);
    const int size = sqlite3_column_bytes(statement_, column);
    return data == nullptr ? std::string_view{}
                           : std::string_view(reinterpret_cast<const char*>(data),
                                              static_cast<std::size_t>(size));
}

std::string_view Statement::blob(int column) const {
    const void* data = sqlite3_column_blob(statement_, column);
    const int size = sqlite3_column_bytes(statement_, column);
    return data == nullptr
               ? std::string_view{}
               : std::string_view(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

bool Statement::is_null(int column) const {
    return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

std::optional<std::int64_t> Statement::optional_integer(int column) const {
    return is_null(column) ? std::nullopt : std::optional<std::int64_t>(integer(column));
}

std::optional<std::string> Statement::optional_text(int column) const {
    return is_null(column) ? std::nullopt : std::optional<std::string>(text(column));
}

Result<Transaction> Transaction::begin(Database& db) {
    if (auto ok = db.exec("BEGIN IMMEDIATE"); !ok) {
        return std::unexpected(ok.error());
    }
    return Transaction(&db);
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
    if (db_ != nullptr) {
        (void)db_->exec("ROLLBACK");
    }
}

Result<void> Transaction::commit() {
    Database* db = std::exchange(db_, nullptr);
    return db->exec("COMMIT");
}

} // namespace cachelens::catalog::sql
