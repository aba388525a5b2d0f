// Command oci assembles the container image of `dractl serve` without a
// container daemon: one layer made from a root filesystem tarball (written by
// scripts/image: a Debian 12 root with the .deb installed), the entrypoint
// (dractl, default argument serve, as deploy/Dockerfile) and labels, written as an OCI image layout and as a `docker load` tarball.
//
//	go run . --rootfs root.tar --layout DIR --tarball image.tar --tag dractl:0.1.0
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func main() {
	rootfs := flag.String("rootfs", "", "tar of the image's root filesystem (required)")
	layoutDir := flag.String("layout", "", "write an OCI image layout into this folder")
	tarPath := flag.String("tarball", "", "write a `docker load` / `podman load` tarball to this file")
	tag := flag.String("tag", "dractl:latest", "the image's name and tag")
	entrypoint := flag.String("entrypoint", "/usr/bin/dractl", "comma-separated entrypoint")
	cmd := flag.String("cmd", "serve", "comma-separated default arguments")
	flag.Parse()
	if err := run(*rootfs, *layoutDir, *tarPath, *tag, strings.Split(*entrypoint, ","), strings.Split(*cmd, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "oci:", err)
		os.Exit(1)
	}
}

func run(rootfs, layoutDir, tarPath, tag string, entrypoint, cmd []string) error {
	if rootfs == "" || (layoutDir == "" && tarPath == "") {
		return fmt.Errorf("usage: oci --rootfs ROOT.tar (--layout DIR | --tarball FILE) [--tag NAME:TAG]")
	}
	layer, err := tarball.LayerFromFile(rootfs, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return fmt.Errorf("%s: %w", rootfs, err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.OS = "linux"
	cfg.Architecture = "amd64"
	cfg.Config.Entrypoint = entrypoint
	cfg.Config.Cmd = cmd
	cfg.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cfg.Config.User = "65532:65532" // not root: dractl serve needs no privileges
	cfg.Config.ExposedPorts = map[string]struct{}{"10260/tcp": {}}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       "dractl",
		"org.opencontainers.image.description": "dractl serve: a secondary Kubernetes scheduler for DRA pods",
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	if layoutDir != "" {
		p, err := layout.Write(layoutDir, empty.Index)
		if err != nil {
			return err
		}
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": ref.TagStr(),
		})); err != nil {
			return err
		}
	}
	if tarPath != "" {
		if err := tarball.WriteToFile(tarPath, ref, img); err != nil {
			return err
		}
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("oci: %s %s\n", ref.String(), digest)
	return nil
}
