package executor

// Memory planning. Every intermediate value gets a buffer when its
// producer runs; the buffer goes back to a free list once the last value
// using it (the value itself or an alias of it) has had its last consumer
// run, and later nodes take free buffers by best fit. Elementwise kernels
// may write their output over an input that dies at that node. Buffers are
// raw 8-byte words so that values of any element type can share them. The
// plan is computed once at compile time; runs allocate nothing but the
// graph outputs.

import (
	"fmt"

	"github.com/xrl-dev/xrl/internal/sysmem"
)

type planBuf struct {
	bytes int
	refs  int // live slots using the buffer
}

type planner struct {
	e    *Executor
	bufs []planBuf
	free []int
}

// alloc returns a free buffer of at least bytes (best fit), grows the
// largest free one, or creates a new one.
func (p *planner) alloc(bytes int) int {
	best, largest := -1, -1
	for i, b := range p.free {
		sz := p.bufs[b].bytes
		if sz >= bytes && (best < 0 || sz < p.bufs[p.free[best]].bytes) {
			best = i
		}
		if largest < 0 || sz > p.bufs[p.free[largest]].bytes {
			largest = i
		}
	}
	pick := best
	if pick < 0 {
		pick = largest
	}
	if pick < 0 {
		p.bufs = append(p.bufs, planBuf{bytes: bytes, refs: 1})
		return len(p.bufs) - 1
	}
	b := p.free[pick]
	p.free = append(p.free[:pick], p.free[pick+1:]...)
	p.bufs[b].bytes = max(p.bufs[b].bytes, bytes)
	p.bufs[b].refs = 1
	return b
}

// bufOf returns the planned buffer holding slot id's data, or -1.
func (p *planner) bufOf(id int) int {
	s := &p.e.slots[id]
	for s.kind == slotAlias {
		s = &p.e.slots[s.alias]
	}
	if s.kind == slotPool {
		return s.buf
	}
	return -1
}

// release drops slot id's reference to its buffer.
func (p *planner) release(id int) {
	if b := p.bufOf(id); b >= 0 {
		p.bufs[b].refs--
		if p.bufs[b].refs == 0 {
			p.free = append(p.free, b)
		}
	}
}

// plan assigns buffers to the slots and allocates them, failing before
// any allocation when they would not fit in the memory available.
func (e *Executor) plan() error {
	p := &planner{e: e}
	for i, st := range e.steps {
		for _, id := range st.in {
			if id >= 0 {
				e.slots[id].lastUse = i
			}
		}
	}
	for i := range e.steps {
		st := &e.steps[i]
		var dying []int
		for j, id := range st.in {
			if id >= 0 && e.slots[id].lastUse == i && !e.slots[id].isOutput && !containsBefore(st.in, j, id) {
				dying = append(dying, id)
			}
		}
		if st.alias && !e.slots[st.out[0]].isOutput {
			out := &e.slots[st.out[0]]
			out.kind = slotAlias
			out.alias = st.in[0]
			if b := p.bufOf(st.in[0]); b >= 0 {
				p.bufs[b].refs++
			}
		} else {
			dying = p.assignOutputs(st, dying)
		}
		for _, id := range dying {
			p.release(id)
		}
		for _, id := range st.out {
			if id >= 0 && e.slots[id].lastUse < 0 && !e.slots[id].isOutput {
				p.release(id)
			}
		}
	}
	// Check the plan fits, then materialise the buffers and the views of
	// pool slots.
	var need int64
	for _, pb := range p.bufs {
		need += int64(8 * words8(pb.bytes))
	}
	scratch := 0
	for _, st := range e.steps {
		if sc, ok := st.k.(scratcher); ok {
			scratch = max(scratch, sc.scratchBytes())
		}
	}
	need += int64(8 * words8(scratch))
	if err := sysmem.CheckBytes(need, fmt.Sprintf("executor: the planned buffers (%d) and kernel scratch", len(p.bufs))); err != nil {
		return err
	}
	var total int64
	e.bufs = make([][]uint64, len(p.bufs))
	for b, pb := range p.bufs {
		e.bufs[b] = make([]uint64, words8(pb.bytes))
		total += int64(8 * len(e.bufs[b]))
	}
	for i := range e.slots {
		s := &e.slots[i]
		if s.kind != slotPool {
			continue
		}
		if s.buf < 0 {
			s.data = makeData(s.dt, 0)
		} else {
			s.data = viewAs(s.dt, e.bufs[s.buf], s.n)
		}
	}
	e.scratch = make([]uint64, words8(scratch))
	e.peak = total + int64(8*len(e.scratch))
	e.rc = runCtx{threads: e.opts.Threads, scratch: e.scratch}
	return nil
}

// assignOutputs gives each output of a non-alias step its storage. An
// in-place capable kernel takes over the buffer of a dying input of the
// right size; that input is then removed from dying, which is returned.
func (p *planner) assignOutputs(st *step, dying []int) []int {
	e := p.e
	for j, id := range st.out {
		if id < 0 {
			continue
		}
		s := &e.slots[id]
		if s.isOutput {
			s.kind = slotFresh
			continue
		}
		s.kind = slotPool
		bytes := s.n * elemSize(s.dt)
		if bytes == 0 {
			s.buf = -1
			continue
		}
		if j == 0 {
			if ip, ok := st.k.(inPlacer); ok {
				if b, k := p.inPlaceBuf(st, ip.inPlace(), dying, bytes); b >= 0 {
					s.buf = b
					dying = append(dying[:k:k], dying[k+1:]...)
					continue
				}
			}
		}
		s.buf = p.alloc(bytes)
	}
	return dying
}

// inPlaceBuf finds a dying input among candidates whose buffer only it
// uses and that is large enough; it returns the buffer and the input's
// index in dying, or -1.
func (p *planner) inPlaceBuf(st *step, candidates []int, dying []int, bytes int) (int, int) {
	for _, c := range candidates {
		if c >= len(st.in) || st.in[c] < 0 {
			continue
		}
		id := st.in[c]
		k := indexOf(dying, id)
		if k < 0 {
			continue
		}
		b := p.bufOf(id)
		if b < 0 || p.bufs[b].refs != 1 || p.bufs[b].bytes < bytes {
			continue
		}
		return b, k
	}
	return -1, -1
}

func containsBefore(ids []int, j, id int) bool {
	for _, x := range ids[:j] {
		if x == id {
			return true
		}
	}
	return false
}

func indexOf(ids []int, id int) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}
