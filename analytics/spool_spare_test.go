package analytics

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testcheck"
)

// waitSpare waits until the journal's next segment is prepared (the condition, not a guess of how long).
func waitSpare(t *testing.T, j *journal) {
	t.Helper()
	testcheck.WaitFor(t, 30*time.Second, "the spare segment prepared", func() bool {
		j.spareMu.Lock()
		defer j.spareMu.Unlock()
		return j.spare != nil && !j.spareBusy
	})
}

func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// appendPages appends lines covering n pages and returns the minor page faults the process took meanwhile.
func appendPages(t *testing.T, j *journal, n int) int64 {
	t.Helper()
	line := append(bytes.Repeat([]byte{'x'}, pageSize-1), '\n')
	before := minorFaults(t)
	for i := 0; i < n; i++ {
		if err := j.append(line); err != nil {
			t.Fatal(err)
		}
	}
	return minorFaults(t) - before
}

// testSlot opens a slot of the spool in a directory of the test's own, closed when the test ends.
func testSlot(t *testing.T) *journal {
	t.Helper()
	j, err := openSlot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.close)
	return j
}

// A fresh segment takes a page fault on the first copy into each of its pages, under an append (the
// request's path); the prepared spare, once sealing has put it in place, takes none.
func TestAppendsToThePreparedSpareTakeNoPageFaults(t *testing.T) {
	j := testSlot(t)
	waitSpare(t, j) // its own faults are over before counting
	const pages = 256
	fresh := appendPages(t, j, pages)
	if fresh < pages*3/4 {
		t.Fatalf("a fresh segment: %d faults for %d pages; the count cannot tell the spare apart", fresh, pages)
	}
	// fill the first segment: the next append seals it and takes the spare
	appendPages(t, j, segmentBytes/pageSize-pages+1)
	if j.activeSeq != 2 {
		t.Fatalf("active segment %d after filling the first, want 2", j.activeSeq)
	}
	waitSpare(t, j) // the one after it, prepared meanwhile
	prepared := appendPages(t, j, pages)
	if prepared > pages/8 {
		t.Fatalf("the prepared spare: %d faults for %d pages (a fresh segment: %d)", prepared, pages, fresh)
	}
	t.Logf("minor faults for %d pages appended: fresh segment %d, prepared spare %d", pages, fresh, prepared)
}

// Sealing renames the spare into place as the next segment: the events on both sides of the seal are
// read back in order, no spare.seg is taken for a segment, and closing (or a killed process's slot
// taken again) leaves no spare behind.
func TestSealTakesTheSpareAndEventsReadBackInOrder(t *testing.T) {
	dir := t.TempDir()
	j, err := openSlot(dir)
	if err != nil {
		t.Fatal(err)
	}
	slot := j.dir
	waitSpare(t, j)
	var lines []string
	ev := account.UsageEvent{RequestID: "r", KeyID: "k", UserID: "u", KeyPrefix: "ht_x", Method: "GET", Route: "/api/quote/{symbol}",
		Status: 200, Tokens: 2, Time: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC), Plan: "pro"}
	for i := 0; j.activeSeq == 1 || len(lines)%1000 != 0; i++ {
		ev.EventID = uint64(i + 1)
		ev.RequestID = string(rune('a'+i%26)) + "-request"
		ev.Route = "/api/quote/" + string(bytes.Repeat([]byte{'Q'}, 200+i%7))
		line := encodeEvent(nil, ev)
		if err := j.append(line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line[:len(line)-1]))
	}
	if _, err := os.Stat(filepath.Join(slot, "000000000002.log")); err != nil {
		t.Fatalf("segment 2 after the seal: %v", err)
	}
	// read everything back from the start: the order and the lines are those appended
	sameLines(t, shipAll(t, j), lines)
	// closing removes the spare; a killed process leaves it: the next to take the slot removes it
	leftBehindIsRemoved(t, j, "spare.seg")
}

// sameLines fails unless got holds the lines of want, in order.
func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("read back %d lines, want the %d appended (the first read: %.40q)", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d read back %.40q, appended %.40q", i, got[i], want[i])
		}
	}
}

// leftBehindIsRemoved checks that the journal holds name (spare.seg, free.seg) and that closing it
// removes it, then writes one there as a killed process would leave it and checks that the next process
// to take the slot removes it.
func leftBehindIsRemoved(t *testing.T, j *journal, name string) {
	t.Helper()
	slot := j.dir
	path := filepath.Join(slot, name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s before close: %v", name, err)
	}
	j.close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s after close: %v", name, err)
	}
	if err := os.WriteFile(path, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	j2, ok, err := lockSlot(slot)
	if err != nil || !ok {
		t.Fatalf("retaking the slot: ok %v, %v", ok, err)
	}
	defer j2.close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a killed process's %s after the slot was taken again: %v", name, err)
	}
}

// fillUntilSeal appends copies of line until the active segment changes.
func fillUntilSeal(t *testing.T, j *journal, line []byte) {
	t.Helper()
	seq := j.activeSeq
	for j.activeSeq == seq {
		if err := j.append(line); err != nil {
			t.Fatal(err)
		}
	}
}

// shipAll reads every line the journal holds and moves the position past them (what the shipper does
// after an insert), returning the lines.
func shipAll(t *testing.T, j *journal) []string {
	t.Helper()
	var got []string
	buf := make([]byte, shipBuffer)
	for {
		batch, done, err := j.readBatch(buf, nil, 100000)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			return got
		}
		for _, l := range batch {
			got = append(got, string(l))
		}
		if err := j.advance(done); err != nil {
			t.Fatal(err)
		}
	}
}

