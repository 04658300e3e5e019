package svgchart

import (
	"strconv"
	"strings"

	"github.com/shariah-screen/shariah/insights"
)

// timeAxis places a trajectory's quarters on a time axis: one slot per quarter from the first to the
// last, so a quarter with no filing leaves an empty slot (a visible gap, named) rather than drawing the
// quarters either side of it next to each other. Quarters are counted in fiscal quarters when every
// point names one (Q1-Q4 and a fiscal year), else in calendar quarters of the period ends.
type timeAxis struct {
	fiscal  bool
	first   int   // ordinal of the first slot: year x 4 + quarter - 1
	slots   int   // from the first quarter to the last
	ord     []int // the slot of each point
	missing []int // ordinals of the slots without a point, ascending
}

// fiscalOrdinal is the ordinal of a point's fiscal quarter, false when it names none.
func fiscalOrdinal(p insights.TrajectoryPoint) (int, bool) {
	if p.FiscalYear == 0 || len(p.Period) != 2 || p.Period[0] != 'Q' || p.Period[1] < '1' || p.Period[1] > '4' {
		return 0, false
	}
	return p.FiscalYear*4 + int(p.Period[1]-'1'), true
}

// calendarOrdinal is the ordinal of the calendar quarter a point's period ends in, false when the date
// does not parse.
func calendarOrdinal(p insights.TrajectoryPoint) (int, bool) {
	if len(p.PeriodEnd) < 7 {
		return 0, false
	}
	y, err1 := strconv.Atoi(p.PeriodEnd[:4])
	m, err2 := strconv.Atoi(p.PeriodEnd[5:7])
	if err1 != nil || err2 != nil || m < 1 || m > 12 {
		return 0, false
	}
	return y*4 + (m-1)/3, true
}

func newTimeAxis(pts []insights.TrajectoryPoint) timeAxis {
	a := timeAxis{fiscal: true, ord: make([]int, len(pts))}
	for i, p := range pts {
		o, ok := fiscalOrdinal(p)
		if !ok {
			a.fiscal = false
			break
		}
		a.ord[i] = o
	}
	if !a.fiscal {
		for i, p := range pts {
			o, ok := calendarOrdinal(p)
			if !ok { // no time to place it by: one slot after the previous point
				o = 0
				if i > 0 {
					o = a.ord[i-1] + 1
				}
			}
			a.ord[i] = o
		}
	}
	if len(pts) == 0 {
		return a
	}
	lo, hi := a.ord[0], a.ord[0]
	for _, o := range a.ord {
		lo, hi = min(lo, o), max(hi, o)
	}
	a.first, a.slots = lo, hi-lo+1
	has := map[int]bool{}
	for _, o := range a.ord {
		has[o] = true
	}
	for o := lo; o <= hi; o++ {
		if !has[o] {
			a.missing = append(a.missing, o)
		}
	}
	return a
}

// quarterName names a slot: "Q1 2025" (fiscal or calendar, as the axis counts).
func (a timeAxis) quarterName(o int) string {
	return "Q" + strconv.Itoa(o%4+1) + " " + strconv.Itoa(o/4)
}

// gapRuns names the missing quarters, consecutive ones of three or more as a range:
// ["Q1 2025", "Q2 2025", "Q1 2022 to Q4 2023"].
func (a timeAxis) gapRuns() []string {
	var out []string
	for i := 0; i < len(a.missing); {
		j := i
		for j+1 < len(a.missing) && a.missing[j+1] == a.missing[j]+1 {
			j++
		}
		if j-i >= 2 {
			out = append(out, a.quarterName(a.missing[i])+" to "+a.quarterName(a.missing[j]))
		} else {
			for k := i; k <= j; k++ {
				out = append(out, a.quarterName(a.missing[k]))
			}
		}
		i = j + 1
	}
	return out
}

// slotWidth is the width of one quarter on the plot.
func (a timeAxis) slotWidth() float64 { return float64(PlotRight-PlotLeft) / float64(max(a.slots, 1)) }

// x is the centre of the slot of ordinal o.
func (a timeAxis) x(o int) float64 { return PlotLeft + (float64(o-a.first)+0.5)*a.slotWidth() }

// safeWidth estimates the rendered width of s at the given size from above: per-character advances at
// least those of DejaVu Sans and Verdana (the faces the pictures name), so a layout that keeps these
// boxes apart keeps the rendered text apart. bold widens by a tenth.
func safeWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("ijlI.,:;|!'()[] ", r):
			w += 0.42
		case strings.ContainsRune("mwMW@%", r):
			w += 1.02
		case r >= 'A' && r <= 'Z':
			w += 0.82
		case r >= '0' && r <= '9':
			w += 0.66
		case r < 128:
			w += 0.66
		default:
			w += 1.0
		}
	}
	if bold {
		w *= 1.1
	}
	return w * size
}

// fit shortens s with an ellipsis until it is at most maxW wide.
func fit(s string, size, maxW float64, bold bool) string {
	if safeWidth(s, size, bold) <= maxW {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && safeWidth(string(r)+"…", size, bold) > maxW {
		r = r[:len(r)-1]
	}
	return strings.TrimRight(string(r), " ,") + "…"
}

// wrap breaks s at spaces into lines at most maxW wide (a single word too long is shortened).
func wrap(s string, size, maxW float64) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if cur != "" && safeWidth(next, size, false) > maxW {
			lines = append(lines, cur)
			next = w
		}
		cur = next
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	for i, l := range lines {
		lines[i] = fit(l, size, maxW, false)
	}
	return lines
}

// spread moves label baselines (sorted by wanted position) at least gap apart within [lo, hi]: down
// from the wanted positions first, then up from hi where the last would fall below it.
func spread(want []float64, gap, lo, hi float64) []float64 {
	out := append([]float64(nil), want...)
	for k := range out {
		out[k] = max(out[k], lo)
		if k > 0 {
			out[k] = max(out[k], out[k-1]+gap)
		}
	}
	for k := len(out) - 1; k >= 0; k-- {
		limit := hi
		if k+1 < len(out) {
			limit = out[k+1] - gap
		}
		out[k] = min(out[k], limit)
	}
	return out
}
