package measure

import (
	"testing"
	"time"
)

func TestBlockRunsFor(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		k    int
		run  time.Duration
		want int
	}{
		{8, 0, 8}, // not known
		{8, 100 * time.Microsecond, 8},
		{8, 12 * ms, 8},  // 96 ms a block
		{8, 20 * ms, 4},  // 160 ms: 4 runs make 80 ms
		{8, 40 * ms, 2},  // the encoder at batch 8: one ABBA unit
		{8, 85 * ms, 2},  // ViT-B/16 at batch 1
		{8, 690 * ms, 2}, // at batch 8: one ABBA unit
		{4, 25 * ms, 4},  // fits already
		{1, 690 * ms, 1}, // never more runs than asked
	}
	for _, tc := range cases {
		if got := blockRunsFor(tc.k, tc.run); got != tc.want {
			t.Errorf("blockRunsFor(%d, %v) = %d, want %d", tc.k, tc.run, got, tc.want)
		}
	}
}

func TestEnoughBlocks(t *testing.T) {
	cases := []struct {
		blocks  int
		elapsed time.Duration
		want    bool
	}{
		{12, 0, true},
		{11, time.Second, false},
		{7, time.Minute, false},
		{8, 5 * time.Second, false},
		{8, 6 * time.Second, true},
	}
	for _, tc := range cases {
		if got := enoughBlocks(tc.blocks, minCompareBlocks, tc.elapsed); got != tc.want {
			t.Errorf("enoughBlocks(%d, %v) = %v, want %v", tc.blocks, tc.elapsed, got, tc.want)
		}
	}
}

func TestFirstLookBlocks(t *testing.T) {
	cases := []struct {
		pairs, k, want int
	}{
		{1, 8, inRowFirstLook},
		{1, 4, inRowFirstLook},
		{1, bootstrapUnit, minCompareBlocks},
		{8, 8, minCompareBlocks},
	}
	for _, tc := range cases {
		if got := firstLookBlocks(tc.pairs, tc.k); got != tc.want {
			t.Errorf("firstLookBlocks(%d, %d) = %d, want %d", tc.pairs, tc.k, got, tc.want)
		}
	}
	// A single pair's blocks of eight: 12 are not enough, 24 are, and so
	// are 8 after slowFirstLook.
	for _, tc := range []struct {
		blocks  int
		elapsed time.Duration
		want    bool
	}{{12, time.Second, false}, {23, 5 * time.Second, false}, {24, time.Second, true}, {8, slowFirstLook, true}} {
		if got := enoughBlocks(tc.blocks, firstLookBlocks(1, 8), tc.elapsed); got != tc.want {
			t.Errorf("one pair, blocks of 8: enoughBlocks(%d, %v) = %v, want %v", tc.blocks, tc.elapsed, got, tc.want)
		}
	}
}
