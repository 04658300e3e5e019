package analytics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// The usage spool is a journal of usage events on local disk: every event is appended to it before the
// response that produced it is sent (one write(2), no fsync: what the kernel holds survives a kill -9 of
// the process), and the writer ships it to ClickHouse from there. While ClickHouse is unavailable the
// journal grows, bounded by a size cap; when ClickHouse returns it is shipped in order.
//
// Layout: <dir>/slot-N/ is one process's journal, held with an exclusive flock on slot-N/lock, so several
// processes can share a directory and a process that died leaves its slot to the next one to start (or to
// a running one, which adopts and drains it). A slot holds segments NNNNNNNNNNNN.log, appended to with
// O_APPEND, and `shipped`, the position ("segment offset") up to which ClickHouse holds the events.
// A line is one event; a line without its newline (a write cut by a crash) is never shipped.

// segmentBytes is the size at which the active segment is sealed and a new one begun.
const segmentBytes = 16 << 20

// maxSlots bounds the processes sharing one spool directory.
const maxSlots = 64

// journal is one slot of the spool.
type journal struct {
	dir  string
	lock *os.File

	mu        sync.RWMutex // writers hold it shared; sealing the active segment holds it exclusively
	active    *os.File     // nil for an adopted slot: shipped, never written
	activeSeq uint64
	activeLen atomic.Int64

	// group commit of appends (see append)
	gmu      sync.Mutex
	gcond    *sync.Cond
	queued   []byte // lines waiting for the next write
	spare    []byte
	batch    uint64 // the batch queued lines belong to
	written  uint64 // batches written (batch numbers below it are on disk)
	writing  bool   // a writer is in write(2) now
	batchErr error  // the error of the last batch written

	// read side, used by the shipper only
	seq, off uint64 // the shipped position
	torn     int64  // bytes passed over at the end of sealed segments (lines cut by a crash)
	reader   *os.File
	readSeq  uint64
}

// openSlot takes the first free slot of dir (creating it) and begins a new active segment.
func openSlot(dir string) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("usage spool: %w", err)
	}
	for n := 0; n < maxSlots; n++ {
		j, ok, err := lockSlot(filepath.Join(dir, "slot-"+strconv.Itoa(n)))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := j.begin(); err != nil {
			j.close()
			return nil, err
		}
		return j, nil
	}
	return nil, fmt.Errorf("usage spool: all %d slots of %s are held by running processes", maxSlots, dir)
}

// lockSlot locks one slot directory without waiting; ok is false when another process holds it.
func lockSlot(dir string) (*journal, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("usage spool: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("usage spool: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("usage spool: lock %s: %w", dir, err)
	}
	j := &journal{dir: dir, lock: f}
	if err := j.loadPosition(); err != nil {
		j.close()
		return nil, false, err
	}
	return j, true, nil
}

// segments lists the slot's segment numbers in order.
func (j *journal) segments() ([]uint64, error) {
	ents, err := os.ReadDir(j.dir)
	if err != nil {
		return nil, fmt.Errorf("usage spool: %w", err)
	}
	var out []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".log")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(name, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out, nil
}

func (j *journal) segPath(seq uint64) string {
	return filepath.Join(j.dir, fmt.Sprintf("%012d.log", seq))
}

