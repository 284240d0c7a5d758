package audience

// MERGE: this file is a stand-in for the sources change's CheckSource
// (issue 31, part 1), so this branch compiles and doctor can check file
// sources. At merge, delete this file and keep theirs.

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CheckSource validates o's source without sending or recording anything:
// here, that a file source exists and can be opened.
func CheckSource(ctx context.Context, pool *pgxpool.Pool, o PlanOptions) error {
	if o.Query != "" {
		return errors.New("query sources arrive with the sources change")
	}
	f, err := os.Open(o.Path)
	if err != nil {
		return fmt.Errorf("audience source: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("audience source: %w", err)
	}
	if st.IsDir() {
		return fmt.Errorf("audience source: %s is a directory, not a file", o.Path)
	}
	return nil
}
