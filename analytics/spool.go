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

	"github.com/shariah-screen/shariah/account"
)

// The usage spool is a journal of usage events on local disk: every event is copied into it before the
// response that produced it is sent, and the writer ships it to ClickHouse from there. The active segment
// is a file mapped shared into memory, so an append is an atomic add and a copy, no system call; the
// pages belong to the kernel's page cache, so what was copied survives a kill -9 of the process (as a
// write(2) would; no fsync: a crash of the machine is not covered). While ClickHouse is unavailable the
// journal grows, bounded by a size cap; when ClickHouse returns it is shipped in order.
//
// Layout: <dir>/slot-N/ is one process's journal, held with an exclusive flock on slot-N/lock, so several
// processes can share a directory and a process that died leaves its slot to the next one to start (or to
// a running one, which adopts and drains it). A slot holds segments NNNNNNNNNNNN.log and `shipped`, the
// position ("segment offset") up to which ClickHouse holds the events. A line is one event. A segment is
// created at its full size (zeros) and cut to its lines when sealed; one left by a killed process is cut
// when its slot is next taken, and the reader passes over zeros of places never written and lines cut by
// them. A line without its newline (cut by a crash) is never shipped.
//
// The next segment is made ready off the request path (spare.seg: created, mapped and each of its pages
// written once, zeros over zeros), and sealing renames it into place. Without it, the first copy into
// each 4 KB page of a fresh segment takes a page fault on the request path: one in about twenty events,
// and on this project's virtual machines a fault costs tens of microseconds (make load: 62-76 faults a
// thousand metered requests, the spool's copy 1.9 us a request of which almost all the faults; the same
// pages written ahead by a goroutine of their own cost 11 us each, once, on no request's path).
//
// Those 11 us a page were still 45 ms of the edge's CPU a segment (0.6 us a metered request at 220 bytes
// an event), and a new segment's pages are new to the page cache every time. So a segment is recycled:
// sealing keeps its mapping (the file cut to its lines as before), and when the shipper has shipped it,
// instead of removing it, it renames it free.seg; the next preparation renames it spare.seg, clears its
// written bytes to zeros (a copy into pages still in memory and mapped: no fault) and extends it to its
// full size. A fresh spare is made only when no shipped segment is waiting (the first two seals, or while
// ClickHouse is away). A process killed at any step leaves free.seg or spare.seg, both removed when the
// slot is next taken: neither holds an event the shipped position has not passed.

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
	activeLen atomic.Int64 // bytes taken in the active segment (past segmentBytes once it is full)

	mapped []byte       // the active segment, mapped shared: an append is a copy into it
	full   atomic.Int64 // where the first append that did not fit began (segmentBytes: none yet)

	// the next segment, prepared by a goroutine of its own (prepareSpare); spareMu guards both fields
	spareMu   sync.Mutex
	spare     *spareSegment // ready to take; nil while none is
	preparing sync.WaitGroup
	spareBusy bool // a preparation is running
	// segments sealed by this process, still mapped, until they are shipped (at most maxRetired: the
	// oldest is unmapped when more are sealed while shipping lags); and a shipped one, renamed free.seg,
	// waiting to be cleared into the next spare. spareMu guards both.
	retired []*spareSegment
	free    *spareSegment
	// afterTakeFree, when set (tests), runs between takeFree and reuse: where a segment shipped meanwhile
	// is released.
	afterTakeFree func()

	// read side, used by the shipper only
	seq, off uint64 // the shipped position
	torn     int64  // bytes passed over at the end of sealed segments (lines cut by a crash)
	reader   *os.File
	readSeq  uint64
	// unsure: the position was read from disk, and the process that held the slot before may have
	// inserted the batch that follows it and stopped before recording that; the shipper looks in
	// ClickHouse for the batch's leading rows before it inserts (UsageWriter.alreadyShipped).
	unsure bool
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
	j := &journal{dir: dir, lock: f, unsure: true}
	// a spare or a free segment left by a killed process holds no event (a free one was shipped):
	// remove them (the next spare is prepared anew)
	for _, p := range []string{j.sparePath(), j.freePath()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			j.close()
			return nil, false, fmt.Errorf("usage spool: %w", err)
		}
	}
	if err := j.loadPosition(); err != nil {
		j.close()
		return nil, false, err
	}
	if err := j.trimSegments(); err != nil {
		j.close()
		return nil, false, err
	}
	return j, true, nil
}

