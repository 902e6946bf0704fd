#pragma once

// A thin RAII layer over the SQLite C API for the catalog: a connection, a
// prepared statement with typed binds and columns, a transaction. Failures
// are Error values naming the database file and SQLite's message.

#include <cachelens/core/error.h>

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cachelens::catalog::sql {

class Database {
public:
    static Result<Database> open(const std::filesystem::path& path);
    // A connection opened (and closed) elsewhere, such as Catalog::handle():
    // used but never closed; errors name `path`.
    static Database borrow(sqlite3* db, std::string path) {
        Database database(db, std::move(path));
        database.owned_ = false;
        return database;
    }
    Database(Database&& other) noexcept;
    Database& operator=(Database&& other) noexcept;
    ~Database();

    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }

    // Runs one or more statements that return no rows.
    Result<void> exec(std::string_view sql);
    // The error for the last failed call, naming the file.
    Error error(std::string_view what) const;

private:
    Database(sqlite3* db, std::string path)
        : db_(db)
        , path_(std::move(path)) {}
    sqlite3* db_ = nullptr;
    std::string path_;
    bool owned_ = true;
};

class Statement {
public:
    static Result<Statement> prepare(const Database& db, std::string_view sql);
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    ~Statement();

    // Binds are 1-based, as in SQLite.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bind_blob(int index, const void* data, std::size_t size);
    Statement& bind_null(int index);
    template <class T>
    Statement& bind(int index, const std::optional<T>& value) {
        return value ? bind(index, *value) : bind_null(index);
    }

    // Steps once: true with a row, false when done.
    Result<bool> step();
    // Steps to completion (for statements that return no rows), then resets.
    Result<void> run();
    // Steps to completion, calling `row(*this)` for each row.
    template <class F>
    Result<void> for_each_row(F&& row) {
        for (;;) {
            auto more = step();
            if (!more) {
                return std::unexpected(more.error());
            }
            if (!*more) {
                return {};
            }
            row(*this);
        }
    }
    void reset();
    // Steps once for a lookup: the first column of its row as an integer, or
    // nullopt when there is none; then resets for the next binds.
    Result<std::optional<std::int64_t>> lookup_integer();

    std::int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::string_view text_view(int column) const; // valid until the next step
    std::string_view blob(int column) const;      // valid until the next step
    bool is_null(int column) const;
    std::optional<std::int64_t> optional_integer(int column) const;
    std::optional<std::string> optional_text(int column) const;

private:
    Statement(sqlite3_stmt* statement, const Database* db)
        : statement_(statement)
        , db_(db) {}
    sqlite3_stmt* statement_ = nullptr;
    const Database* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when not committed.
class Transaction {
public:
    static Result<Transaction> begin(Database& db);
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    Result<void> commit();

private:
    explicit Transaction(Database* db)
        : db_(db) {}
    Database* db_ = nullptr;
};

} // namespace cachelens::catalog::sql
