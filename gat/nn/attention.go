package nn

import (
	"math"
	"math/rand/v2"
)

// Graph describes one round of message passing from an input table of NIn
// node rows to an output table of NOut node rows. Output row u receives
// the edges [Off[u], Off[u+1]) of Src, whose entries are input rows; Self[u]
// is the input row of u's own node (the receiver in attention scores).
// Every output row should list its self-loop among its edges so that a
// node without incoming edges keeps its own information. When inputs and
// outputs are the same nodes, Self is the identity; xrl's encoder shares
// identical nodes, so output and input tables differ.
type Graph struct {
	NIn, NOut int
	Self      []int32
	Off       []int32
	Src       []int32
}

// GAT is a multi-head graph attention layer with concatenated heads:
//
//	z_v     = W h_v
//	e_uv    = LeakyReLU_attn(aDst_h · z_self(u) + aSrc_h · z_v)   per head h
//	α_uv    = softmax of e_uv over the incoming edges v of u
//	h'_u    = LeakyReLU_act(b + Σ_v α_uv z_v)                    per head slice
type GAT[F Float] struct {
	Dim, Heads int
	W          *Param[F] // [Dim, Dim]
	ASrc, ADst *Param[F] // [Dim]: head h uses entries [h*Dim/Heads, (h+1)*Dim/Heads)
	B          *Param[F] // [Dim]
	// AttnSlope and ActSlope are the negative slopes of the attention and
	// output LeakyReLUs.
	AttnSlope, ActSlope F
	wt                  []F
}

// NewGAT returns a GAT layer of width dim with the given heads; W is
// orthogonal times gain, the attention vectors are Gaussian with standard
// deviation 1/sqrt(dim/heads), the bias zero.
func NewGAT[F Float](name string, dim, heads int, gain float64, rng *rand.Rand) *GAT[F] {
	g := &GAT[F]{Dim: dim, Heads: heads,
		W:    NewParam[F](name+".w", dim, dim),
		ASrc: NewParam[F](name+".asrc", dim), ADst: NewParam[F](name+".adst", dim),
		B:         NewParam[F](name+".b", dim),
		AttnSlope: 0.2, ActSlope: 0.01}
	Orthogonal(g.W, gain, rng)
	std := 1 / math.Sqrt(float64(dim/heads))
	Normal(g.ASrc, std, rng)
	Normal(g.ADst, std, rng)
	return g
}

// Params returns W, ASrc, ADst and B.
func (g *GAT[F]) Params() []*Param[F] { return []*Param[F]{g.W, g.ASrc, g.ADst, g.B} }

// GATCache holds what a GAT forward pass keeps for its backward pass;
// reusing one avoids allocations.
type GATCache[F Float] struct {
	Z, SSrc, SDst, Raw, Alpha []F
}

// GATScratch is scratch space for GAT backward passes; one can serve all
// layers of a network.
type GATScratch[F Float] struct {
	dRaw, dZ, dSSrc, dSDst []F
}

// Forward computes hout (g.NOut×Dim) from hin (g.NIn×Dim).
func (l *GAT[F]) Forward(g *Graph, hin []F, c *GATCache[F], hout []F) {
	d, nh := l.Dim, l.Heads
	hd := d / nh
	E := len(g.Src)
	c.Z = grow(c.Z, g.NIn*d)
	MatMulNT(g.NIn, d, d, hin, l.W.Value, 0, c.Z)
	c.SSrc = grow(c.SSrc, g.NIn*nh)
	c.SDst = grow(c.SDst, g.NIn*nh)
	headDot(c.Z, g.NIn, d, nh, l.ASrc.Value, c.SSrc)
	headDot(c.Z, g.NIn, d, nh, l.ADst.Value, c.SDst)
	c.Raw = grow(c.Raw, E*nh)
	c.Alpha = grow(c.Alpha, E*nh)
	hout = hout[:g.NOut*d]
	attn := [2]F{l.AttnSlope, 1}
	Parallel(g.NOut, 256, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			e0, e1 := int(g.Off[u]), int(g.Off[u+1])
			sd := c.SDst[int(g.Self[u])*nh : int(g.Self[u]+1)*nh]
			for e := e0; e < e1; e++ {
				ss := c.SSrc[int(g.Src[e])*nh : int(g.Src[e]+1)*nh]
				for h := 0; h < nh; h++ {
					r := sd[h] + ss[h]
					c.Raw[e*nh+h] = r
					j := 0
					if r > 0 {
						j = 1
					}
					c.Alpha[e*nh+h] = attn[j] * r
				}
			}
			segmentSoftmax(c.Alpha, nh, e0, e1, c.Alpha)
			pre := hout[u*d : (u+1)*d]
			copy(pre, l.B.Value)
			for e := e0; e < e1; e++ {
				z := c.Z[int(g.Src[e])*d : int(g.Src[e]+1)*d]
				a := c.Alpha[e*nh : (e+1)*nh]
				for h := 0; h < nh; h++ {
					axpy(a[h], z[h*hd:(h+1)*hd], pre[h*hd:(h+1)*hd])
				}
			}
			LeakyReLU(pre, pre, l.ActSlope)
		}
	})
}

