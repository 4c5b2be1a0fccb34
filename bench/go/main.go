// The gmk benchmarks (docs/benchmarks.md, bench/*.c) written with
// goroutines, so that Go's own scheduler does the same work on the same
// machine. Each figure is the median of 5 runs with the min and max, printed
// in the kernel's line format:
//
//	bench spawn nprocs=2 median=84.1 min=80.2 max=90.7 ns/G
//
// Usage: gmkbench -bench=all|name[,name] -nprocs=N
// GOMAXPROCS = N. As with the kernel's bench=, a name (or all) may end in
// /D to divide that benchmark's counts by D, printed as scale=1/D.
// A failed sanity check prints FAIL and the program exits 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const runs = 5 // each figure is the median of this many runs

// Counts from docs/benchmarks.md.
const (
	spawnGs        = 1000000
	yieldsPerG     = 1000000
	pingpongTrips  = 1000000
	fanoutGs       = 100000
	fanoutSteps    = 1000
	parkedGs       = 100000
	latencySleeps  = 1000
	latencySleepNs = 1000000
	stealGs        = 10000
	stealWorkNs    = 10000
	// Go's time slice (runtime.forcePreemptNS), for the latency line.
	goForcePreemptNs = 10000000
)

type ctx struct {
	div    int
	nprocs int
	fail   string
	aux    map[string]float64 // secondary figures of one run
}

func (c *ctx) n(full int) int {
	v := full / c.div
	if v < 1 {
		v = 1
	}
	return v
}

func (c *ctx) failf(format string, a ...interface{}) {
	if c.fail == "" {
		c.fail = fmt.Sprintf(format, a...)
	}
}

type bench struct {
	name     string
	unit     string
	decimals int
	run      func(c *ctx) float64
	aux      []string // names of secondary figures, printed name=median
}

var benches = []bench{
	{"spawn", "ns/G", 1, spawn, nil},
	{"yield", "ns/gosched", 1, yield, nil},
	{"pingpong", "ns/handoff", 1, pingpong, nil},
	{"fanout", "efficiency", 3, fanout, nil},
	{"parked", "B/G", 1, parked, nil},
	{"latency", "us-p99", 1, latency, []string{"p50", "worst", "slice"}},
	{"steal", "wall/ideal", 3, steal, nil},
}

// spawn: one G starts N Gs that each mark a WaitGroup done and exit.
func spawn(c *ctx) float64 {
	n := c.n(spawnGs)
	var wg sync.WaitGroup
	var ran int64
	wg.Add(n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			atomic.AddInt64(&ran, 1)
			wg.Done()
		}()
	}
	wg.Wait()
	wall := time.Since(t0)
	if got := atomic.LoadInt64(&ran); got != int64(n) {
		c.failf("spawn: %d of %d Gs ran", got, n)
	}
	return float64(wall.Nanoseconds()) / float64(n)
}

// yield: 2 Gs each call Gosched N times.
func yield(c *ctx) float64 {
	n := c.n(yieldsPerG)
	var wg sync.WaitGroup
	// Each G's counter on a cache line of its own, as gmk's (yield.c).
	type paddedCount struct {
		n int
		_ [56]byte
	}
	counts := make([]paddedCount, 2)
	wg.Add(2)
	t0 := time.Now()
	for k := 0; k < 2; k++ {
		go func(k int) {
			for i := 0; i < n; i++ {
				runtime.Gosched()
				counts[k].n++
			}
			wg.Done()
		}(k)
	}
	wg.Wait()
	wall := time.Since(t0)
	for k := range counts {
		if counts[k].n != n {
			c.failf("yield: G %d yielded %d times, not %d", k, counts[k].n, n)
		}
	}
	return float64(wall.Nanoseconds()) / float64(2*n)
}