// trimSegments cuts the unwritten zeros off the segments a process left mapped when it was killed (they
// keep their full mapped size), so that sizes count events again.
func (j *journal) trimSegments() error {
	segs, err := j.segments()
	if err != nil {
		return err
	}
	for _, seq := range segs {
		if err := trimZeros(j.segPath(seq)); err != nil {
			return fmt.Errorf("usage spool: %w", err)
		}
	}
	return nil
}

// trimZeros truncates a file of segmentBytes after its last byte that is not zero.
func trimZeros(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != segmentBytes {
		return err
	}
	buf := make([]byte, 64<<10)
	for end := fi.Size(); end > 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				return f.Truncate(start + int64(i) + 1)
			}
		}
		end = start
	}
	return f.Truncate(0)
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
		if j.mapped != nil && s == j.activeSeq {
			n += min(j.activeLen.Load(), j.full.Load()) // the file is the segment's full size
		} else {
			fi, err := os.Stat(j.segPath(s))
			if err != nil {
				continue
			}
			n += fi.Size()
		}
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
	f, m, err := j.openSegment(next)
	if err != nil {
		return err
	}
	if len(segs) == 0 || j.seq == 0 {
		j.seq, j.off = next, 0
	}
	j.active, j.mapped, j.activeSeq = f, m, next
	j.activeLen.Store(0)
	j.full.Store(segmentBytes)
	j.prepareSpare()
	return nil
}

// openSegment creates a segment of segmentBytes (sparse: zeros until written) and maps it shared. Its
// pages are the page cache's: what is copied into them survives a kill -9 of the process, as a write(2)
// would, without a system call per line.
func (j *journal) openSegment(seq uint64) (*os.File, []byte, error) {
	f, err := os.OpenFile(j.segPath(seq), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("usage spool: %w", err)
	}
	if err := f.Truncate(segmentBytes); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("usage spool: %w", err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, segmentBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("usage spool: map a segment: %w", err)
	}
	return f, m, nil
}

// append writes one line to the active segment and returns once it is there (in the page cache: a
// process killed after append returned loses nothing). Appends take their place with one atomic add and
// copy into the mapped segment concurrently; the one that does not fit seals the segment.
func (j *journal) append(line []byte) error {
	n := int64(len(line))
	if n > segmentBytes {
		return fmt.Errorf("usage spool: a line of %d bytes", n)
	}
	for {
		j.mu.RLock()
		if j.mapped == nil {
			j.mu.RUnlock()
			return errors.New("usage spool: closed")
		}
		end := j.activeLen.Add(n)
		if end <= segmentBytes {
			copy(j.mapped[end-n:end], line)
			j.mu.RUnlock()
			return nil
		}
		// did not fit: the segment ends where the first such append began
		for {
			cur := j.full.Load()
			if end-n >= cur || j.full.CompareAndSwap(cur, end-n) {
				break
			}
		}
		j.mu.RUnlock()
		if err := j.seal(); err != nil {
			return err
		}
	}
}

// seal ends the full active segment at its last line and begins the next. Every copy into it has
// finished: copies hold mu shared, sealing holds it exclusively.
func (j *journal) seal() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.activeLen.Load() <= segmentBytes {
		return nil // sealed meanwhile by another append
	}
	if j.mapped == nil {
		return errors.New("usage spool: closed")
	}
	f, m, err := j.takeSpare(j.activeSeq + 1)
	if err != nil {
		return err // the next append tries again; until then events are dropped and counted
	}
	j.retireActive()
	j.active, j.mapped, j.activeSeq = f, m, j.activeSeq+1
	j.activeLen.Store(0)
	j.full.Store(segmentBytes)
	j.prepareSpare()
	return nil
}

