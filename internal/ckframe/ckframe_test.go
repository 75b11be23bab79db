package ckframe

import (
	"bytes"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	f := Frame{Magic: "xrl-tst\n", Version: 3, Kind: "test"}
	good := f.Seal([]byte("payload"))
	flipped := bytes.Clone(good)
	flipped[len(f.Magic)+5] ^= 1
	tests := []struct {
		name string
		data []byte
		want string // error substring; "" = ok
	}{
		{"round trip", good, ""},
		{"empty body", f.Seal(nil), ""},
		{"other magic", append([]byte("xrl-gat\n"), good[8:]...), "not an xrl test checkpoint"},
		{"empty", nil, "not an xrl test checkpoint"},
		{"no version", good[:len(f.Magic)+2], "truncated"},
		{"old version", Frame{Magic: f.Magic, Version: 1}.Seal([]byte("payload")), "version 1, this build reads version 3"},
		{"no checksum", good[:len(f.Magic)+4], "truncated (no checksum)"},
		{"cut", good[:len(good)-1], "checksum mismatch"},
		{"bit flip", flipped, "checksum mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, err := f.Open(tc.data)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.data[len(f.Magic)+4 : len(tc.data)-4]; !bytes.Equal(body, want) {
					t.Fatalf("body %q, want %q", body, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