// pingpong: 2 Gs pass a value over two unbuffered channels N round trips.
func pingpong(c *ctx) float64 {
	n := c.n(pingpongTrips)
	ping, pong := make(chan uint64), make(chan uint64)
	var echoed uint64
	done := make(chan struct{})
	go func() {
		for v := range ping {
			echoed += v
			pong <- v + 1
		}
		close(done)
	}()
	var sum uint64
	t0 := time.Now()
	for i := 0; i < n; i++ {
		ping <- uint64(i)
		sum += <-pong
	}
	wall := time.Since(t0)
	close(ping)
	<-done
	want := uint64(n) * uint64(n-1) / 2
	if echoed != want || sum != want+uint64(n) {
		c.failf("pingpong: sums %d/%d, want %d/%d", echoed, sum, want, want+uint64(n))
	}
	return float64(wall.Nanoseconds()) / float64(2*n)
}

// lcg runs steps of Knuth's MMIX 64-bit LCG from x.
func lcg(x uint64, steps int) uint64 {
	for i := 0; i < steps; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// fanout: one G starts N Gs each running 1,000 LCG steps; efficiency is
// the serial time of the same work over nprocs times the wall time.
func fanout(c *ctx) float64 {
	n := c.n(fanoutGs)
	results := make([]uint64, n)
	t0 := time.Now()
	var serial uint64
	for i := 0; i < n; i++ {
		serial ^= lcg(uint64(i), fanoutSteps)
	}
	serialNs := time.Since(t0).Nanoseconds()

	var wg sync.WaitGroup
	wg.Add(n)
	t0 = time.Now()
	for i := 0; i < n; i++ {
		go func(i int) {
			results[i] = lcg(uint64(i), fanoutSteps)
			wg.Done()
		}(i)
	}
	wg.Wait()
	wall := time.Since(t0).Nanoseconds()
	var par uint64
	for _, r := range results {
		par ^= r
	}
	if par != serial {
		c.failf("fanout: results %#x, serial %#x", par, serial)
	}
	return float64(serialNs) / (float64(c.nprocs) * float64(wall))
}

// parked: N Gs blocked on one channel; bytes of stack and heap per G.
func parked(c *ctx) float64 {
	n := c.n(parkedGs)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.StackInuse + ms.HeapInuse
	ch := make(chan struct{})
	var started, woke int64
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			atomic.AddInt64(&started, 1)
			if _, ok := <-ch; !ok {
				atomic.AddInt64(&woke, 1)
			}
			wg.Done()
		}()
	}
	for atomic.LoadInt64(&started) < int64(n) {
		runtime.Gosched()
	}
	runtime.ReadMemStats(&ms)
	during := ms.StackInuse + ms.HeapInuse
	close(ch)
	wg.Wait()
	if woke != int64(n) {
		c.failf("parked: %d of %d Gs woke from the closed channel", woke, n)
	}
	return float64(int64(during)-int64(before)) / float64(n)
}

// latency: nprocs Gs that never yield, plus one G that sleeps 1 ms N times;
// figure: how late it wakes, p99 (p50 and worst beside it), microseconds.
func latency(c *ctx) float64 {
	n := c.n(latencySleeps)
	var stop, running int32
	var spinners sync.WaitGroup
	spins := make([]uint64, c.nprocs)
	spinners.Add(c.nprocs)
	for k := 0; k < c.nprocs; k++ {
		go func(k int) {
			x := uint64(k)
			atomic.AddInt32(&running, 1)
			for atomic.LoadInt32(&stop) == 0 {
				x = lcg(x, 64)
				spins[k]++
			}
			spinners.Done()
		}(k)
	}
	// The sleeper starts once every P runs a spinner.
	for atomic.LoadInt32(&running) < int32(c.nprocs) {
		runtime.Gosched()
	}
	late := make([]int64, n)
	slept := 0
	done := make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			t0 := time.Now()
			time.Sleep(latencySleepNs)
			late[i] = time.Since(t0).Nanoseconds() - latencySleepNs
			slept++
		}
		close(done)
	}()
	<-done
	atomic.StoreInt32(&stop, 1)
	spinners.Wait()
	if slept != n {
		c.failf("latency: the sleeper slept %d times, not %d", slept, n)
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	if late[0] < 0 {
		c.failf("latency: a sleep woke %d ns early", -late[0])
	}
	c.aux["p50"] = float64(late[n/2]) / 1000
	c.aux["worst"] = float64(late[n-1]) / 1000
	c.aux["slice"] = goForcePreemptNs / 1000
	return float64(late[(n*99)/100]) / 1000
}