// spareSegment is a segment file of segmentBytes zeros, mapped, its pages faulted in for writing; or,
// retired or free, a sealed segment still mapped: seq and used (its length) say which and how much of it
// to clear.
type spareSegment struct {
	f    *os.File
	m    []byte
	seq  uint64
	used int64
}

// maxRetired bounds the sealed segments kept mapped while they wait to be shipped.
const maxRetired = 2

func (j *journal) sparePath() string { return filepath.Join(j.dir, "spare.seg") }
func (j *journal) freePath() string  { return filepath.Join(j.dir, "free.seg") }

// prepareSpare starts making the next segment ready, unless one is ready or being made.
func (j *journal) prepareSpare() {
	j.spareMu.Lock()
	defer j.spareMu.Unlock()
	if j.spare != nil || j.spareBusy {
		return
	}
	j.spareBusy = true
	j.preparing.Add(1)
	go func() {
		defer j.preparing.Done()
		sp := j.makeSpare()
		j.spareMu.Lock()
		j.spare, j.spareBusy = sp, false
		j.spareMu.Unlock()
	}()
}

// makeSpare makes spare.seg ready: from the shipped segment waiting as free.seg when there is one,
// otherwise created, mapped and pre-faulted; nil when every step fails (sealing then opens the next
// segment itself, as it did before spares).
func (j *journal) makeSpare() *spareSegment {
	if fr := j.takeFree(); fr != nil {
		if j.afterTakeFree != nil {
			j.afterTakeFree()
		}
		if sp := j.reuse(fr); sp != nil {
			return sp
		}
	}
	f, err := os.OpenFile(j.sparePath(), os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil
	}
	if err := f.Truncate(segmentBytes); err != nil {
		f.Close()
		return nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, segmentBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil
	}
	// A write per page (a zero over a zero: the content stays as it was) faults every page in, writable,
	// now rather than under an append. No one else holds this mapping.
	for i := 0; i < len(m); i += pageSize {
		m[i] = 0
	}
	return &spareSegment{f: f, m: m}
}

var pageSize = os.Getpagesize()

// takeFree takes the shipped segment waiting as free.seg, renamed spare.seg, or nil. The rename is done
// holding spareMu, as release's rename to free.seg is: a segment shipped meanwhile cannot take the name
// of the one being reused.
func (j *journal) takeFree() *spareSegment {
	j.spareMu.Lock()
	defer j.spareMu.Unlock()
	fr := j.free
	j.free = nil
	if fr == nil {
		return nil
	}
	if err := os.Rename(j.freePath(), j.sparePath()); err != nil {
		fr.drop()
		os.Remove(j.freePath())
		return nil
	}
	return fr
}

// reuse turns a shipped segment taken by takeFree (now spare.seg, still mapped) into the spare: its lines
// cleared to zeros, its file extended to the full size again (past the cut it holds zeros) and the pages
// past the cut faulted in. nil when a step fails (the segment is then dropped and removed).
func (j *journal) reuse(fr *spareSegment) *spareSegment {
	clear(fr.m[:fr.used])
	if err := fr.f.Truncate(segmentBytes); err != nil {
		fr.drop()
		os.Remove(j.sparePath())
		return nil
	}
	// the cut took the pages past the segment's last line out of the mapping
	for i := int(fr.used) &^ (pageSize - 1); i < len(fr.m); i += pageSize {
		fr.m[i] = 0
	}
	return fr
}

// retireActive cuts the active segment's file to the lines written and keeps its mapping among the
// retired (holding mu), to be reused once it is shipped.
func (j *journal) retireActive() {
	used := j.cutActive()
	sp := &spareSegment{f: j.active, m: j.mapped, seq: j.activeSeq, used: used}
	j.mapped = nil // (active stays set until seal replaces it: sealed reads it to tell an adopted slot)
	j.spareMu.Lock()
	var old *spareSegment
	if len(j.retired) == maxRetired {
		old = j.retired[0]
		j.retired = append(j.retired[:0], j.retired[1:]...)
	}
	j.retired = append(j.retired, sp)
	j.spareMu.Unlock()
	if old != nil {
		old.drop() // its file stays: it is not shipped yet
	}
}

