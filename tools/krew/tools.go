//go:build tools

// Package tools pins krew (sigs.k8s.io/krew, the kubectl plugin manager) for
// scripts/krew, which installs dractl's krew package with it:
// `go build -o DIR/krew sigs.k8s.io/krew/cmd/krew` in this folder.
package tools

import _ "sigs.k8s.io/krew/cmd/krew"
