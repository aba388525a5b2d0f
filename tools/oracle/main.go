// Command oracle runs Kubernetes' own DRA code (k8s.io/dynamic-resource-allocation
// v0.37.2) on the project's conformance vectors and prints the outcome in the
// shape dractl prints, so that the two can be compared.
//
//	oracle allocate --scenario FILE
//	oracle cel run FILE.jsonl
//	oracle compare [flags] DIR_OR_FILE...
//	oracle batch  (paths on stdin; used by tools/difftest)
//	oracle schedule [--batch] FILE  (kube-scheduler 1.37.2's plugins; tools/difftest --level scheduler)
//	oracle bench gen|cel|alloc  (used by bench/compare)
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  oracle allocate --scenario FILE     run upstream's allocator on one scenario
  oracle cel run FILE.jsonl           evaluate CEL vectors with upstream's DRA CEL
  oracle compare [flags] PATH...      compare dractl with the oracle (see -h)
  oracle batch [--timeout D]          scenario paths on stdin, one JSON outcome a line
  oracle schedule [--batch] FILE      kube-scheduler's plugins on a cluster (scheduler.go)
  oracle bench gen|cel|alloc ...      upstream's side of bench/compare (see bench.go)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "allocate":
		os.Exit(cmdAllocate(os.Args[2:]))
	case "cel":
		if len(os.Args) < 3 || os.Args[2] != "run" {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		os.Exit(cmdCelRun(os.Args[3:]))
	case "compare":
		os.Exit(cmdCompare(os.Args[2:]))
	case "batch":
		os.Exit(cmdBatch(os.Args[2:]))
	case "schedule":
		os.Exit(cmdSchedule(os.Args[2:]))
	case "bench":
		os.Exit(cmdBench(os.Args[2:]))
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
}