// release disposes of a segment the shipper has shipped: a retired one becomes free.seg for the next
// spare when none is waiting; any other is removed.
func (j *journal) release(seq uint64) {
	j.spareMu.Lock()
	var sp *spareSegment
	for i, r := range j.retired {
		if r.seq == seq {
			sp = r
			j.retired = append(j.retired[:i], j.retired[i+1:]...)
			break
		}
	}
	if sp != nil && j.free == nil {
		if err := os.Rename(j.segPath(seq), j.freePath()); err == nil {
			j.free = sp
			j.spareMu.Unlock()
			return
		}
	}
	j.spareMu.Unlock()
	if sp != nil {
		sp.drop()
	}
	os.Remove(j.segPath(seq))
}

// takeSpare returns the prepared spare renamed as segment seq, or, when none is ready, a new segment
// made now (openSegment).
func (j *journal) takeSpare(seq uint64) (*os.File, []byte, error) {
	j.spareMu.Lock()
	sp := j.spare
	j.spare = nil
	j.spareMu.Unlock()
	if sp != nil {
		if err := os.Rename(j.sparePath(), j.segPath(seq)); err == nil {
			return sp.f, sp.m, nil
		}
		sp.drop()
	}
	return j.openSegment(seq)
}

// drop unmaps and closes a spare (its file is removed or renamed by the caller).
func (sp *spareSegment) drop() {
	_ = syscall.Munmap(sp.m)
	sp.f.Close()
}

// dropSpare waits for a preparation running and removes the spare and the free segment, and unmaps the
// retired ones (their files stay: not shipped yet) (closing the journal).
func (j *journal) dropSpare() {
	j.preparing.Wait()
	j.spareMu.Lock()
	sp, fr, retired := j.spare, j.free, j.retired
	j.spare, j.free, j.retired = nil, nil, nil
	j.spareMu.Unlock()
	if sp != nil {
		sp.drop()
		os.Remove(j.sparePath())
	}
	if fr != nil {
		fr.drop()
		os.Remove(j.freePath())
	}
	for _, r := range retired {
		r.drop()
	}
}

// unmapActive unmaps the active segment and cuts its file to the lines written (holding mu).
func (j *journal) unmapActive() {
	if j.mapped == nil {
		return
	}
	_ = syscall.Munmap(j.mapped)
	j.mapped = nil
	j.cutActive()
	j.active.Close()
}

// cutActive cuts the active segment's file to the lines written and returns their length (holding mu).
func (j *journal) cutActive() int64 {
	used := min(j.activeLen.Load(), j.full.Load())
	_ = j.active.Truncate(used)
	return used
}

// sealed reports whether segment seq will get no more lines.
func (j *journal) sealed(seq uint64) bool {
	sealed, _ := j.readable(seq)
	return sealed
}

// readable reports whether segment seq is sealed and, when it is not (this process's active segment),
// how far appends have taken it: a read of it stops there instead of copying the segment's rest, up to
// 16 MB of zeros, at every ship. Both are read under one lock, so they agree.
func (j *journal) readable(seq uint64) (sealed bool, end int64) {
	if j.active == nil {
		return true, 0
	}
	j.mu.RLock()
	defer j.mu.RUnlock()
	if seq < j.activeSeq {
		return true, 0
	}
	return false, min(j.activeLen.Load(), segmentBytes)
}