// loadPosition reads the shipped position; without one, shipping starts at the first segment.
func (j *journal) loadPosition() error {
	b, err := os.ReadFile(filepath.Join(j.dir, "shipped"))
	if err == nil {
		if _, err := fmt.Sscanf(string(b), "%d %d", &j.seq, &j.off); err == nil {
			return nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("usage spool: %w", err)
	}
	segs, err := j.segments()
	if err != nil {
		return err
	}
	j.seq, j.off = 0, 0
	if len(segs) > 0 {
		j.seq = segs[0]
	}
	return nil
}

// savePosition records the shipped position (write and rename: a crash leaves the old or the new one).
func (j *journal) savePosition() error {
	tmp := filepath.Join(j.dir, "shipped.tmp")
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d %d\n", j.seq, j.off)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(j.dir, "shipped"))
}

// pending is the journal's bytes not yet shipped.
func (j *journal) pending() (int64, error) {
	segs, err := j.segments()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range segs {
		if s < j.seq {
			continue
		}
		fi, err := os.Stat(j.segPath(s))
		if err != nil {
			continue
		}
		n += fi.Size()
		if s == j.seq {
			n -= int64(j.off)
		}
	}
	return max(n, 0), nil
}

// begin opens a new active segment after every existing one.
func (j *journal) begin() error {
	segs, err := j.segments()
	if err != nil {
		return err
	}
	next := uint64(1)
	if len(segs) > 0 {
		next = segs[len(segs)-1] + 1
	}
	f, err := os.OpenFile(j.segPath(next), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("usage spool: %w", err)
	}
	if len(segs) == 0 || j.seq == 0 {
		j.seq, j.off = next, 0
	}
	j.active, j.activeSeq = f, next
	j.activeLen.Store(0)
	return nil
}

// append writes one line to the active segment and returns once it is there (in the page cache: a
// process killed after append returned loses nothing). Appends that arrive while a write is in progress
// are written together by one of them in the next write (group commit): one write(2) per batch instead
// of one per request.
func (j *journal) append(line []byte) error {
	j.gmu.Lock()
	if j.gcond == nil {
		j.gcond = sync.NewCond(&j.gmu)
	}
	j.queued = append(j.queued, line...)
	mine := j.batch
	for {
		if j.written > mine {
			err := j.batchErr
			j.gmu.Unlock()
			return err
		}
		if !j.writing {
			break
		}
		j.gcond.Wait()
	}
	// write the queued batch (it holds this line) while later appends gather the next one
	buf := j.queued
	j.queued, j.spare = j.spare[:0], nil
	j.batch++
	j.writing = true
	j.gmu.Unlock()

	j.mu.RLock()
	_, err := j.active.Write(buf)
	j.mu.RUnlock()
	sealNow := err == nil && j.activeLen.Add(int64(len(buf))) >= segmentBytes

	j.gmu.Lock()
	j.spare = buf[:0]
	j.written = mine + 1
	j.batchErr = err
	j.writing = false
	j.gcond.Broadcast()
	j.gmu.Unlock()
	if sealNow {
		j.seal()
	}
	return err
}

// seal closes the active segment and begins the next, when it is still over size.
func (j *journal) seal() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.activeLen.Load() < segmentBytes {
		return
	}
	old := j.active
	f, err := os.OpenFile(j.segPath(j.activeSeq+1), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return // keep appending to the old one; the next append tries again
	}
	j.active, j.activeSeq = f, j.activeSeq+1
	j.activeLen.Store(0)
	old.Close()
}

// sealedBefore reports whether segment seq will get no more lines.
func (j *journal) sealed(seq uint64) bool {
	if j.active == nil {
		return true
	}
	j.mu.RLock()
	defer j.mu.RUnlock()
	return seq < j.activeSeq
}

// readBatch reads up to max complete lines from the shipped position. done is the number of bytes they
// take (to pass to advance); a sealed segment read to its end moves the position to the next segment.
func (j *journal) readBatch(buf []byte, maxLines int) (lines [][]byte, done int, err error) {
	for {
		if j.reader == nil || j.readSeq != j.seq {
			if j.reader != nil {
				j.reader.Close()
				j.reader = nil
			}
			f, err := os.Open(j.segPath(j.seq))
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && j.sealed(j.seq) {
					if next, ok := j.nextSegment(); ok {
						j.seq, j.off = next, 0
						continue
					}
				}
				if errors.Is(err, os.ErrNotExist) {
					return nil, 0, nil
				}
				return nil, 0, err
			}
			j.reader, j.readSeq = f, j.seq
		}
		sealed := j.sealed(j.seq) // before reading: a segment sealed after the read is read again
		n, rerr := j.reader.ReadAt(buf, int64(j.off))
		if rerr != nil && rerr != io.EOF {
			return nil, 0, rerr
		}
		chunk := buf[:n]
		for len(lines) < maxLines {
			i := bytes.IndexByte(chunk[done:], '\n')
			if i < 0 {
				break
			}
			lines = append(lines, chunk[done:done+i])
			done += i + 1
		}
		if len(lines) > 0 || !sealed || n == len(buf) {
			return lines, done, nil
		}
		// A sealed segment read to its end. A tail without a newline is a write cut by a crash: passed
		// over. Then the next segment, if any.
		if n > 0 {
			j.torn += int64(n)
			j.off += uint64(n)
			if err := j.savePosition(); err != nil {
				return nil, 0, err
			}
		}
		next, ok := j.nextSegment()
		if !ok {
			return nil, 0, nil
		}
		old := j.seq
		j.seq, j.off = next, 0
		if err := j.savePosition(); err != nil {
			return nil, 0, err
		}
		j.reader.Close()
		j.reader = nil
		os.Remove(j.segPath(old))
	}
}

