// The Go side of tools/bench-net (docs/performance.md, "The network
// (hosted)"): the servers that examples/echo and examples/httpd are in
// gmk, written as a Go program writes them on the standard library, and
// the load client of the echo benchmark. Loopback only: the tool passes
// 127.0.0.1 addresses, and the client refuses any other.
//
//	gmknet echo ADDR           io.Copy(c, c) per connection
//	gmknet http ADDR           net/http, GET / answering examples/httpd's page
//	gmknet echoload -addr A -conns N -size B -duration D
//
// echoload opens N connections, each a goroutine that writes B bytes,
// reads B bytes back and times the round trip, until D has passed; it
// prints one line:
//
//	echoload conns=16 size=64 trips=123456 rps=24691.2 p50=0.61ms p99=1.92ms
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
)

// examples/httpd's page, byte for byte, so both servers write as much.
const page = "<!DOCTYPE html>\n<html><head><title>gmk</title></head>\n" +
	"<body><h1>Hello from gmk</h1>\n" +
	"<p>An HTTP/1.1 server in a goroutine per connection, on Go's GMP scheduler.</p>\n" +
	"<p><a href=\"/stream\">/stream</a>: a response in chunks.</p></body></html>\n"

func echo(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("echo: listening on %s\n", l.Addr())
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			io.Copy(c, c)
			c.Close()
		}()
	}
}

func httpd(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("httpd: listening on %s\n", l.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Server", "go-httpd")
		h.Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
	return http.Serve(l, mux)
}

func echoload(args []string) error {
	fs := flag.NewFlagSet("echoload", flag.ExitOnError)
	addr := fs.String("addr", "", "the server, 127.0.0.1:PORT")
	conns := fs.Int("conns", 16, "connections, a goroutine each")
	size := fs.Int("size", 64, "bytes per message")
	dur := fs.Duration("duration", 5*time.Second, "how long to load")
	fs.Parse(args)
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || host != "127.0.0.1" {
		return fmt.Errorf("-addr %q: want 127.0.0.1:PORT (loopback only)", *addr)
	}
	if *conns < 1 || *size < 1 || *dur <= 0 {
		return fmt.Errorf("-conns, -size and -duration must be positive")
	}
	cs := make([]net.Conn, *conns)
	for i := range cs {
		if cs[i], err = net.DialTimeout("tcp", *addr, 5*time.Second); err != nil {
			return err
		}
		defer cs[i].Close()
	}
	lats := make([][]time.Duration, *conns)
	errs := make([]error, *conns)
	start := time.Now()
	end := start.Add(*dur)
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			out := make([]byte, *size)
			in := make([]byte, *size)
			for j := range out {
				out[j] = byte(i + j)
			}
			// The deadline bounds a server that stops answering.
			c.SetDeadline(end.Add(5 * time.Second))
			for t := time.Now(); t.Before(end); {
				if _, err := c.Write(out); err != nil {
					errs[i] = err
					return
				}
				if _, err := io.ReadFull(c, in); err != nil {
					errs[i] = err
					return
				}
				now := time.Now()
				lats[i] = append(lats[i], now.Sub(t))
				t = now
			}
			for j := range in {
				if in[j] != out[j] {
					errs[i] = fmt.Errorf("connection %d: byte %d came back %d, sent %d", i, j, in[j], out[j])
					return
				}
			}
		}(i, c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for i := range cs {
		if errs[i] != nil {
			return errs[i]
		}
		all = append(all, lats[i]...)
	}
	if len(all) == 0 {
		return fmt.Errorf("no round trip completed")
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	pct := func(p float64) float64 {
		return float64(all[int(p*float64(len(all)-1))]) / 1e6
	}
	fmt.Printf("echoload conns=%d size=%d trips=%d rps=%.1f p50=%.3fms p99=%.3fms\n",
		*conns, *size, len(all), float64(len(all))/elapsed.Seconds(), pct(0.50), pct(0.99))
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gmknet echo ADDR | http ADDR | echoload -addr 127.0.0.1:PORT [-conns N] [-size B] [-duration D]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "echo", "http":
		if len(os.Args) != 3 {
			err = fmt.Errorf("%s: want one address", os.Args[1])
		} else if os.Args[1] == "echo" {
			err = echo(os.Args[2])
		} else {
			err = httpd(os.Args[2])
		}
	case "echoload":
		err = echoload(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gmknet:", err)
		os.Exit(1)
	}
}