// A shipped segment is the next spare: its file (the same inode), cleared of its lines, prepared
// without the page faults of a fresh one, and what is appended to it reads back alone, without a trace
// of the lines it held before (fails without the clear: the old lines would be read after the new).
func TestAShippedSegmentIsRecycledAsTheSpare(t *testing.T) {
	dir := t.TempDir()
	j, err := openSlot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	slot := j.dir
	waitSpare(t, j)
	old := append(bytes.Repeat([]byte{'Y'}, pageSize-1), '\n') // a page a line: no zero anywhere in a segment
	fillUntilSeal(t, j, old)                                   // segment 1 sealed, 2 active (the spare)
	first, err := os.Stat(filepath.Join(slot, "000000000001.log"))
	if err != nil {
		t.Fatal(err)
	}
	// (the append that sealed a segment is the first line of the next)
	if n := len(shipAll(t, j)); n != segmentBytes/pageSize+1 {
		t.Fatalf("shipped %d lines of segment 1 and the first of 2, want %d", n, segmentBytes/pageSize+1)
	}
	if _, err := os.Stat(filepath.Join(slot, "000000000001.log")); !os.IsNotExist(err) {
		t.Fatalf("segment 1 after it was shipped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(slot, "free.seg")); err != nil {
		t.Fatalf("the shipped segment is not waiting as free.seg: %v", err)
	}
	waitSpare(t, j)          // made at the first seal, before segment 1 was shipped: a fresh one
	fillUntilSeal(t, j, old) // segment 2 sealed, 3 active; the spare is prepared from free.seg
	before := minorFaults(t) // (appends to a prepared spare take none)
	waitSpare(t, j)
	faults := minorFaults(t) - before
	spare, err := os.Stat(filepath.Join(slot, "spare.seg"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(first, spare) {
		t.Fatal("the spare is not the shipped segment 1")
	}
	if spare.Size() != segmentBytes {
		t.Fatalf("the recycled spare is %d bytes, want %d", spare.Size(), segmentBytes)
	}
	if faults > int64(segmentBytes/pageSize/16) {
		t.Fatalf("preparing the recycled spare took %d page faults (a fresh one takes one a page: %d)", faults, segmentBytes/pageSize)
	}
	if _, err := os.Stat(filepath.Join(slot, "free.seg")); !os.IsNotExist(err) {
		t.Fatalf("free.seg after it became the spare: %v", err)
	}
	if n := len(shipAll(t, j)); n != segmentBytes/pageSize {
		t.Fatalf("shipped %d lines of segment 2 and the first of 3, want %d", n, segmentBytes/pageSize)
	}
	fillUntilSeal(t, j, old) // segment 3 sealed, 4 active: segment 1's file
	active, err := os.Stat(filepath.Join(slot, "000000000004.log"))
	if err != nil || !os.SameFile(first, active) {
		t.Fatalf("segment 4 is not segment 1's file: %v", err)
	}
	if n := len(shipAll(t, j)); n != segmentBytes/pageSize {
		t.Fatalf("shipped %d lines of segment 3 and the first of 4, want %d", n, segmentBytes/pageSize)
	}
	var want []string
	for i := range 3 {
		line := []byte("u3\tnew-line-" + strconv.Itoa(i) + "\n")
		if err := j.append(line); err != nil {
			t.Fatal(err)
		}
		want = append(want, string(line[:len(line)-1]))
	}
	sameLines(t, shipAll(t, j), want)
	// the segment shipped last waits as free.seg: closing removes it, as does the next process to take
	// the slot of one killed with it
	leftBehindIsRemoved(t, j, "free.seg")
}

// A segment shipped while a free one is being reused takes the name free.seg without taking the reused
// one's place: the spare is still the segment being reused, and the other waits as free.seg (fails if
// the reuse renames free.seg after taking it: the spare would be the other segment's file, its old lines
// and all).
func TestASegmentShippedDuringAReuseKeepsItsOwnFile(t *testing.T) {
	j := testSlot(t)
	slot := j.dir
	line := append(bytes.Repeat([]byte{'Z'}, pageSize-1), '\n')
	waitSpare(t, j)
	fillUntilSeal(t, j, line) // 1 sealed
	waitSpare(t, j)
	fillUntilSeal(t, j, line) // 2 sealed
	waitSpare(t, j)
	stat := func(name string) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(filepath.Join(slot, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	one, two := stat("000000000001.log"), stat("000000000002.log")
	j.release(1) // shipped: 1 waits as free.seg
	j.afterTakeFree = func() { j.release(2) }
	fillUntilSeal(t, j, line) // 3 sealed: the next spare is prepared from 1, and 2 is shipped meanwhile
	waitSpare(t, j)
	if !os.SameFile(stat("spare.seg"), one) {
		t.Fatal("the spare is not segment 1's file, the one being reused")
	}
	if !os.SameFile(stat("free.seg"), two) {
		t.Fatal("free.seg is not segment 2's file")
	}
}

// A read of this process's active segment stops where appends have taken it: the rest of the read
// buffer is not written (fails when the read copies the segment's whole 16 MB, zeros not yet written,
// at every ship).
func TestAReadOfTheActiveSegmentStopsAtItsAppends(t *testing.T) {
	j := testSlot(t)
	line := []byte("u3\tone line\n")
	for range 3 {
		if err := j.append(line); err != nil {
			t.Fatal(err)
		}
	}
	buf := bytes.Repeat([]byte{0xff}, 1<<20)
	batch, done, err := j.readBatch(buf, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 3 || done != 3*len(line) {
		t.Fatalf("read %d lines in %d bytes, want 3 in %d", len(batch), done, 3*len(line))
	}
	for i, c := range buf[done:] {
		if c != 0xff {
			t.Fatalf("the read wrote the buffer %d bytes past the appends", i)
		}
	}
}
