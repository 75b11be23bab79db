package builtin

import (
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/env"
)

func TestLoad(t *testing.T) {
	net, prov, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(prov.Models) < 2 || prov.Episodes < 1 || prov.Script == "" || prov.Runtime == "" {
		t.Errorf("provenance %+v lacks the training record", prov)
	}
	// The network takes the environment's op classes: a model trained
	// before the table grew cannot be embedded.
	if got := net.Config().Classes; got != env.NumOpClasses() {
		t.Errorf("the agent encodes %d op classes, the environment %d", got, env.NumOpClasses())
	}
	if len(netBytes) > 256<<10 {
		t.Errorf("embedded agent is %d bytes; keep it under 256 KiB", len(netBytes))
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name      string
		net, prov []byte
		want      string
	}{
		{"corrupt net", netBytes[:len(netBytes)/2], provenanceBytes, "agent.gat"},
		{"not json", netBytes, []byte("{"), "provenance.json"},
		{"unknown field", netBytes, []byte(`{"horizon": 1, "max_candidates": 1, "models": [{"name": "a"}], "extra": 1}`), "unknown field"},
		{"no horizon", netBytes, []byte(`{"max_candidates": 1, "models": [{"name": "a"}]}`), "horizon 0"},
		{"no models", netBytes, []byte(`{"horizon": 1, "max_candidates": 1}`), "no training models"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := decode(c.net, c.prov)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("decode: %v, want an error containing %q", err, c.want)
			}
		})
	}
}
