package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func versions() []string { return append([]string{HelixVersion}, OlderVersions...) }

// TestLanguagesTomlIsGenerated: editors/helix/languages.toml (and the file of each older release)
// is what the generator writes from Helix's own languages.toml of the release it names.
func TestLanguagesTomlIsGenerated(t *testing.T) {
	header := read(t, OutputFor(HelixVersion))
	for _, v := range versions() {
		got, err := Generate(header, read(t, UpstreamFor(v)), v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, read(t, OutputFor(v))) {
			t.Errorf("editors/helix/%s is out of date: run `go run ./editors/helix/genlanguages` (make generate)", OutputFor(v))
		}
	}
}

// TestEveryServerIsDefined: each language of a release's file exists in that Helix with servers,
// lists only servers that Helix defines (or hermes-lsp, which the file defines), and ends with
// hermes-lsp; and every language that has a server in that Helix is there.
func TestEveryServerIsDefined(t *testing.T) {
	for _, v := range versions() {
		t.Run(v, func(t *testing.T) { checkServers(t, v) })
	}
}

func checkServers(t *testing.T, version string) {
	up, err := ParseUpstream(read(t, UpstreamFor(version)))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := ParseUpstream(read(t, OutputFor(version)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ours.Servers[ServerName]; !ok {
		t.Fatalf("%s does not define [language-server.%s]", OutputFor(version), ServerName)
	}
	withServers := map[string]bool{}
	for _, l := range up.Languages {
		if len(l.Servers) > 0 {
			withServers[l.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, l := range ours.Languages {
		if !withServers[l.Name] {
			t.Errorf("language %q: Helix %s has no such language with servers", l.Name, version)
		}
		if seen[l.Name] {
			t.Errorf("language %q is listed twice", l.Name)
		}
		seen[l.Name] = true
		names, err := l.ServerNames()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if _, ok := up.Servers[n]; !ok && n != ServerName {
				t.Errorf("language %q uses server %q, which Helix %s does not define: an error on every %s file", l.Name, n, version, l.Name)
			}
		}
		if len(names) == 0 || names[len(names)-1] != ServerName {
			t.Errorf("language %q: %v does not end with %q", l.Name, names, ServerName)
		}
	}
	for name := range withServers {
		if !seen[name] {
			t.Errorf("language %q has servers in Helix %s but is missing", name, version)
		}
	}
	if len(seen) < 100 {
		t.Errorf("only %d languages: the upstream file was not read whole", len(seen))
	}
}
