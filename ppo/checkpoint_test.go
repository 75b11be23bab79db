package ppo

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/internal/ckframe"
)

func TestCorruptCheckpointsAreRejected(t *testing.T) {
	_, dir := trainedRun(t, 2)
	good := readRunFile(t, dir, CheckpointFile)
	if _, err := decodeCheckpoint(good, true); err != nil {
		t.Fatalf("good checkpoint: %v", err)
	}
	// The structural checks are reached when the checksum is recomputed
	// after the damage; without that, the checksum catches it.
	body := good[:len(good)-4]
	dup := append(append([]byte(nil), body...), body[len(checkpointMagic)+4:]...)
	flipped := append([]byte(nil), good...)
	flipped[len(checkpointMagic)+4+len(flipped)/3] ^= 0x04
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not an xrl training checkpoint"},
		{"gat checkpoint", []byte("xrl-gat\n...."), "not an xrl training checkpoint"},
		{"no version", good[:len(checkpointMagic)+2], "truncated"},
		{"no checksum", good[:len(checkpointMagic)+4], "truncated"},
		{"truncated", good[:len(good)/2], "checksum mismatch"},
		{"truncated, checksum redone", withSum(body[:len(body)/2]), "bytes announced"},
		{"header only", withSum(body[:len(checkpointMagic)+4]), "no end marker"},
		{"data after the end", withSum(dup), "after the end marker"},
		{"bit flip", flipped, "checksum mismatch"},
		{"old version", append([]byte(checkpointMagic), 1, 0, 0, 0), "version 1"},
		{"future version", append([]byte(checkpointMagic), 9, 0, 0, 0), "version 9"},
	}
	for _, c := range cases {
		_, err := decodeCheckpoint(c.data, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// Every truncation fails cleanly (no panic), also at section ends.
	for n := 0; n < len(good); n++ {
		if _, err := decodeCheckpoint(good[:n], true); err == nil {
			t.Fatalf("checkpoint cut at %d bytes was accepted", n)
		}
	}
	// A bare network checkpoint loads as a policy with the defaults.
	ck, _ := decodeCheckpoint(good, true)
	p := filepath.Join(t.TempDir(), "net.gat")
	if err := ck.Net.SaveFile(p); err != nil {
		t.Fatal(err)
	}
	if net, c, err := LoadPolicy(p); err != nil || net == nil || c.Episodes != 1000 {
		t.Errorf("LoadPolicy on a gat checkpoint: %v", err)
	}
}

// withSum appends the checkpoint checksum of body.
func withSum(body []byte) []byte {
	return ckframe.AppendChecksum(bytes.Clone(body))
}