// Backward adds the parameter gradients given dhout and writes dhin
// (g.NIn×Dim) unless it is nil. hin, hout and c must hold the matching
// forward pass; dhout is overwritten (it becomes the gradient before the
// output activation). ActSlope must be non-negative: the backward pass
// reads the activation's slope from the sign of hout.
func (l *GAT[F]) Backward(g *Graph, hin, hout []F, c *GATCache[F], sc *GATScratch[F], dhout, dhin []F) {
	d, nh := l.Dim, l.Heads
	hd := d / nh
	E := len(g.Src)
	dPre := dhout[:g.NOut*d]
	LeakyReLUBackward(hout[:g.NOut*d], dPre, dPre, l.ActSlope)
	ColSumAdd(dPre, g.NOut, d, l.B.Grad)
	// Gradient of the attention logits, per receiver.
	sc.dRaw = grow(sc.dRaw, E*nh)
	attn := [2]F{l.AttnSlope, 1}
	Parallel(g.NOut, 256, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			e0, e1 := int(g.Off[u]), int(g.Off[u+1])
			dp := dPre[u*d : (u+1)*d]
			for e := e0; e < e1; e++ {
				z := c.Z[int(g.Src[e])*d : int(g.Src[e]+1)*d]
				for h := 0; h < nh; h++ {
					sc.dRaw[e*nh+h] = dot(dp[h*hd:(h+1)*hd], z[h*hd:(h+1)*hd])
				}
			}
			segmentSoftmaxBackward(c.Alpha, sc.dRaw, nh, e0, e1, sc.dRaw)
			for i := e0 * nh; i < e1*nh; i++ {
				j := 0
				if c.Raw[i] > 0 {
					j = 1
				}
				sc.dRaw[i] *= attn[j]
			}
		}
	})
	// Scatter to the senders' rows.
	sc.dZ = GrowZero(sc.dZ, g.NIn*d)
	sc.dSSrc = GrowZero(sc.dSSrc, g.NIn*nh)
	sc.dSDst = GrowZero(sc.dSDst, g.NIn*nh)
	for u := 0; u < g.NOut; u++ {
		e0, e1 := int(g.Off[u]), int(g.Off[u+1])
		dp := dPre[u*d : (u+1)*d]
		sd := sc.dSDst[int(g.Self[u])*nh : int(g.Self[u]+1)*nh]
		for e := e0; e < e1; e++ {
			s := int(g.Src[e])
			dz := sc.dZ[s*d : (s+1)*d]
			a := c.Alpha[e*nh : (e+1)*nh]
			for h := 0; h < nh; h++ {
				axpy(a[h], dp[h*hd:(h+1)*hd], dz[h*hd:(h+1)*hd])
				r := sc.dRaw[e*nh+h]
				sc.dSSrc[s*nh+h] += r
				sd[h] += r
			}
		}
	}
	// Through the attention vectors into z.
	for v := 0; v < g.NIn; v++ {
		z := c.Z[v*d : (v+1)*d]
		dz := sc.dZ[v*d : (v+1)*d]
		for h := 0; h < nh; h++ {
			ss, sd := sc.dSSrc[v*nh+h], sc.dSDst[v*nh+h]
			lo, hi := h*hd, (h+1)*hd
			axpy(ss, l.ASrc.Value[lo:hi], dz[lo:hi])
			axpy(sd, l.ADst.Value[lo:hi], dz[lo:hi])
			axpy(ss, z[lo:hi], l.ASrc.Grad[lo:hi])
			axpy(sd, z[lo:hi], l.ADst.Grad[lo:hi])
		}
	}
	MatMulTN(d, d, g.NIn, sc.dZ, hin, 1, l.W.Grad)
	if dhin == nil {
		return
	}
	l.wt = grow(l.wt, d*d)
	Transpose(l.W.Value, d, d, l.wt)
	MatMulNT(g.NIn, d, d, sc.dZ, l.wt, 0, dhin)
}

// headDot writes s[v,h] = a[head h] · z[v, head h] for rows of width d
// split into nh heads.
func headDot[F Float](z []F, rows, d, nh int, a, s []F) {
	hd := d / nh
	for v := 0; v < rows; v++ {
		for h := 0; h < nh; h++ {
			s[v*nh+h] = dot(a[h*hd:(h+1)*hd], z[v*d+h*hd:v*d+(h+1)*hd])
		}
	}
}

func dot[F Float](a, b []F) F {
	var s F
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy[F Float](k F, x, y []F) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += k * v
	}
}
