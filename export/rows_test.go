package export

import (
	"encoding/binary"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// textArray is a one-dimensional text[] in Postgres's binary format.
func textArray(elems ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, 1) // dimensions
	b = binary.BigEndian.AppendUint32(b, 0)    // no nulls
	b = binary.BigEndian.AppendUint32(b, pgtype.TextOID)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1) // lower bound
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

// Reading an array column allocates nothing once the batch's arena has
// room: the export reads one per row of most tables, and garbage made per
// row is what the heap grows by until the collector runs.
func TestAnArrayIsReadWithoutAllocating(t *testing.T) {
	b := &rowBuilder{arena: make([]byte, 0, 1<<10)}
	c := Column{Name: "reasons", Kind: StringList}
	f := pgconn.FieldDescription{DataTypeOID: pgtype.TextArrayOID, Format: pgtype.BinaryFormatCode}
	raw := textArray("PAUSED_BY_ADVERTISER", "NO_FUNDS")
	row := make(parquet.Row, 0, 8)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		b.arena = b.arena[:0]
		row, err = b.list(row[:0], 1, c, f, raw)
	})
	require.NoError(t, err)
	require.Zero(t, allocs, "allocations per array read")
	require.Len(t, row, 2)
	require.Equal(t, "PAUSED_BY_ADVERTISER", row[0].String())
	require.Equal(t, "NO_FUNDS", row[1].String())
	require.Equal(t, 1, row[1].RepetitionLevel(), "the second element continues the list")
}
