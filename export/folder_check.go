package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
)

// FolderState is what CheckFolder found at an export folder.
type FolderState string

// Folder states an export accepts.
const (
	// FolderOwned holds this database's marker (or a marker, when CheckFolder
	// had no database to compare it with).
	FolderOwned FolderState = "owned"
	// FolderEmpty exists and is empty: the next export claims it.
	FolderEmpty FolderState = "empty"
	// FolderEarlier holds an export written before folders had markers:
	// the next export adopts it.
	FolderEarlier FolderState = "earlier export"
	// FolderMissing does not exist: the next export creates it.
	FolderMissing FolderState = "missing"
)

// CheckFolder says whether an export could write into root, without
// writing anything that stays: it applies the ownership rules claimFolder
// applies (a folder that is not empty and has no marker, or whose marker
// names another database, is refused with an *OwnershipError) and proves
// the folder (or, when it does not exist yet, the nearest existing parent
// it would be created in) writable by creating and removing a temporary
// file. pool may be nil: a marker is then taken as this database's.
func CheckFolder(ctx context.Context, pool *pgxpool.Pool, root string) (FolderState, error) {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(filepath.Clean(root))
		for {
			if _, err := os.Stat(parent); err == nil || filepath.Dir(parent) == parent {
				break
			}
			parent = filepath.Dir(parent)
		}
		return FolderMissing, probeWritable(parent)
	case err != nil:
		return "", fmt.Errorf("export: output folder %s: %w", root, err)
	case !st.IsDir():
		return "", &OwnershipError{Folder: root, Reason: "it is a file, not a folder"}
	}
	state, err := checkMarker(ctx, pool, folderMarker{root})
	if err != nil {
		return "", err
	}
	return state, probeWritable(root)
}

// checkMarker applies the ownership rules claim applies to the output s,
// without writing anything.
func checkMarker(ctx context.Context, pool *pgxpool.Pool, s markerStore) (FolderState, error) {
	b, err := s.readMarker(ctx)
	switch {
	case err == nil:
		m, err := parseMarker(b, s.where(), s.markerPath())
		if err != nil {
			return "", err
		}
		if pool != nil {
			db, err := thisDatabase(ctx, pool)
			if err != nil {
				return "", err
			}
			if err := ownedBy(m, db, s.where()); err != nil {
				return "", err
			}
		}
		return FolderOwned, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("export: reading the marker of %s: %w", s.where(), err)
	}
	adopt, err := s.claimable(ctx)
	if err != nil {
		return "", err
	}
	if adopt {
		return FolderEarlier, nil
	}
	return FolderEmpty, nil
}

// probeWritable creates and removes a temporary file in dir: the one sure
// test of writability (permissions, read-only mounts, a full disk's
// metadata), and it leaves nothing behind.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".adsync-write-check-*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("export: output folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("export: removing the write check %s: %w", name, err)
	}
	return nil
}
