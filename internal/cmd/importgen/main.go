// Command importgen writes a generated import file (registrytest.
// GenerateImport: seeded conflicts, invalid names, duplicates, an unknown
// registrar, bad UTF-8 and CRLF lines) for measuring akshara import, and
// prints what importing it must give.
//
//	go run ./internal/cmd/importgen -n 1000000 -o names.csv
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/akshara-idn/akshara/registry/registrytest"
)

func main() {
	n := flag.Int("n", 1_000_000, "records")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("o", "names.csv", "output `FILE`")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	want, err := registrytest.GenerateImport(w, *n, *seed)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	want.Pairs = nil
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(want)
}