// nextSegment is the first segment after the shipped one.
func (j *journal) nextSegment() (uint64, bool) {
	segs, err := j.segments()
	if err != nil {
		return 0, false
	}
	for _, s := range segs {
		if s > j.seq {
			return s, true
		}
	}
	return 0, false
}

// advance moves the shipped position past n bytes of the current segment and records it.
func (j *journal) advance(n int) error {
	j.off += uint64(n)
	return j.savePosition()
}

// empty reports whether an adopted journal has nothing left.
func (j *journal) empty() bool {
	p, err := j.pending()
	return err == nil && p == 0
}

func (j *journal) close() {
	if j.reader != nil {
		j.reader.Close()
	}
	if j.active != nil {
		j.active.Close()
	}
	if j.lock != nil {
		j.lock.Close() // releases the flock
	}
}

// removeFiles deletes a drained adopted slot's files (its directory stays for the next process).
func (j *journal) removeFiles() {
	segs, _ := j.segments()
	for _, s := range segs {
		os.Remove(j.segPath(s))
	}
	os.Remove(filepath.Join(j.dir, "shipped"))
}

// spoolVersion prefixes every line, so a later format can be told apart.
const spoolVersion = "u1"

// encodeEvent appends an event's line (newline included).
func encodeEvent(b []byte, e shariah.UsageEvent) []byte {
	b = append(b, spoolVersion...)
	for _, s := range []string{e.RequestID, e.KeyID, e.UserID, e.KeyPrefix, e.Method, e.Route} {
		b = append(b, '\t')
		b = strconv.AppendQuote(b, s)
	}
	for _, n := range []int64{int64(e.Status), int64(e.Tokens), int64(e.Overage), e.Latency.Microseconds(), e.Time.UnixMilli()} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, '\n')
}

// decodeEvent reads a line written by encodeEvent (without its newline).
func decodeEvent(line []byte) (shariah.UsageEvent, error) {
	f := strings.Split(string(line), "\t")
	if len(f) != 12 || f[0] != spoolVersion {
		return shariah.UsageEvent{}, fmt.Errorf("usage spool: malformed line (%d fields)", len(f))
	}
	var s [6]string
	for i := range s {
		v, err := strconv.Unquote(f[1+i])
		if err != nil {
			return shariah.UsageEvent{}, fmt.Errorf("usage spool: field %d: %w", 1+i, err)
		}
		s[i] = v
	}
	var n [5]int64
	for i := range n {
		v, err := strconv.ParseInt(f[7+i], 10, 64)
		if err != nil {
			return shariah.UsageEvent{}, fmt.Errorf("usage spool: field %d: %w", 7+i, err)
		}
		n[i] = v
	}
	return shariah.UsageEvent{RequestID: s[0], KeyID: s[1], UserID: s[2], KeyPrefix: s[3], Method: s[4], Route: s[5],
		Status: int(n[0]), Tokens: int(n[1]), Overage: int(n[2]), Latency: time.Duration(n[3]) * time.Microsecond,
		Time: time.UnixMilli(n[4]).UTC()}, nil
}
