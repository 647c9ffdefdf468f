package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// checkPageSize validates Options.PageSize: 0 or a power of two from 512
// to 65536, SQLite's page sizes.
func checkPageSize(n int) error {
	if n == 0 || (n >= 512 && n <= 65536 && n&(n-1) == 0) {
		return nil
	}
	return fmt.Errorf("sqlite: invalid PageSize %d (want a power of two from 512 to 65536)", n)
}

// initPageSize gives a database file that does not exist yet (or is
// empty) the page size n: SQLite fixes the page size when it writes the
// first page, which switching to WAL mode does, so it is set on a
// connection of its own before the backend's connections open the file.
// An existing database keeps its page size. n == 0 does nothing.
func initPageSize(path string, n int) error {
	if n == 0 {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite3", dsn(path, "_busy_timeout=10000"))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, p := range []string{fmt.Sprintf("PRAGMA page_size=%d", n), "PRAGMA journal_mode=WAL"} {
		if _, err := db.ExecContext(context.Background(), p); err != nil {
			return fmt.Errorf("sqlite: %s on %s: %w", p, path, err)
		}
	}
	return nil
}

// openDB is sql.Open of the SQLite database dsn whose every new
// connection first runs pragmas (settings SQLite keeps per connection and
// go-sqlite3 takes no DSN parameter for, such as mmap_size).
func openDB(dsn string, pragmas []string) *sql.DB {
	return sql.OpenDB(&connector{dsn: dsn, pragmas: pragmas})
}

type connector struct {
	dsn     string
	pragmas []string
}

var sqliteDriver = &sqlite3.SQLiteDriver{}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	for _, p := range c.pragmas {
		if _, err := conn.(*sqlite3.SQLiteConn).Exec(p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("sqlite: %s: %w", p, err)
		}
	}
	return conn, nil
}

func (c *connector) Driver() driver.Driver { return sqliteDriver }

// connPragmas are the per-connection settings of opts.
func connPragmas(opts Options) []string {
	var p []string
	if opts.MmapSizeBytes > 0 {
		p = append(p, fmt.Sprintf("PRAGMA mmap_size=%d", opts.MmapSizeBytes))
	}
	return p
}