// readBatch reads up to max complete lines from the shipped position, appended to lines (given empty:
// the shipper reuses its slice), slices of buf. done is the number of bytes they take (to pass to
// advance); a sealed segment read to its end moves the position to the next segment.
func (j *journal) readBatch(buf []byte, lines [][]byte, maxLines int) (_ [][]byte, done int, _ error) {
	for {
		if ok, err := j.openCurrent(); err != nil || !ok {
			return nil, 0, err
		}
		sealed, end := j.readable(j.seq) // before reading: a segment sealed after the read is read again
		rb := buf
		if !sealed { // no further than appends have taken the active segment
			rb = buf[:max(min(int64(len(buf)), end-int64(j.off)), 0)]
		}
		chunk, n, err := j.readChunk(rb, sealed)
		if err != nil {
			return nil, 0, err
		}
		lines, done = collectLines(chunk, lines, maxLines)
		if done > 0 && len(lines) == 0 {
			// only zeros and cut lines so far: pass over them and read on
			j.passOver(done)
			continue
		}
		if len(lines) > 0 || !sealed {
			return lines, done, nil
		}
		if n == len(buf) {
			if bytes.IndexByte(chunk, '\n') >= 0 {
				return lines, done, nil
			}
			// a whole buffer without a line: zeros of a segment left unfinished by a killed process
			j.passOver(n)
			continue
		}
		if ok, err := j.finishSegment(n); err != nil || !ok {
			return nil, 0, err
		}
	}
}

// openCurrent opens the segment of the shipped position for reading, unless it is open. A sealed
// segment that is gone moves the position to the next segment; ok is false when there is no segment to
// read yet.
func (j *journal) openCurrent() (ok bool, _ error) {
	for j.reader == nil || j.readSeq != j.seq {
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
				return false, nil
			}
			return false, err
		}
		j.reader, j.readSeq = f, j.seq
	}
	return true, nil
}

// readChunk reads buf's length from the shipped position: n bytes read, chunk the part that may hold
// lines (in a segment not sealed, up to the first zero: a place taken by an append still copying, or
// the segment's unwritten rest).
func (j *journal) readChunk(buf []byte, sealed bool) (chunk []byte, n int, _ error) {
	n, err := j.reader.ReadAt(buf, int64(j.off))
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	chunk = buf[:n]
	if !sealed {
		if z := bytes.IndexByte(chunk, 0); z >= 0 {
			chunk = chunk[:z]
		}
	}
	return chunk, n, nil
}

// collectLines appends chunk's complete lines to lines until it holds maxLines; done is the bytes of
// chunk they take. Zeros of a place never written, and any line cut by them (in a segment left by a
// process killed while appending), are passed over: counted in done, not appended.
func collectLines(chunk []byte, lines [][]byte, maxLines int) (_ [][]byte, done int) {
	for len(lines) < maxLines {
		i := bytes.IndexByte(chunk[done:], '\n')
		if i < 0 {
			break
		}
		line := chunk[done : done+i]
		if bytes.IndexByte(line, 0) >= 0 { // (IndexByte is vectorised, LastIndexByte is not: most lines have none)
			line = line[bytes.LastIndexByte(line, 0)+1:]
		}
		if len(line) > 0 {
			lines = append(lines, line)
		}
		done += i + 1
	}
	return lines, done
}

// passOver moves the position past n bytes that hold no line to ship (counted as torn).
func (j *journal) passOver(n int) {
	j.torn += int64(n)
	j.off += uint64(n)
}

