package main

// `oracle batch`: a long-lived oracle for tools/difftest. Reads scenario file
// paths from stdin, one a line, and for each writes one JSON line to stdout:
//
//	{"path": P, "outcome": {allocations|unsatisfiable|error ...}}
//	{"path": P, "failure": "why the oracle could not run it"}
//
// The outcome is the document `oracle allocate` prints, as JSON. Scenarios
// run in this process one after the other, so the CEL environment and the
// upstream packages are set up once.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

type batchLine struct {
	Path    string         `json:"path"`
	Outcome map[string]any `json:"outcome,omitempty"`
	Failure string         `json:"failure,omitempty"`
}

func cmdBatch(args []string) int {
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 60*time.Second, "per scenario")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		path := strings.TrimSpace(in.Text())
		if path == "" {
			continue
		}
		line := batchLine{Path: path}
		doc, err := runOracleScenario(path, compareOptions{timeout: *timeout})
		if err != nil {
			line.Failure = err.Error()
		} else {
			line.Outcome = doc
		}
		if err := enc.Encode(line); err != nil {
			fmt.Fprintf(os.Stderr, "oracle batch: %v\n", err)
			return 1
		}
		out.Flush()
	}
	return 0
}