// steal: 10,000 Gs of 10 µs work, all started from one G (one P's queue);
// figure: wall / (total work / nprocs).
func steal(c *ctx) float64 {
	n := c.n(stealGs)
	var wg sync.WaitGroup
	var ran int64
	wg.Add(n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			s := time.Now()
			for time.Since(s) < stealWorkNs {
			}
			atomic.AddInt64(&ran, 1)
			wg.Done()
		}()
	}
	wg.Wait()
	wall := time.Since(t0).Nanoseconds()
	if ran != int64(n) {
		c.failf("steal: %d of %d Gs ran", ran, n)
	}
	ideal := float64(n) * stealWorkNs / float64(c.nprocs)
	return float64(wall) / ideal
}

func median(v []float64) (med, lo, hi float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2], s[0], s[len(s)-1]
}

// divisors parses the -bench list: "all" or names joined by commas, each
// with an optional /D. It returns each selected benchmark's divisor.
func divisors(list string) (map[string]int, error) {
	divs := map[string]int{}
	for _, w := range strings.Split(list, ",") {
		name, d := w, 1
		if i := strings.IndexByte(w, '/'); i >= 0 {
			v, err := strconv.Atoi(w[i+1:])
			if err != nil || v < 1 {
				return nil, fmt.Errorf("%q: not a benchmark[/N]", w)
			}
			name, d = w[:i], v
		}
		known := name == "all"
		for _, b := range benches {
			if b.name == name || name == "all" {
				known = true
				if _, seen := divs[b.name]; !seen {
					divs[b.name] = d
				}
			}
		}
		if !known {
			return nil, fmt.Errorf("%q: not a benchmark[/N]", w)
		}
	}
	return divs, nil
}

func main() {
	which := flag.String("bench", "all", "all or name[,name]; name/N divides its counts by N")
	nprocs := flag.Int("nprocs", runtime.NumCPU(), "GOMAXPROCS")
	flag.Parse()
	if *nprocs < 1 {
		fmt.Fprintln(os.Stderr, "gmkbench: -nprocs must be >= 1")
		os.Exit(2)
	}
	divs, err := divisors(*which)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gmkbench: -bench="+*which+": "+err.Error())
		os.Exit(2)
	}
	runtime.GOMAXPROCS(*nprocs)
	failed := false
	for _, b := range benches {
		div, ok := divs[b.name]
		if !ok {
			continue
		}
		c := &ctx{div: div, nprocs: *nprocs}
		figs := make([]float64, 0, runs)
		aux := map[string][]float64{}
		for r := 0; r < runs && c.fail == ""; r++ {
			c.aux = map[string]float64{}
			figs = append(figs, b.run(c))
			for k, v := range c.aux {
				aux[k] = append(aux[k], v)
			}
		}
		line := fmt.Sprintf("bench %s nprocs=%d", b.name, *nprocs)
		if c.fail != "" {
			fmt.Printf("%s FAIL %s\n", line, c.fail)
			failed = true
			continue
		}
		med, lo, hi := median(figs)
		line += fmt.Sprintf(" median=%.*f min=%.*f max=%.*f %s",
			b.decimals, med, b.decimals, lo, b.decimals, hi, b.unit)
		for _, k := range b.aux {
			m, _, _ := median(aux[k])
			line += fmt.Sprintf(" %s=%.1f", k, m)
		}
		if div > 1 {
			line += fmt.Sprintf(" scale=1/%d", div)
		}
		fmt.Println(line)
	}
	if failed {
		os.Exit(1)
	}
}