// finishSegment ends the reading of a sealed segment read to its end, tail bytes left at the position.
// A tail (without a newline) is a write cut by a crash: passed over. Then the position moves to the next
// segment, if any (ok false: none yet), and the finished segment is removed.
func (j *journal) finishSegment(tail int) (ok bool, _ error) {
	if tail > 0 {
		j.passOver(tail)
		if err := j.savePosition(); err != nil {
			return false, err
		}
	}
	next, ok := j.nextSegment()
	if !ok {
		return false, nil
	}
	old := j.seq
	j.seq, j.off = next, 0
	if err := j.savePosition(); err != nil {
		return false, err
	}
	j.reader.Close()
	j.reader = nil
	j.release(old)
	return true, nil
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
		j.mu.Lock()
		j.unmapActive()
		j.mu.Unlock()
		j.dropSpare()
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

// spoolVersion prefixes every line, so a later format can be told apart. u3 adds the event id (decimal)
// after u2's fields; u2 adds the plan and the error code after u1's fields. u1 and u2 lines (written by
// an edge before the upgrade, still in a spool) are read with event id 0 (and u1's with plan and error
// code empty).
const (
	spoolVersion   = "u3"
	spoolVersionV2 = "u2"
	spoolVersionV1 = "u1"
)

// encodeEvent appends an event's line (newline included).
func encodeEvent(b []byte, e account.UsageEvent) []byte {
	b = append(b, spoolVersion...)
	for _, s := range []string{e.RequestID, e.KeyID, e.UserID, e.KeyPrefix, e.Method, e.Route} {
		b = append(b, '\t')
		b = appendQuoted(b, s)
	}
	for _, n := range []int64{int64(e.Status), int64(e.Tokens), int64(e.Overage), e.Latency.Microseconds(), e.Time.UnixMilli()} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
	}
	for _, s := range []string{e.Plan, e.ErrorCode} {
		b = append(b, '\t')
		b = appendQuoted(b, s)
	}
	b = append(b, '\t')
	b = strconv.AppendUint(b, e.EventID, 10)
	return append(b, '\n')
}

// appendQuoted is strconv.AppendQuote, with a fast path for the usual field (printable ASCII, no quote
// or backslash: quoted as it is).
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// parseEvent reads a line written by encodeEvent (without its newline), or by the u1 or u2 format. The event's
// strings are slices of the line: the shipper passes the journal's read buffer as a string
// (unsafe.String) and copies the strings into the insert's columns before it reads the next batch into
// that buffer, so it decodes without allocating.
func parseEvent(str string) (account.UsageEvent, error) {
	var f [15]string
	n := 0
	for n < len(f)-1 {
		k := strings.IndexByte(str, '\t')
		if k < 0 {
			break
		}
		f[n], str = str[:k], str[k+1:]
		n++
	}
	f[n] = str
	fields := n + 1
	if strings.IndexByte(str, '\t') >= 0 || !(f[0] == spoolVersion && fields == 15 || f[0] == spoolVersionV2 && fields == 14 || f[0] == spoolVersionV1 && fields == 12) {
		return account.UsageEvent{}, fmt.Errorf("usage spool: malformed line (%d fields)", fields)
	}
	var s [6]string
	for i := range s {
		v, err := unquote(f[1+i])
		if err != nil {
			return account.UsageEvent{}, fmt.Errorf("usage spool: field %d: %w", 1+i, err)
		}
		s[i] = v
	}
	var num [5]int64
	for i := range num {
		v, err := strconv.ParseInt(f[7+i], 10, 64)
		if err != nil {
			return account.UsageEvent{}, fmt.Errorf("usage spool: field %d: %w", 7+i, err)
		}
		num[i] = v
	}
	var more [2]string // u2: plan and error code
	for i := range more {
		if fields == 12 {
			break
		}
		v, err := unquote(f[12+i])
		if err != nil {
			return account.UsageEvent{}, fmt.Errorf("usage spool: field %d: %w", 12+i, err)
		}
		more[i] = v
	}
	var id uint64
	if fields == 15 {
		v, err := strconv.ParseUint(f[14], 10, 64)
		if err != nil {
			return account.UsageEvent{}, fmt.Errorf("usage spool: field 14: %w", err)
		}
		id = v
	}
	return account.UsageEvent{EventID: id, RequestID: s[0], KeyID: s[1], UserID: s[2], KeyPrefix: s[3], Method: s[4], Route: s[5],
		Status: int(num[0]), Tokens: int(num[1]), Overage: int(num[2]), Latency: time.Duration(num[3]) * time.Microsecond,
		Time: time.UnixMilli(num[4]).UTC(), Plan: more[0], ErrorCode: more[1]}, nil
}

// unquote is strconv.Unquote of a quoted field, taking the inside as it is when nothing is escaped.
func unquote(q string) (string, error) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && strings.IndexByte(q, '\\') < 0 &&
		strings.IndexByte(q[1:len(q)-1], '"') < 0 {
		return q[1 : len(q)-1], nil
	}
	return strconv.Unquote(q)
}
